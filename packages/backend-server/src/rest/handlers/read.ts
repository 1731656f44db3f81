import { readAsRequest, type Transaction } from '../../db/index';
import {
  buildContext,
  checkLevelsUsed,
  contentRange,
  type Outcome,
  outcomeOf,
  pageOf,
  type RestRequest,
  type Runtime,
  rangeError,
  requestContext,
  rollsBack,
  runInTransaction,
  timezoneStatements,
} from '../context';
import { RestError } from '../errors';
import type { ParsedQuery } from '../parse/ast';
import { parseQuery } from '../parse/query';
import type { SchemaCache, Table } from '../schema/types';
import { type BuildContext, buildLevel, type LevelSource, sourceFor } from '../sql/read';
import { renderCount, renderLevel } from '../sql/render';
import { wrapStatement } from '../sql/statement';
import {
  baseHeaders,
  bodyText,
  checkSingular,
  explain,
  finish,
  runStatement,
  type Statement,
} from './respond';

/** A read of rows from some source (a table, or a set-returning function's CTE). */
export interface ReadPlan {
  ctx: BuildContext;
  parsed: ParsedQuery;
  source: LevelSource;
  ctes: string[];
  /** Rows of a function returning one composite: `null` for no row, never PGRST116. */
  singleRow?: boolean;
  /** `Prefer: handling=strict, max-affected=n` of an rpc: PGRST124 beyond n rows. */
  maxAffected?: number | null;
}

/** Builds the read statement (and the count-less one for planned counts). */
export function readStatement(
  rt: Runtime,
  req: RestRequest,
  plan: ReadPlan,
): {
  main: Statement;
  countless: string;
  offset: number;
  columns: string[];
  maxAffected: number | null;
} {
  const { ctx, parsed, source } = plan;
  const level = buildLevel(ctx, source, parsed.select ?? [{ kind: 'star' }], '');
  checkLevelsUsed(ctx);
  const { offset, limit } = pageOf(req, parsed.levels.get(''), rt.settings().maxRows);
  const rows = renderLevel(source.from, level, limit, offset);
  const wantsExact = req.prefs.count === 'exact' || req.prefs.count === 'estimated';
  const count = wantsExact ? renderCount(source.from, level) : null;
  const shape =
    req.media.kind === 'csv'
      ? 'csv'
      : req.media.kind === 'object'
        ? 'object'
        : plan.singleRow
          ? 'single'
          : 'array';
  const stripNulls =
    (req.media.kind === 'json' || req.media.kind === 'object') && req.media.stripNulls;
  const sql = wrapStatement({ ctes: plan.ctes, rows, count, shape, stripNulls });
  const with_ = plan.ctes.length ? `WITH ${plan.ctes.join(', ')} ` : '';
  return {
    main: { sql, params: ctx.params.values },
    countless: `${with_}${renderLevel(source.from, level, null, null)}`,
    columns: level.outputs,
    offset,
    maxAffected: plan.maxAffected ?? null,
  };
}

async function plannedRows(tx: Transaction, sql: string, params: unknown[]): Promise<number> {
  const { rows } = await tx.query(`EXPLAIN (FORMAT JSON) ${sql}`, params);
  const raw = Object.values(rows[0] ?? {})[0];
  const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as {
    Plan: { 'Plan Rows': number };
  }[];
  return Number(plan[0]?.Plan['Plan Rows'] ?? 0);
}

/**
 * A read whose transaction ends the same way whatever the statement returns can go in one
 * round trip (settings, statement and COMMIT together). Not when a planned count needs
 * EXPLAIN first, nor for a singular response, whose row-count check rolls back.
 */
function oneRoundTrip(req: RestRequest, readOnly: boolean): boolean {
  const count = req.prefs.count;
  return readOnly && count !== 'planned' && count !== 'estimated' && req.media.kind !== 'object';
}

async function readOnce(rt: Runtime, req: RestRequest, st: Statement): Promise<Outcome> {
  const results = await readAsRequest(
    rt.db,
    requestContext(rt, req),
    [...timezoneStatements(req), { text: st.sql, params: st.params }],
    { rollback: rollsBack(rt, req) },
  );
  return outcomeOf(results[results.length - 1]?.rows[0]);
}

type BuiltRead = ReturnType<typeof readStatement>;

/** PGRST124 when more rows than `Prefer: max-affected` allows came back. */
export function checkMaxAffected(max: number | null, outcome: Outcome): void {
  if (max !== null && outcome.pageTotal > max) {
    throw new RestError(
      400,
      'PGRST124',
      'Query result exceeds max-affected preference constraint',
      `The query affects ${outcome.pageTotal} rows`,
      null,
    );
  }
}

/** Runs a read plan and answers with the rows, Content-Range and the 200/206/416 status. */
export function runRead(
  rt: Runtime,
  req: RestRequest,
  plan: ReadPlan,
  readOnly: boolean,
  extraHeaders: Record<string, string> = {},
): Promise<Response> {
  return runBuilt(rt, req, readStatement(rt, req, plan), readOnly, extraHeaders);
}

async function runBuilt(
  rt: Runtime,
  req: RestRequest,
  st: BuiltRead,
  readOnly: boolean,
  extraHeaders: Record<string, string>,
): Promise<Response> {
  if (req.media.kind === 'plan') return explain(rt, req, st.main, readOnly);
  const outcome: Outcome = oneRoundTrip(req, readOnly)
    ? await readOnce(rt, req, st.main)
    : await runInTransaction(rt, req, readOnly, async (tx) => {
        let planned: number | null = null;
        if (req.prefs.count === 'planned' || req.prefs.count === 'estimated') {
          planned = await plannedRows(tx, st.countless, st.main.params);
        }
        const out = await runStatement(tx, st.main);
        if (req.prefs.count === 'planned') out.total = planned;
        if (req.prefs.count === 'estimated' && planned !== null && planned > rt.settings().maxRows)
          out.total = Math.max(planned, out.total ?? 0);
        checkSingular(req, out);
        checkMaxAffected(st.maxAffected, out);
        return out;
      });
  if (oneRoundTrip(req, readOnly)) checkMaxAffected(st.maxAffected, outcome);
  const headers = baseHeaders(rt, req);
  for (const [k, v] of Object.entries(extraHeaders)) headers.set(k, v);
  headers.set('content-range', contentRange(st.offset, outcome.pageTotal, outcome.total));
  let status = 200;
  if (outcome.total !== null && req.prefs.count) {
    if (st.offset > outcome.total && outcome.total >= 0 && req.prefs.count === 'exact') {
      throw rangeError(
        `An offset of ${st.offset} was requested, but there are only ${outcome.total} rows.`,
      );
    }
    if (outcome.pageTotal < outcome.total) status = 206;
  }
  return finish(req, outcome, status, headers, bodyText(req, outcome, st.columns));
}

/**
 * Built table reads by everything their SQL depends on, per schema cache (a reload starts
 * afresh): identical requests skip parsing and building. Values stay bind parameters, and
 * who asks is not part of the SQL (RLS decides in Postgres), so requests may share them.
 */
const built = new WeakMap<SchemaCache, Map<string, BuiltRead>>();
const BUILT_MAX = 500;

function buildTableRead(rt: Runtime, req: RestRequest, table: Table): BuiltRead {
  const cache = rt.cache();
  const key = [
    req.method,
    table.schema,
    table.name,
    req.search,
    req.prefs.count ?? '',
    JSON.stringify(req.media),
    req.rangeHeader ?? '',
  ].join('\0');
  let byKey = built.get(cache);
  const hit = byKey?.get(key);
  if (hit) return hit;
  const parsed = parseQuery(req.pairs);
  const ctx = buildContext(rt, req, parsed);
  const st = readStatement(rt, req, { ctx, parsed, source: sourceFor(ctx, table), ctes: [] });
  if (!byKey || byKey.size >= BUILT_MAX) {
    byKey = new Map();
    built.set(cache, byKey);
  }
  byKey.set(key, st);
  return st;
}

/** GET / HEAD on a table or view. */
export function readTable(rt: Runtime, req: RestRequest, table: Table): Promise<Response> {
  const location = `/${table.name}${req.search ? `?${req.search.replace(/^\?/, '')}` : ''}`;
  return runBuilt(rt, req, buildTableRead(rt, req, table), true, {
    'content-location': location,
  });
}
