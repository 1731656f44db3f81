/** The one statement of a request: rows → response body text, plus counts and GUCs. */

/**
 * `array`: JSON array of the rows; `object`: the first row or ''; `single`: the first row or
 * null (a function returning one composite); `scalar` / `scalars`: a function's plain value
 * or values; `csv`: CSV text; `none`: no body.
 */
export type BodyShape = 'array' | 'object' | 'single' | 'scalar' | 'scalars' | 'csv' | 'none';

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
    case 'single':
      body = `coalesce((${agg}->0)::text, 'null')`;
      break;
    case 'csv':
      // A header of the first row's column names, then each row's record text without
      // its parentheses (Postgres' own quoting), as the hosted service builds CSV.
      body = `(SELECT coalesce(string_agg(k, ','), '') FROM (SELECT json_object_keys(row_to_json(h)) AS k FROM (SELECT * FROM pgrst_csv_rows LIMIT 1) AS h) AS pgrst_keys) || E'\\n' || coalesce(string_agg(substring(pgrst_t::text, 2, length(pgrst_t::text) - 2), E'\\n'), '')`;
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
  if (p.shape === 'csv') {
    const ctes = [...p.ctes, `pgrst_csv_rows AS (${p.rows})`];
    return `WITH ${ctes.join(', ')} SELECT ${cols.join(', ')} FROM pgrst_csv_rows AS pgrst_t`;
  }
  const with_ = p.ctes.length ? `WITH ${p.ctes.join(', ')} ` : '';
  return `${with_}SELECT ${cols.join(', ')} FROM (${p.rows}) AS pgrst_t`;
}
