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
import type { ReadPlan, RowRange, RowsShape } from '../plan/types';
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
export interface RowsRead {
  ctx: BuildContext;
  query: ParsedQuery;
  source: LevelSource;
  ctes: string[];
  range: RowRange | null;
  body: RowsShape;
  /** `Prefer: handling=strict, max-affected=n` of an rpc: PGRST124 beyond n rows. */
  maxAffected: number | null;
}

/** Builds the read statement (and the count-less one for planned counts). */
export function readStatement(
  rt: Runtime,
  req: RestRequest,
  read: RowsRead,
): {
  main: Statement;
  countless: string;
  offset: number;
  columns: string[];
  maxAffected: number | null;
} {
  const { ctx, query, source } = read;
  const level = buildLevel(ctx, source, query.select ?? [{ kind: 'star' }], '');
  checkLevelsUsed(ctx);
  const { offset, limit } = pageOf(read.range, query.levels.get(''), rt.settings().maxRows);
  const rows = renderLevel(source.from, level, limit, offset);
  const wantsExact = req.prefs.count === 'exact' || req.prefs.count === 'estimated';
  const count = wantsExact ? renderCount(source.from, level) : null;
  const sql = wrapStatement({ ctes: read.ctes, rows, count, ...read.body });
  const with_ = read.ctes.length ? `WITH ${read.ctes.join(', ')} ` : '';
  return {
    main: { sql, params: ctx.params.values },
    countless: `${with_}${renderLevel(source.from, level, null, null)}`,
    columns: level.outputs,
    offset,
    maxAffected: read.maxAffected,
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

/** Runs a read and answers with the rows, Content-Range and the 200/206/416 status. */
export function runRead(
  rt: Runtime,
  req: RestRequest,
  read: RowsRead,
  readOnly: boolean,
  extraHeaders: Record<string, string> = {},
): Promise<Response> {
  return runBuilt(rt, req, readStatement(rt, req, read), readOnly, extraHeaders);
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
 * Built table reads by plan: a plan is shared by identical requests (plan/read.ts), and so
 * is its statement, whose values are bind parameters (RLS decides who sees what).
 */
const built = new WeakMap<ReadPlan, BuiltRead>();

function buildTableRead(rt: Runtime, req: RestRequest, plan: ReadPlan): BuiltRead {
  const hit = built.get(plan);
  if (hit) return hit;
  const ctx = buildContext(rt, req, plan.query);
  const st = readStatement(rt, req, {
    ctx,
    query: plan.query,
    source: sourceFor(ctx, plan.table),
    ctes: [],
    range: plan.range,
    body: plan.body,
    maxAffected: null,
  });
  built.set(plan, st);
  return st;
}

/** Executes a GET / HEAD on a table or view. */
export function executeRead(rt: Runtime, req: RestRequest, plan: ReadPlan): Promise<Response> {
  return runBuilt(rt, req, buildTableRead(rt, req, plan), true, {
    'content-location': plan.location,
  });
}
