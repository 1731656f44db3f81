import { RestError } from '../errors';
import { fuzzyMatches } from './fuzzy';
import type { ComputedFunction, ForeignKey, SchemaCache, Table } from './types';
import { qualified } from './types';

export type Cardinality = 'many-to-one' | 'one-to-many' | 'one-to-one' | 'many-to-many';

interface Base {
  /** The table the relationship starts from (the parent of an embed). */
  table: Table;
  target: Table;
  isSelf: boolean;
}

/** A relationship through one foreign key (either direction). */
export interface FkRelationship extends Base {
  kind: 'fk';
  cardinality: 'many-to-one' | 'one-to-many' | 'one-to-one';
  constraint: string;
  /** [column of `table`, column of `target`] pairs. */
  pairs: [string, string][];
}

/** Many-to-many through a junction table whose primary key holds both foreign keys. */
export interface M2mRelationship extends Base {
  kind: 'm2m';
  cardinality: 'many-to-many';
  junction: Table;
  constraint1: string;
  constraint2: string;
  /** [column of `table`, junction column] */
  sourcePairs: [string, string][];
  /** [junction column, column of `target`] */
  targetPairs: [string, string][];
}

/** A function taking a row of `table` and returning rows of `target`. */
export interface ComputedRelationship extends Base {
  kind: 'computed';
  fn: ComputedFunction;
  toOne: boolean;
}

export type Relationship = FkRelationship | M2mRelationship | ComputedRelationship;

export const isToOne = (r: Relationship) =>
  r.kind === 'computed'
    ? r.toOne
    : r.cardinality === 'many-to-one' || r.cardinality === 'one-to-one';

const isView = (t: Table) => t.kind === 'v' || t.kind === 'm';
const sameSet = (a: string[], b: string[]) =>
  a.length === b.length && a.every((x) => b.includes(x));
const zip = (a: string[], b: string[]): [string, string][] => a.map((x, i) => [x, b[i] as string]);

const CARDINALITY_ORDER = ['one-to-many', 'many-to-one', 'one-to-one', 'many-to-many'];

/** The order PostgREST lists candidates in (its Relationship ordering). */
function compare(a: Relationship, b: Relationship): number {
  const key = (r: Relationship) => [
    r.kind === 'computed' ? 1 : 0,
    r.target.schema,
    r.target.name,
    r.isSelf ? 1 : 0,
    CARDINALITY_ORDER.indexOf(r.kind === 'computed' ? '' : r.cardinality),
    r.kind === 'fk' ? r.constraint : r.kind === 'm2m' ? `${r.junction.name}\0${r.constraint1}` : '',
    r.kind === 'fk' ? JSON.stringify(r.pairs) : '',
  ];
  const ka = key(a);
  const kb = key(b);
  for (let i = 0; i < ka.length; i++) {
    const x = ka[i] as string | number;
    const y = kb[i] as string | number;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}

function fkRelationships(cache: SchemaCache, fk: ForeignKey): FkRelationship[] {
  const table = cache.tables.get(qualified(fk.schema, fk.table));
  const target = cache.tables.get(qualified(fk.refSchema, fk.refTable));
  if (!table || !target) return [];
  const oneToOne = table.uniques.some((u) => sameSet(u, fk.columns));
  const isSelf = table === target;
  return [
    {
      kind: 'fk',
      table,
      target,
      isSelf,
      cardinality: oneToOne ? 'one-to-one' : 'many-to-one',
      constraint: fk.name,
      pairs: zip(fk.columns, fk.refColumns),
    },
    {
      kind: 'fk',
      table: target,
      target: table,
      isSelf,
      cardinality: oneToOne ? 'one-to-one' : 'one-to-many',
      constraint: fk.name,
      pairs: zip(fk.refColumns, fk.columns),
    },
  ];
}

function m2mRelationships(cache: SchemaCache, source: Table): M2mRelationship[] {
  const out: M2mRelationship[] = [];
  for (const toSource of cache.foreignKeys) {
    if (toSource.refSchema !== source.schema || toSource.refTable !== source.name) continue;
    const junction = cache.tables.get(qualified(toSource.schema, toSource.table));
    if (!junction || junction.uniques.some((u) => sameSet(u, toSource.columns))) continue;
    for (const toTarget of cache.foreignKeys) {
      if (toTarget.name === toSource.name) continue;
      if (toTarget.schema !== junction.schema || toTarget.table !== junction.name) continue;
      if (junction.uniques.some((u) => sameSet(u, toTarget.columns))) continue;
      const used = [...toSource.columns, ...toTarget.columns];
      if (!used.every((c) => junction.primaryKey.includes(c))) continue;
      const target = cache.tables.get(qualified(toTarget.refSchema, toTarget.refTable));
      if (!target) continue;
      out.push({
        kind: 'm2m',
        table: source,
        target,
        isSelf: source === target,
        cardinality: 'many-to-many',
        junction,
        constraint1: toSource.name,
        constraint2: toTarget.name,
        sourcePairs: zip(toSource.refColumns, toSource.columns),
        targetPairs: zip(toTarget.columns, toTarget.refColumns),
      });
    }
  }
  return out;
}

const bySource = new WeakMap<SchemaCache, Map<Table, Relationship[]>>();

/**
 * Every relationship from `source` to a table of the same schema, PostgREST's way: both
 * directions of each foreign key (one-to-one when its columns are unique), many-to-many
 * through junctions, and computed relationships (functions taking a row of `source` and
 * returning rows of a table), which replace the foreign key ones to a table of their name.
 */
export function relationshipsOf(cache: SchemaCache, source: Table): Relationship[] {
  let memo = bySource.get(cache);
  if (!memo) {
    memo = new Map();
    bySource.set(cache, memo);
  }
  const hit = memo.get(source);
  if (hit) return hit;
  const computed: ComputedRelationship[] = [];
  for (const fn of cache.computed) {
    if (fn.argSchema !== source.schema || fn.argTable !== source.name || !fn.returnTable) continue;
    const target = cache.tables.get(qualified(fn.returnTable.schema, fn.returnTable.name));
    if (!target) continue;
    computed.push({
      kind: 'computed',
      table: source,
      target,
      isSelf: target === source,
      fn,
      toOne: !fn.retset || fn.rows === 1,
    });
  }
  const overridden = new Set(computed.map((c) => qualified(c.fn.schema, c.fn.name)));
  const all: Relationship[] = [
    ...cache.foreignKeys
      .flatMap((fk) => fkRelationships(cache, fk))
      .filter((r) => r.table === source),
    ...m2mRelationships(cache, source),
  ].filter((r) => !overridden.has(qualified(r.target.schema, r.target.name)));
  const result = [...all, ...computed]
    .filter((r) => r.target.schema === source.schema)
    .sort(compare);
  memo.set(source, result);
  return result;
}

const singleColumn = (r: Relationship, side: 0 | 1, name: string) =>
  r.kind === 'fk' && r.pairs.length === 1 && r.pairs[0]?.[side] === name;

/** PostgREST's matching of an embed `target[!hint]` against one relationship. */
function matches(r: Relationship, target: string, hint: string | null): boolean {
  if (r.kind === 'computed') return r.fn.name === target;
  const toTable = r.target.name === target;
  if (r.isSelf) {
    // One foreign key, two directions: the table name means the children (one-to-many),
    // the column name the parent (many-to-one); a hint names the children's column.
    if (hint === null) {
      return (
        (toTable && r.cardinality === 'one-to-many') ||
        (singleColumn(r, 0, target) && r.cardinality === 'many-to-one')
      );
    }
    return toTable && r.cardinality === 'one-to-many' && singleColumn(r, 1, hint);
  }
  if (hint === null) {
    return (
      toTable ||
      (r.kind === 'fk' && r.constraint === target && !isView(r.target)) ||
      (singleColumn(r, 0, target) && !isView(r.target))
    );
  }
  return (
    toTable &&
    ((r.kind === 'fk' && r.constraint === hint) ||
      singleColumn(r, 0, hint) ||
      singleColumn(r, 1, hint) ||
      (r.kind === 'm2m' && r.junction.name === hint))
  );
}

const columnList = (columns: string[]) => `(${columns.join(', ')})`;

function describe(r: Relationship): Record<string, string> {
  if (r.kind === 'm2m') {
    return {
      cardinality: 'many-to-many',
      embedding: `${r.table.name} with ${r.target.name}`,
      relationship: `${r.junction.name} using ${r.constraint1}${columnList(
        r.sourcePairs.map((p) => p[1]),
      )} and ${r.constraint2}${columnList(r.targetPairs.map((p) => p[0]))}`,
    };
  }
  if (r.kind === 'computed') return {};
  return {
    cardinality: r.cardinality,
    embedding: `${r.table.name} with ${r.target.name}`,
    relationship: `${r.constraint} using ${r.table.name}${columnList(
      r.pairs.map((p) => p[0]),
    )} and ${r.target.name}${columnList(r.pairs.map((p) => p[1]))}`,
  };
}

const hintName = (r: Relationship) =>
  r.kind === 'm2m' ? r.junction.name : r.kind === 'fk' ? r.constraint : '';

/** PGRST200's hint: a close table name for an unknown parent, else a close child name. */
function noRelationHint(cache: SchemaCache, parent: string, child: string, schema: string) {
  const source = cache.tables.get(qualified(schema, parent));
  if (!source) {
    const parents = [...cache.tables.values()]
      .filter((t) => t.schema === schema && relationshipsOf(cache, t).length > 0)
      .map((t) => t.name);
    const guess = fuzzyMatches(parents, parent)[0];
    return guess ? `Perhaps you meant '${guess.value}' instead of '${parent}'.` : null;
  }
  const children = relationshipsOf(cache, source).map((r) => r.target.name);
  const guess = fuzzyMatches(children, child).find((m) => m.score < 1);
  return guess ? `Perhaps you meant '${guess.value}' instead of '${child}'.` : null;
}

/** The PGRST200 error for `parent` and `child`. */
export function noRelationship(
  cache: SchemaCache,
  schema: string,
  parent: string,
  child: string,
  hint: string | null,
): RestError {
  return new RestError(
    400,
    'PGRST200',
    `Could not find a relationship between '${parent}' and '${child}' in the schema cache`,
    `Searched for a foreign key relationship between '${parent}' and '${child}'${hint !== null ? ` using the hint '${hint}'` : ''} in the schema '${schema}', but no matches were found.`,
    noRelationHint(cache, parent, child, schema),
  );
}

/**
 * Finds the relationship `name[!hint]` from `source` (PGRST200 when there is none,
 * PGRST201 when several match). `origin` is the parent's name as the request calls it.
 */
export function resolveRelationship(
  cache: SchemaCache,
  source: Table,
  name: string,
  hint: string | null,
  origin: string = source.name,
): Relationship {
  const candidates = relationshipsOf(cache, source).filter((r) => matches(r, name, hint));
  if (candidates.length === 1) return candidates[0] as Relationship;
  if (candidates.length === 0) throw noRelationship(cache, source.schema, origin, name, hint);
  const names = candidates.map((r) => `'${r.target.name}!${hintName(r)}'`);
  throw new RestError(
    300,
    'PGRST201',
    `Could not embed because more than one relationship was found for '${origin}' and '${name}'`,
    candidates.map(describe),
    `Try changing '${name}' to one of the following: ${names.join(', ')}. Find the desired relationship in the 'details' key.`,
  );
}
