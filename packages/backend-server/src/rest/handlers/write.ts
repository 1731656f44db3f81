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
import { parsePayload, payloadRows } from '../http/payload';
import { emptyLevel, type ParsedQuery } from '../parse/ast';
import { parseQuery } from '../parse/query';
import type { Table } from '../schema/types';
import { ident, qname } from '../sql/params';
import { type BuildContext, buildLevel, cteSource } from '../sql/read';
import { renderLevel } from '../sql/render';
import { wrapStatement } from '../sql/statement';
import { limitedWhere, rootWhere } from '../sql/where';
import { baseHeaders, bodyText, checkSingular, explain, finish, type Statement } from './respond';

const unknownColumn = (table: Table, column: string) =>
  new RestError(
    400,
    'PGRST204',
    `Could not find the '${column}' column of '${table.name}' in the schema cache`,
    null,
    null,
  );

function checkColumns(table: Table, columns: string[]): void {
  for (const c of columns) if (!table.columnMap.has(c)) throw unknownColumn(table, c);
}

interface MutationSql {
  /** The data-modifying statement without RETURNING. */
  statement: string;
  /** Extra RETURNING expressions besides the target's columns. */
  returningExtra: string[];
  target: string;
}

/** Builds the statement for a representation (or headers-only/minimal) response. */
function wrapMutation(
  _rt: Runtime,
  req: RestRequest,
  ctx: BuildContext,
  parsed: ParsedQuery,
  table: Table,
  m: MutationSql,
): Statement & { minimal: boolean } {
  const ret = req.prefs.return ?? 'minimal';
  const needsPk = ret === 'headers-only' && req.method === 'POST' && table.primaryKey.length > 0;
  if (ret === 'minimal' || (ret === 'headers-only' && !needsPk)) {
    return { sql: m.statement, params: ctx.params.values, minimal: true };
  }
  const returning = [`${m.target}.*`, ...m.returningExtra].join(', ');
  const cte = `pgrst_source AS (${m.statement} RETURNING ${returning})`;
  // The returned rows are read without the root filters (they selected the target rows).
  parsed.levels.set('', emptyLevel());
  const source = cteSource(table.name, table, table.columns);
  const items =
    ret === 'headers-only'
      ? table.primaryKey.map((name) => ({
          kind: 'column' as const,
          field: { name, path: [] },
          alias: null,
          cast: null,
          aggregate: null,
          aggregateCast: null,
        }))
      : (parsed.select ?? [{ kind: 'star' as const }]);
  const level = buildLevel(ctx, source, items, '');
  checkLevelsUsed(ctx);
  const extra = m.returningExtra.length
    ? ['(SELECT count(*) FROM pgrst_source WHERE pgrst_inserted) AS inserted']
    : [];
  const sql = wrapStatement({
    ctes: [cte],
    rows: renderLevel(source.from, level, null, null),
    count: null,
    shape: req.media.kind === 'csv' ? 'csv' : req.media.kind === 'object' ? 'object' : 'array',
    stripNulls: (req.media.kind === 'json' || req.media.kind === 'object') && req.media.stripNulls,
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

function insertSql(
  ctx: BuildContext,
  req: RestRequest,
  table: Table,
  rows: Record<string, unknown>[],
  columns: string[],
  conflict: { target: string[]; merge: boolean } | null,
): MutationSql {
  const target = ident('pgrst_target');
  const into = `INSERT INTO ${qname(table.schema, table.name)} AS ${target}`;
  const rowType = `NULL::${qname(table.schema, table.name)}`;
  const sqlLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`;
  const cols = columns.map(ident).join(', ');
  let statement: string;
  if (columns.length === 0) {
    statement = `${into} SELECT FROM json_array_elements(${ctx.params.add(JSON.stringify(rows))}::text::json)`;
  } else if (req.prefs.missing === 'default') {
    // As the hosted service does it: every row starts from the defaults of the payload's
    // columns (each default evaluated per row, so sequences advance for every row), and
    // its own values replace them.
    const defaults = columns.flatMap((c) => {
      const d = table.columnMap.get(c)?.default;
      return d ? [`${sqlLiteral(c)}, ${d}`] : [];
    });
    const defs = columns.map((c) => `${ident(c)} ${table.columnMap.get(c)?.type ?? 'text'}`);
    const p = ctx.params.add(JSON.stringify(rows));
    statement = `${into} (${cols}) SELECT ${cols} FROM jsonb_to_recordset((SELECT jsonb_agg(jsonb_build_object(${defaults.join(', ')}) || pgrst_elem) FROM jsonb_array_elements(${p}::text::jsonb) AS pgrst_elem)) AS pgrst_body(${defs.join(', ')})`;
  } else {
    const p = ctx.params.add(JSON.stringify(rows));
    statement = `${into} (${cols}) SELECT ${cols} FROM json_populate_recordset(${rowType}, ${p}::text::json)`;
  }
  if (conflict) {
    const on = conflict.target.map(ident).join(', ');
    const updates = columns.map((c) => `${ident(c)} = EXCLUDED.${ident(c)}`);
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

/** POST (insert / upsert) and PUT (single-row upsert). */
export async function insert(rt: Runtime, req: RestRequest, table: Table): Promise<Response> {
  const parsed = parseQuery(req.pairs);
  const ctx = buildContext(rt, req, parsed);
  const body = parsePayload(req.contentType, req.bodyText);
  const { rows, columns } = payloadRows(body, parsed.columns);
  checkColumns(table, columns);
  let conflict: { target: string[]; merge: boolean } | null = null;
  const appliedExtra: string[] = [];
  if (req.method === 'PUT') {
    conflict = putConflict(parsed, table, rows);
  } else if (req.prefs.resolution) {
    const target = parsed.onConflict ?? table.primaryKey;
    if (parsed.onConflict) checkColumns(table, parsed.onConflict);
    if (target.length > 0) {
      conflict = { target, merge: req.prefs.resolution === 'merge-duplicates' };
      appliedExtra.push(`resolution=${req.prefs.resolution}`);
    }
  }
  const m = insertSql(ctx, req, table, rows, columns, conflict);
  const st = wrapMutation(rt, req, ctx, parsed, table, m);
  if (req.media.kind === 'plan') return explain(rt, req, st, false);
  const outcome = await execute(rt, req, st);
  const headers = baseHeaders(rt, req);
  setApplied(headers, applied(req, appliedExtra));
  headers.set('content-range', `*/${req.prefs.count ? outcome.pageTotal : '*'}`);
  let status = 201;
  if (!st.minimal && m.returningExtra.length) {
    const inserted = Number(outcome.row.inserted ?? 0);
    if (inserted === 0 && outcome.pageTotal > 0) status = 200;
  }
  if (req.method === 'PUT' && !st.minimal && status === 201 && m.returningExtra.length === 0)
    status = 200;
  if (req.prefs.return === 'headers-only' && !st.minimal) {
    const location = pkLocation(table, outcome.body);
    if (location) headers.set('location', location);
    return finish(req, outcome, status, headers, null);
  }
  if (st.minimal) return finish(req, outcome, req.method === 'PUT' ? 204 : status, headers, null);
  return finish(req, outcome, status, headers, bodyText(req, outcome));
}

function putConflict(
  parsed: ParsedQuery,
  table: Table,
  rows: Record<string, unknown>[],
): { target: string[]; merge: boolean } {
  const root = parsed.levels.get('');
  if (root && (root.limit !== null || root.offset !== null)) {
    throw new RestError(
      400,
      'PGRST114',
      'limit/offset querystring parameters are not allowed for PUT',
      null,
      null,
    );
  }
  const filters = root?.filters ?? [];
  const pk = table.primaryKey;
  const eqs = new Map<string, string>();
  for (const f of filters) {
    if (f.negate || f.operation.kind !== 'simple' || f.operation.op !== 'eq' || f.field.path.length)
      break;
    eqs.set(f.field.name, f.operation.value);
  }
  if (
    pk.length === 0 ||
    (root?.logic.length ?? 0) > 0 ||
    eqs.size !== filters.length ||
    eqs.size !== pk.length ||
    !pk.every((k) => eqs.has(k))
  ) {
    throw new RestError(
      405,
      'PGRST105',
      "Filters must include all and only primary key columns with 'eq' operators",
      null,
      null,
    );
  }
  const row = rows[0];
  if (rows.length !== 1 || !row || !pk.every((k) => k in row && String(row[k]) === eqs.get(k))) {
    throw new RestError(
      400,
      'PGRST115',
      'Payload values do not match URL in primary key column(s)',
      null,
      null,
    );
  }
  // The URL filters were turned into the conflict target.
  root?.filters.splice(0);
  return { target: pk, merge: true };
}

/** PATCH (update) and DELETE. */
export async function updateOrDelete(
  rt: Runtime,
  req: RestRequest,
  table: Table,
): Promise<Response> {
  const parsed = parseQuery(req.pairs);
  const ctx = buildContext(rt, req, parsed);
  const target = ident('pgrst_target');
  const name = qname(table.schema, table.name);
  const where =
    limitedWhere(ctx, parsed, table, target, name) ?? rootWhere(ctx, parsed, table, target);
  const whereSql = where.length ? ` WHERE ${where.join(' AND ')}` : '';
  let statement: string;
  if (req.method === 'DELETE') {
    statement = `DELETE FROM ${name} AS ${target}${whereSql}`;
  } else {
    const body = parsePayload(req.contentType, req.bodyText);
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new RestError(400, 'PGRST102', 'Empty or invalid json', null, null);
    const columns = parsed.columns ?? Object.keys(body);
    checkColumns(table, columns);
    if (columns.length === 0) {
      // Nothing to set: an update that matches no row.
      const first = table.columns.find((c) => !c.generated && c.identity !== 'a')?.name ?? '';
      statement = `UPDATE ${name} AS ${target} SET ${ident(first)} = ${target}.${ident(first)}${whereSql ? `${whereSql} AND FALSE` : ' WHERE FALSE'}`;
    } else {
      const p = ctx.params.add(JSON.stringify(body));
      const sets = columns.map((c) => `${ident(c)} = pgrst_body.${ident(c)}`).join(', ');
      statement = `UPDATE ${name} AS ${target} SET ${sets} FROM (SELECT * FROM json_populate_record(NULL::${name}, ${p}::text::json)) AS pgrst_body${whereSql}`;
    }
  }
  const st = wrapMutation(rt, req, ctx, parsed, table, { statement, returningExtra: [], target });
  if (req.media.kind === 'plan') return explain(rt, req, st, false);
  const outcome = await execute(rt, req, st);
  const headers = baseHeaders(rt, req);
  setApplied(headers, applied(req));
  const total = req.prefs.count ? outcome.pageTotal : null;
  headers.set(
    'content-range',
    req.method === 'PATCH' ? contentRange(0, outcome.pageTotal, total) : `*/${total ?? '*'}`,
  );
  if (st.minimal || req.prefs.return === 'headers-only')
    return finish(req, outcome, 204, headers, null);
  return finish(req, outcome, 200, headers, bodyText(req, outcome));
}
