import type { Transaction } from '../../db/index';
import {
  applyGucs,
  type Outcome,
  outcomeOf,
  type RestRequest,
  type Runtime,
  runInTransaction,
} from '../context';
import { RestError } from '../errors';

/** A built statement, ready to run. */
export interface Statement {
  sql: string;
  params: unknown[];
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Content-Type of a successful body for the negotiated media type. */
export function contentType(req: RestRequest): string {
  const m = req.media;
  if (m.kind === 'object')
    return `application/vnd.pgrst.object+json;${m.stripNulls ? ' nulls=stripped;' : ''} charset=utf-8`;
  if (m.kind === 'json' && m.stripNulls)
    return 'application/vnd.pgrst.array+json; nulls=stripped; charset=utf-8';
  if (m.kind === 'csv') return 'text/csv; charset=utf-8';
  return JSON_TYPE;
}

/** Base headers every REST response carries. */
export function baseHeaders(rt: Runtime, req: RestRequest): Headers {
  const headers = new Headers();
  if (req.profileHeader || rt.config.rest.schemas.length > 1)
    headers.set('content-profile', req.schema);
  return headers;
}

/** PGRST116 for a singular response that does not have exactly one row. */
export function checkSingular(req: RestRequest, outcome: Outcome): void {
  if (req.media.kind === 'object' && outcome.pageTotal !== 1) {
    throw new RestError(
      406,
      'PGRST116',
      'Cannot coerce the result to a single JSON object',
      `The result contains ${outcome.pageTotal} rows`,
      null,
    );
  }
}

/** Runs a statement and returns its single wrapped row. */
export async function runStatement(tx: Transaction, st: Statement): Promise<Outcome> {
  const { rows } = await tx.query(st.sql, st.params);
  return outcomeOf(rows[0]);
}

/** Body text in the negotiated format (built by the statement, CSV included). */
export function bodyText(_req: RestRequest, outcome: Outcome, _columns: string[] = []): string {
  return outcome.body;
}

/**
 * `EXPLAIN` of the statement (`Accept: application/vnd.pgrst.plan…`), always rolled back.
 */
export async function explain(
  rt: Runtime,
  req: RestRequest,
  st: Statement,
  readOnly: boolean,
): Promise<Response> {
  const m = req.media;
  if (m.kind !== 'plan') throw new Error('not a plan request');
  const opts = [
    `FORMAT ${m.format.toUpperCase()}`,
    ...m.options.map((o) => `${o.toUpperCase()} true`),
  ];
  const rows = await runInTransaction(
    rt,
    req,
    readOnly,
    async (tx) => (await tx.query(`EXPLAIN (${opts.join(', ')}) ${st.sql}`, st.params)).rows,
    true,
    // Query identifiers, as on the hosted database (pg_stat_statements computes them there).
    [
      {
        text: `select case when current_setting('is_superuser') = 'on' then set_config('compute_query_id', 'on', true) end`,
        params: [],
      },
    ],
  );
  const values = rows.map((r) => Object.values(r)[0]);
  const body =
    m.format === 'json'
      ? JSON.stringify(typeof values[0] === 'string' ? JSON.parse(values[0]) : values[0])
      : values.join('\n');
  const headers = baseHeaders(rt, req);
  headers.set(
    'content-type',
    `application/vnd.pgrst.plan+${m.format}; for="${m.for}"; charset=utf-8`,
  );
  return new Response(req.method === 'HEAD' ? null : body, { status: 200, headers });
}

/** Final Response: GUC overrides, HEAD without body. */
export function finish(
  req: RestRequest,
  outcome: Outcome | null,
  status: number,
  headers: Headers,
  body: string | null,
): Response {
  const finalStatus = outcome ? applyGucs(outcome, status, headers) : status;
  const empty = req.method === 'HEAD' || body === null || finalStatus === 204;
  if (!empty && !headers.has('content-type')) headers.set('content-type', contentType(req));
  return new Response(empty ? null : body, { status: finalStatus, headers });
}
