import { RestError } from '../errors';
import type { Level, OrderTerm, SelectItem } from '../parse/ast';
import { outputName } from '../parse/cursor';
import { isToOne, type Relationship, resolveRelationship } from '../schema/relations';
import type { SchemaCache, Table } from '../schema/types';
import { fieldSql, filterSql, logicSql, type Scope } from './filters';
import { ident, type Params, qname } from './params';

/** Shared state while one request's SQL is built. */
export interface BuildContext {
  cache: SchemaCache;
  params: Params;
  levels: Map<string, Level>;
  aggregatesEnabled: boolean;
  /** Level keys that matched an embed (others are PGRST108). */
  usedLevels: Set<string>;
  counter: number;
}

/** The relation a level reads from. */
export interface LevelSource {
  /** SQL after FROM, e.g. `"public"."t" AS "pgrst_1"`. */
  from: string;
  alias: string;
  name: string;
  table: Table | null;
  columns: { name: string; type: string; baseType: string }[];
}

/** The pieces of one level's SELECT. */
export interface LevelSql {
  select: string[];
  outputs: string[];
  joins: string[];
  where: string[];
  groupBy: string[];
  orderBy: string[];
  level: Level | undefined;
}

export const sourceFor = (ctx: BuildContext, table: Table): LevelSource => {
  const alias = ident(`pgrst_${++ctx.counter}`);
  return {
    from: `${qname(table.schema, table.name)} AS ${alias}`,
    alias,
    name: table.name,
    table,
    columns: table.columns,
  };
};

const joinPath = (path: string, name: string) => (path ? `${path}.${name}` : name);

/** The join condition of an embed between the parent alias and the child alias. */
function joinCondition(rel: Relationship, parent: string, child: string): string[] {
  if (rel.junction) {
    const j = ident('pgrst_j');
    const conds = [
      ...rel.junction.targetPairs.map(([jc, tc]) => `${j}.${ident(jc)} = ${child}.${ident(tc)}`),
      ...rel.junction.sourcePairs.map(([pc, jc]) => `${j}.${ident(jc)} = ${parent}.${ident(pc)}`),
    ];
    const jt = qname(rel.junction.table.schema, rel.junction.table.name);
    return [`EXISTS (SELECT 1 FROM ${jt} AS ${j} WHERE ${conds.join(' AND ')})`];
  }
  return rel.pairs.map(([pc, tc]) => `${child}.${ident(tc)} = ${parent}.${ident(pc)}`);
}

function orderSql(ctx: BuildContext, scope: Scope, source: LevelSource, terms: OrderTerm[]) {
  return terms.map((t) => {
    let expr: string;
    if (t.relation) {
      if (!source.table) throw noRelation(source.name, t.relation);
      const rel = resolveRelationship(ctx.cache, source.table, t.relation, null);
      if (!isToOne(rel)) {
        throw new RestError(
          400,
          'PGRST118',
          `A related order on '${t.relation}' is not possible`,
          `'${source.name}' and '${t.relation}' do not form a many-to-one or one-to-one relationship`,
        );
      }
      const inner = ident(`pgrst_${++ctx.counter}`);
      const childScope: Scope = {
        alias: inner,
        name: rel.target.name,
        columns: rel.target.columnMap,
        embeds: new Map(),
      };
      const col = fieldSql(childScope, t.field);
      const cond = joinCondition(rel, source.alias, inner).join(' AND ');
      expr = `(SELECT ${col} FROM ${qname(rel.target.schema, rel.target.name)} AS ${inner} WHERE ${cond} LIMIT 1)`;
    } else {
      expr = fieldSql(scope, t.field);
    }
    const dir = t.direction ? ` ${t.direction.toUpperCase()}` : '';
    const nulls = t.nulls ? ` NULLS ${t.nulls.toUpperCase()}` : '';
    return `${expr}${dir}${nulls}`;
  });
}

const noRelation = (a: string, b: string) =>
  new RestError(
    400,
    'PGRST200',
    `Could not find a relationship between '${a}' and '${b}' in the schema cache`,
    `Searched for a foreign key relationship between '${a}' and '${b}' in the schema cache, but no matches were found.`,
  );

/**
 * Builds one level: the select list (columns, casts, JSON paths, aggregates, embeds as
 * LEFT JOIN LATERAL subqueries, spreads), its filters, logic trees and order.
 */
export function buildLevel(
  ctx: BuildContext,
  source: LevelSource,
  items: SelectItem[],
  path: string,
  extraWhere: string[] = [],
): LevelSql {
  const columnMap = new Map(source.columns.map((c) => [c.name, c]));
  const scope: Scope = {
    alias: source.alias,
    name: source.name,
    columns: columnMap,
    embeds: new Map(),
  };
  const out: LevelSql = {
    select: [],
    outputs: [],
    joins: [],
    where: [...extraWhere],
    groupBy: [],
    orderBy: [],
    level: ctx.levels.get(path),
  };
  if (path) ctx.usedLevels.add(path);
  const plain: string[] = [];
  let hasAggregate = false;
  const add = (expr: string, name: string, grouped: boolean) => {
    out.select.push(`${expr} AS ${ident(name)}`);
    out.outputs.push(name);
    if (grouped) plain.push(expr);
  };
  for (const item of items) {
    if (item.kind === 'star') {
      for (const c of source.columns) add(`${source.alias}.${ident(c.name)}`, c.name, true);
    } else if (item.kind === 'count') {
      if (!ctx.aggregatesEnabled) throw aggregatesDisabled();
      hasAggregate = true;
      const expr = `count(*)${item.cast ? `::${item.cast}` : ''}`;
      add(expr, item.alias ?? 'count', false);
    } else if (item.kind === 'column') {
      if (
        item.field.name === 'count' &&
        item.field.path.length === 0 &&
        !item.aggregate &&
        !columnMap.has('count')
      ) {
        // The legacy bare `count`.
        hasAggregate = true;
        add('count(*)', item.alias ?? 'count', false);
        continue;
      }
      let expr = fieldSql(scope, item.field);
      if (item.cast) expr = `(${expr})::${item.cast}`;
      if (item.aggregate) {
        if (!ctx.aggregatesEnabled) throw aggregatesDisabled();
        hasAggregate = true;
        expr = `${item.aggregate}(${expr})`;
        if (item.aggregateCast) expr = `(${expr})::${item.aggregateCast}`;
        add(expr, item.alias ?? item.aggregate, false);
      } else {
        add(expr, outputName(item.field, item.alias), true);
      }
    } else {
      embed(ctx, source, scope, out, item, path, add);
    }
  }
  if (hasAggregate) out.groupBy = plain;
  const level = out.level;
  if (level) {
    for (const f of level.filters) out.where.push(filterSql(scope, f, ctx.params));
    for (const t of level.logic) out.where.push(logicSql(scope, t, ctx.params));
    if (level.order) out.orderBy = orderSql(ctx, scope, source, level.order);
  }
  return out;
}

const aggregatesDisabled = () =>
  new RestError(400, 'PGRST123', 'Use of aggregate functions is not allowed', null, null);

function embed(
  ctx: BuildContext,
  source: LevelSource,
  scope: Scope,
  out: LevelSql,
  item: Extract<SelectItem, { kind: 'embed' }>,
  path: string,
  add: (expr: string, name: string, grouped: boolean) => void,
) {
  if (!source.table) throw noRelation(source.name, item.name);
  const rel = resolveRelationship(ctx.cache, source.table, item.name, item.hint);
  const childSource = sourceFor(ctx, rel.target);
  const key = item.alias && ctx.levels.has(joinPath(path, item.alias)) ? item.alias : item.name;
  const childPath = joinPath(path, key);
  const child = buildLevel(
    ctx,
    childSource,
    item.items,
    childPath,
    joinCondition(rel, source.alias, childSource.alias),
  );
  if (item.alias) ctx.usedLevels.add(joinPath(path, item.alias));
  ctx.usedLevels.add(joinPath(path, item.name));
  const level = child.level;
  const childSql = renderLevel(
    childSource.from,
    child,
    level?.limit ?? null,
    level?.offset ?? null,
  );
  const e = ident(`pgrst_${++ctx.counter}`);
  const lat = ident(`pgrst_${++ctx.counter}`);
  const toOne = isToOne(rel);
  let inner: string;
  if (item.spread) {
    inner = toOne
      ? `SELECT ${e}.*, true AS pgrst_found FROM (${childSql}) AS ${e}`
      : `SELECT ${[
          ...child.outputs.map((o) => `coalesce(json_agg(${e}.${ident(o)}), '[]') AS ${ident(o)}`),
          'count(*) > 0 AS pgrst_found',
        ].join(', ')} FROM (${childSql}) AS ${e}`;
    for (const o of child.outputs) add(`${lat}.${ident(o)}`, o, true);
  } else {
    inner = toOne
      ? `SELECT row_to_json(${e}) AS body, true AS pgrst_found FROM (${childSql}) AS ${e}`
      : `SELECT coalesce(json_agg(${e}), '[]') AS body, count(*) > 0 AS pgrst_found FROM (${childSql}) AS ${e}`;
    if (item.items.length > 0) {
      out.select.push(`${lat}.body AS ${ident(item.alias ?? item.name)}`);
      out.outputs.push(item.alias ?? item.name);
    }
  }
  out.joins.push(`LEFT JOIN LATERAL (${inner}) AS ${lat} ON TRUE`);
  const found = `${lat}.pgrst_found`;
  if (item.join === 'inner') out.where.push(`${found} IS TRUE`);
  scope.embeds.set(item.name, { found });
  if (item.alias) scope.embeds.set(item.alias, { found });
}

/** `SELECT … FROM … [joins] [WHERE] [GROUP BY] [ORDER BY] [LIMIT] [OFFSET]` */
export function renderLevel(
  from: string,
  level: LevelSql,
  limit: number | null,
  offset: number | null,
): string {
  let sql = `SELECT ${level.select.join(', ')} FROM ${from}`;
  if (level.joins.length) sql += ` ${level.joins.join(' ')}`;
  if (level.where.length) sql += ` WHERE ${level.where.join(' AND ')}`;
  if (level.groupBy.length) sql += ` GROUP BY ${level.groupBy.join(', ')}`;
  if (level.orderBy.length) sql += ` ORDER BY ${level.orderBy.join(', ')}`;
  if (limit !== null) sql += ` LIMIT ${limit}`;
  if (offset !== null && offset > 0) sql += ` OFFSET ${offset}`;
  return sql;
}

/** Count query of a level: same FROM, joins and WHERE, no select list, order or paging. */
export function renderCount(from: string, level: LevelSql): string {
  let sql = `SELECT 1 FROM ${from}`;
  if (level.joins.length) sql += ` ${level.joins.join(' ')}`;
  if (level.where.length) sql += ` WHERE ${level.where.join(' AND ')}`;
  if (level.groupBy.length) sql += ` GROUP BY ${level.groupBy.join(', ')}`;
  return `SELECT count(*) FROM (${sql}) AS pgrst_count`;
}

/** PGRST108 for filters/order on embeds that are not in `select`. */
export function checkLevelsUsed(ctx: BuildContext): void {
  for (const key of ctx.levels.keys()) {
    if (key === '' || ctx.usedLevels.has(key)) continue;
    const name = key.split('.').pop() as string;
    throw new RestError(
      400,
      'PGRST108',
      `'${name}' is not an embedded resource in this request`,
      null,
      `Verify that '${name}' is included in the 'select' query parameter.`,
    );
  }
}
