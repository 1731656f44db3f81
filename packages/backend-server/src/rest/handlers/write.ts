import { quoteIdent, quoteLiteral, quoteQualified } from '../../db/quote';
import {
  buildContext,
  checkLevelsUsed,
  contentRange,
  type Outcome,
  outcomeOf,
  type RestRequest,
  type Runtime,
  runInTransaction,
} from '../context';
import { RestError } from '../errors';
import { parsePayload } from '../http/payload';
import { emptyLevel } from '../parse/ast';
import type { InsertPlan, MutatePlan } from '../plan/types';
import { checkColumns } from '../plan/write';
import type { Table } from '../schema/types';
import { type BuildContext, buildLevel, cteSource } from '../sql/read';
import { renderLevel } from '../sql/render';
import { wrapStatement } from '../sql/statement';
import { limitedWhere, rootWhere } from '../sql/where';
import { baseHeaders, bodyText, checkSingular, explain, finish, type Statement } from './respond';

interface MutationSql {
  /** The data-modifying statement without RETURNING. */
  statement: string;
  /** Extra RETURNING expressions besides the target's columns. */
  returningExtra: string[];
  target: string;
}

/** Builds the statement for a representation (or headers-only/minimal) response. */
function wrapMutation(
  ctx: BuildContext,
  plan: InsertPlan | MutatePlan,
  m: MutationSql,
): Statement & { minimal: boolean } {
  const { table, query } = plan;
  if (plan.returning === 'none') {
    return { sql: m.statement, params: ctx.params.values, minimal: true };
  }
  const returning = [`${m.target}.*`, ...m.returningExtra].join(', ');
  const cte = `pgrst_source AS (${m.statement} RETURNING ${returning})`;
  // The returned rows are read without the root filters (they selected the target rows).
  ctx.levels = new Map(query.levels).set('', emptyLevel());
  const source = cteSource(table.name, table, table.columns);
  const items =
    plan.returning === 'keys'
      ? table.primaryKey.map((name) => ({
          kind: 'column' as const,
          field: { name, path: [] },
          alias: null,
          cast: null,
          aggregate: null,
          aggregateCast: null,
        }))
      : (query.select ?? [{ kind: 'star' as const }]);
  const level = buildLevel(ctx, source, items, '');
  checkLevelsUsed(ctx);
  const extra = m.returningExtra.length
    ? ['(SELECT count(*) FROM pgrst_source WHERE pgrst_inserted) AS inserted']
    : [];
  const sql = wrapStatement({
    ctes: [cte],
    rows: renderLevel(source.from, level, null, null),
    count: null,
    ...plan.body,
    extra,
  });
  return { sql, params: ctx.params.values, minimal: false };
}

const GUCS = `select nullif(current_setting('response.headers', true), '') as response_headers,
  nullif(current_setting('response.status', true), '') as response_status`;

async function execute(
  rt: Runtime,
  req: RestRequest,
  st: Statement & { minimal: boolean },
): Promise<Outcome> {
  return runInTransaction(rt, req, false, async (tx) => {
    let out: Outcome;
    if (st.minimal) {
      const result = await tx.query(st.sql, st.params);
      const gucs = await tx.query(GUCS);
      out = outcomeOf({ ...gucs.rows[0], page_total: result.affectedRows, body: '' });
    } else {
      const { rows } = await tx.query(st.sql, st.params);
      out = outcomeOf(rows[0]);
    }
    const { handling, maxAffected } = req.prefs;
    if (handling === 'strict' && maxAffected !== null && out.pageTotal > maxAffected) {
      throw new RestError(
        400,
        'PGRST124',
        'Query result exceeds max-affected preference constraint',
        `The query affects ${out.pageTotal} rows`,
        null,
      );
    }
    if (!st.minimal) checkSingular(req, out);
    return out;
  });
}

function applied(req: RestRequest, extra: string[] = []): string {
  const p = req.prefs;
  const list = [...extra];
  if (p.missing === 'default') list.push('missing=default');
  if (p.return) list.push(`return=${p.return}`);
  if (p.count) list.push(`count=${p.count}`);
  if (p.tx) list.push(`tx=${p.tx}`);
  if (p.handling) list.push(`handling=${p.handling}`);
  if (p.timezone) list.push(`timezone=${p.timezone}`);
  if (p.handling === 'strict' && p.maxAffected !== null) list.push(`max-affected=${p.maxAffected}`);
  return list.join(', ');
}

function setApplied(headers: Headers, value: string) {
  if (value) headers.set('preference-applied', value);
}

function insertSql(ctx: BuildContext, req: RestRequest, plan: InsertPlan): MutationSql {
  const { table, rows, columns, conflict } = plan;
  const target = quoteIdent('pgrst_target');
  const into = `INSERT INTO ${quoteQualified(table.schema, table.name)} AS ${target}`;
  const rowType = `NULL::${quoteQualified(table.schema, table.name)}`;
  const cols = columns.map(quoteIdent).join(', ');
  let statement: string;
  if (columns.length === 0) {
    statement = `${into} SELECT FROM json_array_elements(${ctx.params.add(JSON.stringify(rows))}::text::json)`;
  } else if (req.prefs.missing === 'default') {
    // As the hosted service does it: every row starts from the defaults of the payload's
    // columns (each default evaluated per row, so sequences advance for every row), and
    // its own values replace them.
    const defaults = columns.flatMap((c) => {
      const d = table.columnMap.get(c)?.default;
      return d ? [`${quoteLiteral(c)}, ${d}`] : [];
    });
    const defs = columns.map((c) => `${quoteIdent(c)} ${table.columnMap.get(c)?.type ?? 'text'}`);
    const p = ctx.params.add(JSON.stringify(rows));
    statement = `${into} (${cols}) SELECT ${cols} FROM jsonb_to_recordset((SELECT jsonb_agg(jsonb_build_object(${defaults.join(', ')}) || pgrst_elem) FROM jsonb_array_elements(${p}::text::jsonb) AS pgrst_elem)) AS pgrst_body(${defs.join(', ')})`;
  } else {
    const p = ctx.params.add(JSON.stringify(rows));
    statement = `${into} (${cols}) SELECT ${cols} FROM json_populate_recordset(${rowType}, ${p}::text::json)`;
  }
  if (conflict) {
    const on = conflict.target.map(quoteIdent).join(', ');
    const updates = columns.map((c) => `${quoteIdent(c)} = EXCLUDED.${quoteIdent(c)}`);
    statement +=
      conflict.merge && updates.length
        ? ` ON CONFLICT (${on}) DO UPDATE SET ${updates.join(', ')}`
        : ` ON CONFLICT (${on}) DO NOTHING`;
  }
  const trackInserted = (table.kind === 'r' || table.kind === 'p') && conflict?.merge === true;
  return {
    statement,
    returningExtra: trackInserted ? [`(${target}.xmax = 0) AS pgrst_inserted`] : [],
    target,
  };
}

function pkLocation(table: Table, body: string): string | null {
  const rows = JSON.parse(body || '[]') as Record<string, unknown>[] | Record<string, unknown>;
  const first = Array.isArray(rows) ? rows[0] : rows;
  if (!first || table.primaryKey.length === 0) return null;
  const q = table.primaryKey
    .map((k) => `${encodeURIComponent(k)}=eq.${encodeURIComponent(String(first[k]))}`)
    .join('&');
  return `/${encodeURIComponent(table.name)}?${q}`;
}

/** Executes a POST (insert / upsert) or PUT (single-row upsert). */
export async function executeInsert(
  rt: Runtime,
  req: RestRequest,
  plan: InsertPlan,
): Promise<Response> {
  const ctx = buildContext(rt, req, plan.query);
  const m = insertSql(ctx, req, plan);
  const st = wrapMutation(ctx, plan, m);
  if (req.media.kind === 'plan') return explain(rt, req, st, false);
  const outcome = await execute(rt, req, st);
  const headers = baseHeaders(rt, req);
  setApplied(headers, applied(req, plan.appliedExtra));
  headers.set('content-range', `*/${req.prefs.count ? outcome.pageTotal : '*'}`);
  let status = 201;
  if (!st.minimal && m.returningExtra.length) {
    const inserted = Number(outcome.row.inserted ?? 0);
    if (inserted === 0 && outcome.pageTotal > 0) status = 200;
  }
  if (req.method === 'PUT' && !st.minimal && status === 201 && m.returningExtra.length === 0)
    status = 200;
  if (plan.returning === 'keys') {
    const location = pkLocation(plan.table, outcome.body);
    if (location) headers.set('location', location);
    return finish(req, outcome, status, headers, null);
  }
  if (st.minimal) return finish(req, outcome, req.method === 'PUT' ? 204 : status, headers, null);
  return finish(req, outcome, status, headers, bodyText(req, outcome));
}

/** The UPDATE of a PATCH: its body (PGRST102) and columns (PGRST204) read here. */
function updateSql(
  ctx: BuildContext,
  req: RestRequest,
  plan: MutatePlan,
  name: string,
  target: string,
  whereSql: string,
): string {
  const { table } = plan;
  const body = parsePayload(req.contentType, req.bodyText);
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new RestError(400, 'PGRST102', 'Empty or invalid json', null, null);
  const columns = plan.query.columns ?? Object.keys(body);
  checkColumns(table, columns);
  if (columns.length === 0) {
    // Nothing to set: an update that matches no row.
    const first = table.columns.find((c) => !c.generated && c.identity !== 'a')?.name ?? '';
    return `UPDATE ${name} AS ${target} SET ${quoteIdent(first)} = ${target}.${quoteIdent(first)}${whereSql ? `${whereSql} AND FALSE` : ' WHERE FALSE'}`;
  }
  const p = ctx.params.add(JSON.stringify(body));
  const sets = columns.map((c) => `${quoteIdent(c)} = pgrst_body.${quoteIdent(c)}`).join(', ');
  return `UPDATE ${name} AS ${target} SET ${sets} FROM (SELECT * FROM json_populate_record(NULL::${name}, ${p}::text::json)) AS pgrst_body${whereSql}`;
}

/** Executes a PATCH (update) or DELETE. */
export async function executeMutate(
  rt: Runtime,
  req: RestRequest,
  plan: MutatePlan,
): Promise<Response> {
  const { table, query } = plan;
  const ctx = buildContext(rt, req, query);
  const target = quoteIdent('pgrst_target');
  const name = quoteQualified(table.schema, table.name);
  const where =
    limitedWhere(ctx, query, table, target, name) ?? rootWhere(ctx, query, table, target);
  const whereSql = where.length ? ` WHERE ${where.join(' AND ')}` : '';
  const statement =
    plan.kind === 'delete'
      ? `DELETE FROM ${name} AS ${target}${whereSql}`
      : updateSql(ctx, req, plan, name, target, whereSql);
  const st = wrapMutation(ctx, plan, { statement, returningExtra: [], target });
  if (req.media.kind === 'plan') return explain(rt, req, st, false);
  const outcome = await execute(rt, req, st);
  const headers = baseHeaders(rt, req);
  setApplied(headers, applied(req));
  const total = req.prefs.count ? outcome.pageTotal : null;
  headers.set(
    'content-range',
    plan.kind === 'update' ? contentRange(0, outcome.pageTotal, total) : `*/${total ?? '*'}`,
  );
  if (plan.returning !== 'rows') return finish(req, outcome, 204, headers, null);
  return finish(req, outcome, 200, headers, bodyText(req, outcome));
}
