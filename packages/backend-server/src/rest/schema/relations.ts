import { RestError } from '../errors';
import type { ForeignKey, SchemaCache, Table } from './types';
import { qualified } from './types';

export type Cardinality = 'many-to-one' | 'one-to-many' | 'one-to-one' | 'many-to-many';

/** How an embedded resource joins its parent. */
export interface Relationship {
  cardinality: Cardinality;
  target: Table;
  fk: ForeignKey;
  /** [parent column, target column] pairs (direct relationships). */
  pairs: [string, string][];
  /** Many-to-many through a junction table. */
  junction: {
    table: Table;
    /** [parent column, junction column] */
    sourcePairs: [string, string][];
    /** [junction column, target column] */
    targetPairs: [string, string][];
    targetFk: ForeignKey;
  } | null;
}

export const isToOne = (r: Relationship) =>
  r.cardinality === 'many-to-one' || r.cardinality === 'one-to-one';

const zip = (a: string[], b: string[]): [string, string][] => a.map((x, i) => [x, b[i] as string]);

const sameSet = (a: string[], b: string[]) =>
  a.length === b.length && a.every((x) => b.includes(x));

function isUnique(table: Table, columns: string[]): boolean {
  return table.uniques.some((u) => sameSet(u, columns));
}

function allRelationships(cache: SchemaCache, source: Table): Relationship[] {
  const out: Relationship[] = [];
  const table = (schema: string, name: string) => cache.tables.get(qualified(schema, name));
  for (const fk of cache.foreignKeys) {
    if (fk.schema === source.schema && fk.table === source.name) {
      const target = table(fk.refSchema, fk.refTable);
      if (target)
        out.push({
          cardinality: 'many-to-one',
          target,
          fk,
          pairs: zip(fk.columns, fk.refColumns),
          junction: null,
        });
    }
    if (fk.refSchema === source.schema && fk.refTable === source.name) {
      const target = table(fk.schema, fk.table);
      if (target)
        out.push({
          cardinality: isUnique(target, fk.columns) ? 'one-to-one' : 'one-to-many',
          target,
          fk,
          pairs: zip(fk.refColumns, fk.columns),
          junction: null,
        });
    }
  }
  // Many-to-many: a junction with a FK to the source and one to the target, both part of its PK.
  for (const toSource of cache.foreignKeys) {
    if (toSource.refSchema !== source.schema || toSource.refTable !== source.name) continue;
    const junction = table(toSource.schema, toSource.table);
    if (!junction || junction.primaryKey.length === 0) continue;
    if (!toSource.columns.every((c) => junction.primaryKey.includes(c))) continue;
    for (const toTarget of cache.foreignKeys) {
      if (toTarget === toSource) continue;
      if (toTarget.schema !== junction.schema || toTarget.table !== junction.name) continue;
      if (!toTarget.columns.every((c) => junction.primaryKey.includes(c))) continue;
      const target = table(toTarget.refSchema, toTarget.refTable);
      if (!target) continue;
      out.push({
        cardinality: 'many-to-many',
        target,
        fk: toSource,
        pairs: [],
        junction: {
          table: junction,
          sourcePairs: zip(toSource.refColumns, toSource.columns),
          targetPairs: zip(toTarget.columns, toTarget.refColumns),
          targetFk: toTarget,
        },
      });
    }
  }
  return out;
}

function matchesHint(r: Relationship, hint: string): boolean {
  if (r.fk.name === hint) return true;
  if (r.junction) {
    return (
      r.junction.table.name === hint ||
      r.junction.targetFk.name === hint ||
      r.junction.sourcePairs.some(([, j]) => j === hint) ||
      r.junction.targetPairs.some(([j]) => j === hint)
    );
  }
  return r.pairs.some(([a, b]) => a === hint || b === hint);
}

function describe(source: Table, r: Relationship): Record<string, string> {
  const cols = (t: Table, c: string[]) => `${t.schema}.${t.name}(${c.join(', ')})`;
  const relationship = r.junction
    ? `${cols(
        source,
        r.junction.sourcePairs.map((p) => p[0]),
      )} and ${cols(
        r.target,
        r.junction.targetPairs.map((p) => p[1]),
      )} using ${r.junction.table.schema}.${r.junction.table.name}`
    : `${r.fk.name} using ${cols(
        source,
        r.pairs.map((p) => p[0]),
      )} and ${cols(
        r.target,
        r.pairs.map((p) => p[1]),
      )}`;
  return {
    cardinality: r.cardinality,
    embedding: `${source.name} with ${r.target.name}`,
    relationship,
  };
}

/**
 * Finds the relationship `name[!hint]` from `source`: a table/view name, or a foreign key
 * constraint / column name. PGRST200 when there is none, PGRST201 when ambiguous.
 */
export function resolveRelationship(
  cache: SchemaCache,
  source: Table,
  name: string,
  hint: string | null,
): Relationship {
  const all = allRelationships(cache, source);
  let candidates = all.filter((r) => r.target.name === name);
  if (candidates.length === 0) {
    // `rel` may be a FK name or the FK column of a many-to-one.
    candidates = all.filter(
      (r) =>
        !r.junction &&
        (r.fk.name === name ||
          (r.cardinality === 'many-to-one' && r.pairs.length === 1 && r.pairs[0]?.[0] === name)),
    );
  }
  if (hint !== null) candidates = candidates.filter((r) => matchesHint(r, hint));
  if (candidates.length > 1) {
    // A direct relationship wins over many-to-many through the same tables; a self
    // reference with a column hint means the many-to-one side.
    const direct = candidates.filter((r) => !r.junction);
    if (direct.length === 1) candidates = direct;
    else if (hint !== null) {
      const m2o = direct.filter(
        (r) => r.cardinality === 'many-to-one' && r.pairs.some(([a]) => a === hint),
      );
      if (m2o.length === 1) candidates = m2o;
    }
  }
  if (candidates.length === 1) return candidates[0] as Relationship;
  if (candidates.length === 0) {
    throw new RestError(
      400,
      'PGRST200',
      `Could not find a relationship between '${source.name}' and '${name}' in the schema cache`,
      `Searched for a foreign key relationship between '${source.name}' and '${name}'${hint ? ` using the hint '${hint}'` : ''} in the schema '${source.schema}', but no matches were found.`,
      null,
    );
  }
  const names = candidates.map(
    (r) => `'${name}!${r.junction ? r.junction.table.name : r.fk.name}'`,
  );
  throw new RestError(
    300,
    'PGRST201',
    `Could not embed because more than one relationship was found for '${source.name}' and '${name}'`,
    candidates.map((r) => describe(source, r)),
    `Try changing '${name}' to one of the following: ${names.join(', ')}. Find the desired relationship in the 'details' key.`,
  );
}
