import { quoteIdent } from '../../db/quote';
import { RestError } from '../errors';
import type { ParsedQuery } from '../parse/ast';
import type { Table } from '../schema/types';
import { fieldSql, filterSql, logicSql, type Scope } from './filters';
import type { BuildContext } from './read';

/** WHERE of a mutation from the root filters and logic trees. */
export function rootWhere(
  ctx: BuildContext,
  parsed: ParsedQuery,
  table: Table,
  alias: string,
): string[] {
  const level = parsed.levels.get('');
  if (!level) return [];
  const scope: Scope = { alias, name: table.name, columns: table.columnMap, embeds: new Map() };
  return [
    ...level.filters.map((f) => filterSql(scope, f, ctx.params)),
    ...level.logic.map((t) => logicSql(scope, t, ctx.params)),
  ];
}

/**
 * `limit`/`offset` (with `order`) on PATCH/DELETE: the target rows are picked by key in a
 * subquery with the filters, order and paging; null when the request is not limited.
 */
export function limitedWhere(
  ctx: BuildContext,
  parsed: ParsedQuery,
  table: Table,
  target: string,
  name: string,
): string[] | null {
  const root = parsed.levels.get('');
  if (!root || (root.limit === null && root.offset === null)) return null;
  const inner = quoteIdent('pgrst_limited');
  const key =
    table.primaryKey.length > 0
      ? table.primaryKey.map(quoteIdent)
      : table.kind === 'r'
        ? ['ctid']
        : [];
  if (key.length === 0) {
    throw new RestError(
      400,
      'PGRST127',
      'Feature not implemented',
      'limit/offset on PATCH/DELETE needs a table or a view with a primary key',
      null,
    );
  }
  const scope: Scope = {
    alias: inner,
    name: table.name,
    columns: table.columnMap,
    embeds: new Map(),
  };
  const conds = [
    ...root.filters.map((f) => filterSql(scope, f, ctx.params)),
    ...root.logic.map((t) => logicSql(scope, t, ctx.params)),
  ];
  const order = (root.order ?? []).map((o) => {
    if (o.relation)
      throw new RestError(
        400,
        'PGRST118',
        `A related order on '${o.relation}' is not possible`,
        null,
        null,
      );
    return `${fieldSql(scope, o.field)}${o.direction ? ` ${o.direction.toUpperCase()}` : ''}${o.nulls ? ` NULLS ${o.nulls.toUpperCase()}` : ''}`;
  });
  let sub = `SELECT ${key.map((k) => `${inner}.${k}`).join(', ')} FROM ${name} AS ${inner}`;
  if (conds.length) sub += ` WHERE ${conds.join(' AND ')}`;
  if (order.length) sub += ` ORDER BY ${order.join(', ')}`;
  if (root.limit !== null) sub += ` LIMIT ${root.limit}`;
  if (root.offset) sub += ` OFFSET ${root.offset}`;
  const lhs =
    key.length === 1 ? `${target}.${key[0]}` : `(${key.map((k) => `${target}.${k}`).join(', ')})`;
  return [`${lhs} IN (${sub})`];
}
