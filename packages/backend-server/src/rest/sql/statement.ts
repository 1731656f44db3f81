/** The one statement of a request: rows → response body text, plus counts and GUCs. */

export type BodyShape = 'array' | 'object' | 'scalar' | 'scalars' | 'none';

export interface StatementParts {
  /** `name AS (…)` CTEs. */
  ctes: string[];
  /** The SELECT producing the response rows (or the scalar column `pgrst_scalar`). */
  rows: string;
  /** A `SELECT count(*) …` for the total, or null. */
  count: string | null;
  shape: BodyShape;
  stripNulls: boolean;
  /** Extra output columns (`expr AS name`). */
  extra?: string[];
}

/**
 * `WITH … SELECT total, page_total, body, response_headers, response_status FROM (rows)`.
 * The body is built by Postgres (json_agg / to_json), like the hosted REST service.
 */
export function wrapStatement(p: StatementParts): string {
  const agg = p.stripNulls ? 'json_strip_nulls(json_agg(pgrst_t))' : 'json_agg(pgrst_t)';
  let body: string;
  switch (p.shape) {
    case 'array':
      body = `coalesce(${agg}, '[]')::text`;
      break;
    case 'object':
      body = `coalesce((${agg}->0)::text, '')`;
      break;
    case 'scalar':
      body = `coalesce((json_agg(pgrst_t.pgrst_scalar)->0)::text, 'null')`;
      break;
    case 'scalars':
      body = `coalesce(json_agg(pgrst_t.pgrst_scalar), '[]')::text`;
      break;
    case 'none':
      body = `''`;
      break;
  }
  const cols = [
    `${p.count ? `(${p.count})` : 'NULL'}::bigint AS total`,
    'count(*) AS page_total',
    `${body} AS body`,
    `nullif(current_setting('response.headers', true), '') AS response_headers`,
    `nullif(current_setting('response.status', true), '') AS response_status`,
    ...(p.extra ?? []),
  ];
  const with_ = p.ctes.length ? `WITH ${p.ctes.join(', ')} ` : '';
  return `${with_}SELECT ${cols.join(', ')} FROM (${p.rows}) AS pgrst_t`;
}
