import type { RestRequest } from '../context';
import { RestError } from '../errors';
import { parsePayload, payloadRows } from '../http/payload';
import type { ParsedQuery } from '../parse/ast';
import { parseQuery } from '../parse/query';
import type { Table } from '../schema/types';
import { rowsShape } from './shape';
import type { Conflict, InsertPlan, MutatePlan, Returning } from './types';

const unknownColumn = (table: Table, column: string) =>
  new RestError(
    400,
    'PGRST204',
    `Could not find the '${column}' column of '${table.name}' in the schema cache`,
    null,
    null,
  );

/** PGRST204 for a column the table does not have. */
export function checkColumns(table: Table, columns: string[]): void {
  for (const c of columns) if (!table.columnMap.has(c)) throw unknownColumn(table, c);
}

/** `Prefer: return=…` for this table and method (see {@link Returning}). */
function returningOf(req: RestRequest, table: Table): Returning {
  const ret = req.prefs.return ?? 'minimal';
  if (ret === 'representation') return 'rows';
  const keys = ret === 'headers-only' && req.method === 'POST' && table.primaryKey.length > 0;
  return keys ? 'keys' : 'none';
}

/**
 * PUT: the filters must be `eq` on all and only the primary key columns (PGRST105), without
 * limit/offset (PGRST114), and the one row must carry the same key (PGRST115). The filters
 * become the conflict target, so the query goes on without them.
 */
function putConflict(
  parsed: ParsedQuery,
  table: Table,
  rows: Record<string, unknown>[],
): { conflict: Conflict; query: ParsedQuery } {
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
    !root ||
    pk.length === 0 ||
    root.logic.length > 0 ||
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
  const levels = new Map(parsed.levels).set('', { ...root, filters: [] });
  return { conflict: { target: pk, merge: true }, query: { ...parsed, levels } };
}

/**
 * POST (insert / upsert) and PUT: the query string (PGRST100), the body (PGRST102), its
 * columns (PGRST204), then PUT's key filters or `Prefer: resolution` with `on_conflict`.
 */
export function planInsert(req: RestRequest, table: Table): InsertPlan {
  let query = parseQuery(req.pairs);
  const body = parsePayload(req.contentType, req.bodyText);
  const { rows, columns } = payloadRows(body, query.columns);
  checkColumns(table, columns);
  let conflict: Conflict | null = null;
  const appliedExtra: string[] = [];
  if (req.method === 'PUT') {
    ({ conflict, query } = putConflict(query, table, rows));
  } else if (req.prefs.resolution) {
    const target = query.onConflict ?? table.primaryKey;
    if (query.onConflict) checkColumns(table, query.onConflict);
    if (target.length > 0) {
      conflict = { target, merge: req.prefs.resolution === 'merge-duplicates' };
      appliedExtra.push(`resolution=${req.prefs.resolution}`);
    }
  }
  return {
    kind: 'insert',
    table,
    query,
    rows,
    columns,
    conflict,
    appliedExtra,
    returning: returningOf(req, table),
    body: rowsShape(req.media),
  };
}

/** PATCH and DELETE: the query string (PGRST100); a PATCH body is read as the SQL is built. */
export function planMutate(req: RestRequest, table: Table): MutatePlan {
  return {
    kind: req.method === 'DELETE' ? 'delete' : 'update',
    table,
    query: parseQuery(req.pairs),
    returning: returningOf(req, table),
    body: rowsShape(req.media),
  };
}
