import { quoteIdent, quoteQualified } from '../../db/quote';
import type { SelectItem } from '../parse/ast';
import {
  isToOne,
  noRelationship,
  type Relationship,
  resolveRelationship,
} from '../schema/relations';
import type { BuildContext, buildLevel, LevelSource, LevelSql } from './read';
import { renderLevel } from './render';

/** What the parent level needs to know of one of its embeds. */
export interface EmbedInfo {
  /** The name the request uses for it: alias, else name. */
  key: string;
  /** The lateral join's alias, PostgREST's `<table>_<name>_<depth>`. */
  lateral: string;
  /** SQL: true when the embed has a row (for `embed=is.null` and `!inner`). */
  found: string;
  toOne: boolean;
  /** The embed's own output columns (what a related order may name). */
  outputs: string[];
}

const joinPath = (path: string, name: string) => (path ? `${path}.${name}` : name);

/** The embedded relation's FROM, as PostgREST names it: `<table>_<depth>`. */
function childSource(rel: Relationship, parent: LevelSource, depth: number): LevelSource {
  const target = rel.target;
  const table = quoteQualified(target.schema, target.name);
  if (rel.kind === 'm2m') {
    // Joined through its junction without an alias, as PostgREST does.
    return {
      from: table,
      alias: table,
      name: target.name,
      rowRef: `${quoteIdent(target.name)}::${table}`,
      table: target,
      columns: target.columns,
      depth,
    };
  }
  const name = `${target.name}_${depth}`;
  const from =
    rel.kind === 'computed'
      ? `${quoteQualified(rel.fn.schema, rel.fn.name)}(${parent.rowRef}) AS ${quoteIdent(name)}`
      : `${table} AS ${quoteIdent(name)}`;
  return {
    from,
    alias: quoteIdent(name),
    name,
    rowRef: `${quoteIdent(name)}::${table}`,
    table: target,
    columns: target.columns,
    depth,
  };
}

/** The condition joining an embedded relation to its parent's row. */
function joinCondition(rel: Relationship, parent: string, child: string): string[] {
  if (rel.kind === 'computed') return [];
  if (rel.kind === 'm2m') {
    const j = quoteIdent('pgrst_j');
    const conds = [
      ...rel.targetPairs.map(([jc, tc]) => `${j}.${quoteIdent(jc)} = ${child}.${quoteIdent(tc)}`),
      ...rel.sourcePairs.map(([pc, jc]) => `${j}.${quoteIdent(jc)} = ${parent}.${quoteIdent(pc)}`),
    ];
    const jt = quoteQualified(rel.junction.schema, rel.junction.name);
    return [`EXISTS (SELECT 1 FROM ${jt} AS ${j} WHERE ${conds.join(' AND ')})`];
  }
  return rel.pairs.map(([pc, tc]) => `${child}.${quoteIdent(tc)} = ${parent}.${quoteIdent(pc)}`);
}

/**
 * Adds an embed to its parent level: a LEFT JOIN LATERAL subquery giving the embedded rows
 * as JSON (an object for to-one, an array for to-many; jsonb, as PostgREST builds them, so
 * keys come in jsonb's order; built as jsonb directly rather than parsed from json), or
 * their columns for a spread.
 */
export function embed(
  ctx: BuildContext,
  source: LevelSource,
  out: LevelSql,
  item: Extract<SelectItem, { kind: 'embed' }>,
  path: string,
  add: (expr: string, name: string, grouped: boolean) => void,
  /** Builds the embedded level: `buildLevel` of read.ts, passed in by its caller. */
  build: typeof buildLevel,
): EmbedInfo {
  if (!source.table) {
    throw noRelationship(
      ctx.cache,
      ctx.cache.schemas[0] ?? 'public',
      source.name,
      item.name,
      item.hint,
    );
  }
  const rel = resolveRelationship(ctx.cache, source.table, item.name, item.hint);
  const depth = source.depth + 1;
  const child = childSource(rel, source, depth);
  const key = item.alias && ctx.levels.has(joinPath(path, item.alias)) ? item.alias : item.name;
  const childLevel = build(
    ctx,
    child,
    item.items,
    joinPath(path, key),
    joinCondition(rel, source.alias, child.alias),
  );
  if (item.alias) ctx.usedLevels.add(joinPath(path, item.alias));
  ctx.usedLevels.add(joinPath(path, item.name));
  const level = childLevel.level;
  const childSql = renderLevel(child.from, childLevel, level?.limit ?? null, level?.offset ?? null);
  const name = item.spread ? item.name : (item.alias ?? item.name);
  const lateralName = `${rel.table.name}_${name}_${depth}`;
  const lat = quoteIdent(lateralName);
  const e = quoteIdent('pgrst_e');
  const toOne = isToOne(rel);
  let inner: string;
  if (item.spread) {
    inner = toOne
      ? `SELECT ${e}.*, true AS pgrst_found FROM (${childSql}) AS ${e}`
      : `SELECT ${[
          ...childLevel.outputs.map(
            (o) => `coalesce(json_agg(${e}.${quoteIdent(o)}), '[]') AS ${quoteIdent(o)}`,
          ),
          'count(*) > 0 AS pgrst_found',
        ].join(', ')} FROM (${childSql}) AS ${e}`;
    for (const o of childLevel.outputs) add(`${lat}.${quoteIdent(o)}`, o, true);
  } else {
    inner = toOne
      ? `SELECT ${e}.*, to_jsonb(${e}) AS pgrst_body, true AS pgrst_found FROM (${childSql}) AS ${e}`
      : `SELECT coalesce(jsonb_agg(${e}), '[]') AS pgrst_body, count(*) > 0 AS pgrst_found FROM (${childSql}) AS ${e}`;
    if (item.items.length > 0) {
      out.select.push(`${lat}.pgrst_body AS ${quoteIdent(name)}`);
      out.outputs.push(name);
    }
  }
  out.joins.push(`LEFT JOIN LATERAL (${inner}) AS ${lat} ON TRUE`);
  const found = `${lat}.pgrst_found`;
  if (item.join === 'inner') out.where.push(`${found} IS TRUE`);
  return {
    key: item.alias ?? item.name,
    lateral: lateralName,
    found,
    toOne,
    outputs: childLevel.outputs,
  };
}
