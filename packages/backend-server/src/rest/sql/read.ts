import { quoteIdent, quoteLiteral, quoteQualified } from '../../db/quote';
import { RestError } from '../errors';
import type { Level, OrderTerm, SelectItem } from '../parse/ast';
import { outputName } from '../parse/cursor';
import type { SchemaCache, Table } from '../schema/types';
import { type EmbedInfo, embed } from './embed';
import { fieldSql, filterSql, logicSql, type Scope, unknownColumn } from './filters';
import type { Params } from './params';

/** Shared state while one request's SQL is built. */
export interface BuildContext {
  cache: SchemaCache;
  params: Params;
  levels: Map<string, Level>;
  aggregatesEnabled: boolean;
  /** Level keys that matched an embed (others are PGRST108). */
  usedLevels: Set<string>;
  counter: number;
  /** Schemas whose functions a row's computed fields may be (the request's search path). */
  searchPath: string[];
}

/**
 * The relation a level reads from, named the way PostgREST names it, so that errors read
 * the same: the root table as itself (`users`), a CTE root (rpc, mutations) under its
 * table's name, an embedded table as `name_depth` (`messages_1`).
 */
export interface LevelSource {
  /** SQL after FROM, e.g. `"public"."users"` or `"public"."users" AS "users_1"`. */
  from: string;
  /** How columns are qualified, e.g. `"public"."users"` or `"users_1"`. */
  alias: string;
  /** The name in error messages and relationship lookups. */
  name: string;
  /** The whole row, typed (the argument of computed fields and relationships). */
  rowRef: string;
  table: Table | null;
  columns: { name: string; type: string; baseType: string }[];
  depth: number;
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

/** A table read at the root: `FROM "schema"."table"`, as PostgREST does. */
export function sourceFor(_ctx: BuildContext, table: Table): LevelSource {
  const name = quoteQualified(table.schema, table.name);
  return {
    from: name,
    alias: name,
    name: table.name,
    rowRef: `${quoteIdent(table.name)}::${name}`,
    table,
    columns: table.columns,
    depth: 0,
  };
}

/** A CTE (`pgrst_source`) read at the root under `name` (its table's or type's name). */
export function cteSource(
  name: string,
  table: Table | null,
  columns: LevelSource['columns'],
): LevelSource {
  return {
    from: `pgrst_source AS ${quoteIdent(name)}`,
    alias: quoteIdent(name),
    name,
    rowRef: table
      ? `${quoteIdent(name)}::${quoteQualified(table.schema, table.name)}`
      : quoteIdent(name),
    table,
    columns,
    depth: 0,
  };
}

/** A row's computed fields: functions of one parameter of its table's row type. */
function computedFields(ctx: BuildContext, source: LevelSource): Scope['computed'] {
  const table = source.table;
  const out = new Map<string, { sql: string; type: string }>();
  if (!table) return out;
  for (const fn of ctx.cache.computed) {
    if (fn.argSchema !== table.schema || fn.argTable !== table.name) continue;
    if (!ctx.searchPath.includes(fn.schema) || out.has(fn.name)) continue;
    out.set(fn.name, {
      sql: `${quoteQualified(fn.schema, fn.name)}(${source.rowRef})`,
      type: fn.returnType,
    });
  }
  return out;
}

function orderSql(scope: Scope, source: LevelSource, terms: OrderTerm[], embeds: EmbedInfo[]) {
  return terms.map((t) => {
    let expr: string;
    if (t.relation) {
      // A related order names an embedded to-one resource and one of its columns.
      const found = embeds.find((e) => e.key === t.relation);
      if (!found) throw notEmbedded(t.relation);
      if (!found.toOne) {
        throw new RestError(
          400,
          'PGRST118',
          `A related order on '${t.relation}' is not possible`,
          `'${source.name}' and '${t.relation}' do not form a many-to-one or one-to-one relationship`,
        );
      }
      if (!found.outputs.includes(t.field.name)) throw unknownColumn(found.lateral, t.field.name);
      expr = `${quoteIdent(found.lateral)}.${quoteIdent(t.field.name)}`;
      for (const step of t.field.path) expr += `${step.arrow}${quoteLiteral(step.key)}`;
    } else {
      expr = fieldSql(scope, t.field);
    }
    const dir = t.direction ? ` ${t.direction.toUpperCase()}` : '';
    const nulls = t.nulls ? ` NULLS ${t.nulls.toUpperCase()}` : '';
    return `${expr}${dir}${nulls}`;
  });
}

const notEmbedded = (name: string) =>
  new RestError(
    400,
    'PGRST108',
    `'${name}' is not an embedded resource in this request`,
    null,
    `Verify that '${name}' is included in the 'select' query parameter.`,
  );

/**
 * Builds one level: the select list (columns, computed fields, casts, JSON paths,
 * aggregates, embeds as LEFT JOIN LATERAL subqueries, spreads), its filters, logic trees
 * and order.
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
    computed: computedFields(ctx, source),
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
  const embeds: EmbedInfo[] = [];
  let hasAggregate = false;
  const add = (expr: string, name: string, grouped: boolean) => {
    out.select.push(`${expr} AS ${quoteIdent(name)}`);
    out.outputs.push(name);
    if (grouped) plain.push(expr);
  };
  for (const item of items) {
    if (item.kind === 'star') {
      for (const c of source.columns) add(`${source.alias}.${quoteIdent(c.name)}`, c.name, true);
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
      const info = embed(ctx, source, out, item, path, add, buildLevel);
      if (embeds.some((e) => e.lateral === info.lateral)) {
        throw new RestError(400, '42712', `table name "${info.lateral}" specified more than once`);
      }
      embeds.push(info);
      scope.embeds.set(item.name, { found: info.found });
      if (item.alias) scope.embeds.set(item.alias, { found: info.found });
    }
  }
  if (hasAggregate) out.groupBy = plain;
  const level = out.level;
  if (level) {
    for (const f of level.filters) out.where.push(filterSql(scope, f, ctx.params));
    for (const t of level.logic) out.where.push(logicSql(scope, t, ctx.params));
    if (level.order) out.orderBy = orderSql(scope, source, level.order, embeds);
  }
  return out;
}

const aggregatesDisabled = () =>
  new RestError(400, 'PGRST123', 'Use of aggregate functions is not allowed', null, null);

/** PGRST108 for filters/order on embeds that are not in `select`. */
export function checkLevelsUsed(ctx: BuildContext): void {
  for (const key of ctx.levels.keys()) {
    if (key === '' || ctx.usedLevels.has(key)) continue;
    throw notEmbedded(key.split('.').pop() as string);
  }
}
