/**
 * The filter methods of the REST builder, generated from one table (they differ only by
 * operator); their types are in filters.ts.
 */
import { arrayLiteral, type FilterValue, inList } from './values';

/** What the filter methods use of a builder (its `param` is protected). */
interface Builder {
  filter(column: string, operator: string, value: unknown): Builder;
  param(key: string, value: string): Builder;
}

type Impl = (this: Builder, column: string, value: never, options?: never) => Builder;

/** Adds the filter methods to the builder's prototype. */
export function addFilterMethods(proto: Record<string, Impl>): void {
  const simple: Record<string, string> = {
    eq: 'eq',
    neq: 'neq',
    gt: 'gt',
    gte: 'gte',
    lt: 'lt',
    lte: 'lte',
    like: 'like',
    ilike: 'ilike',
    is: 'is',
    isDistinct: 'isdistinct',
    regexMatch: 'match',
    regexIMatch: 'imatch',
    rangeGt: 'sr',
    rangeGte: 'nxl',
    rangeLt: 'sl',
    rangeLte: 'nxr',
    rangeAdjacent: 'adj',
  };
  for (const [name, op] of Object.entries(simple))
    proto[name] = function (column, value) {
      return this.filter(column, op, value);
    };
  for (const [name, op] of Object.entries({
    likeAllOf: 'like(all)',
    likeAnyOf: 'like(any)',
    ilikeAllOf: 'ilike(all)',
    ilikeAnyOf: 'ilike(any)',
  }))
    proto[name] = function (column, patterns: string[]) {
      return this.filter(column, op, `{${patterns.join(',')}}`);
    };
  for (const [name, op] of Object.entries({ in: 'in', notIn: 'not.in' }))
    proto[name] = function (column, values: FilterValue[]) {
      return this.filter(column, op, inList([...new Set(values)]));
    };
  for (const [name, op] of Object.entries({ contains: 'cs', containedBy: 'cd', overlaps: 'ov' }))
    proto[name] = function (column, value: unknown) {
      return this.filter(
        column,
        op,
        typeof value === 'string'
          ? value
          : Array.isArray(value)
            ? arrayLiteral(value)
            : JSON.stringify(value),
      );
    };
  proto.textSearch = function (column, query, options: { config?: string; type?: string } = {}) {
    const type = { plain: 'pl', phrase: 'ph', websearch: 'w' }[options.type ?? ''] ?? '';
    return this.filter(column, `${type}fts${options.config ? `(${options.config})` : ''}`, query);
  };
  proto.match = function (this: Builder, query: Record<string, unknown>) {
    let next = this;
    for (const [column, value] of Object.entries(query))
      if (value !== undefined) next = next.filter(column, 'eq', value);
    return next;
  } as unknown as Impl;
  proto.not = function (column, operator: string, value: unknown) {
    return this.filter(column, `not.${operator}`, value);
  } as Impl;
  proto.or = function (this: Builder, filters: string, options: { referencedTable?: string } = {}) {
    const key = options.referencedTable ? `${options.referencedTable}.or` : 'or';
    return this.param(key, `(${filters})`);
  } as unknown as Impl;
}
