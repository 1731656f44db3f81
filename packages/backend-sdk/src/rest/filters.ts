/**
 * Types of the filter methods of the REST builder (the runtime is one table in
 * filter-methods.ts). Columns are checked against the row type; embedded (`rel.col`) and
 * JSON (`col->>key`) paths are accepted as strings.
 */

/** A column of `Row`, or an embedded / JSON path. */
export type Column<Row> =
  | (string & keyof Row)
  | `${string}.${string}`
  | `${string}->${string}`
  | (string extends keyof Row ? string : never);

/** The value type of a column (unknown for paths). */
export type ValueOf<Row, C> = C extends keyof Row ? Row[C] : unknown;

/** Filter operators of the PostgREST grammar. */
export type FilterOperator =
  | 'eq'
  | 'neq'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'like'
  | 'ilike'
  | 'is'
  | 'isdistinct'
  | 'in'
  | 'cs'
  | 'cd'
  | 'sl'
  | 'sr'
  | 'nxl'
  | 'nxr'
  | 'adj'
  | 'ov'
  | 'fts'
  | 'plfts'
  | 'phfts'
  | 'wfts'
  | 'match'
  | 'imatch'
  | (string & {});

/** Full-text search options. */
export interface TextSearchOptions {
  /** Text search configuration, e.g. `english`. */
  config?: string;
  /** `plain` → plainto_tsquery, `phrase` → phraseto_tsquery, `websearch` → websearch_to_tsquery. */
  type?: 'plain' | 'phrase' | 'websearch';
}

/** The filter methods every REST builder has; each returns a new builder. */
export interface Filters<Row> {
  /** `column = value` */
  eq<C extends Column<Row>>(column: C, value: NonNullable<ValueOf<Row, C>>): this;
  /** `column <> value` */
  neq<C extends Column<Row>>(column: C, value: ValueOf<Row, C>): this;
  /** `column > value` */
  gt<C extends Column<Row>>(column: C, value: ValueOf<Row, C>): this;
  /** `column >= value` */
  gte<C extends Column<Row>>(column: C, value: ValueOf<Row, C>): this;
  /** `column < value` */
  lt<C extends Column<Row>>(column: C, value: ValueOf<Row, C>): this;
  /** `column <= value` */
  lte<C extends Column<Row>>(column: C, value: ValueOf<Row, C>): this;
  /** `column LIKE pattern` (`%` or `*` as wildcard) */
  like<C extends Column<Row>>(column: C, pattern: string): this;
  /** `column ILIKE pattern` */
  ilike<C extends Column<Row>>(column: C, pattern: string): this;
  /** LIKE all of the patterns */
  likeAllOf<C extends Column<Row>>(column: C, patterns: readonly string[]): this;
  /** LIKE any of the patterns */
  likeAnyOf<C extends Column<Row>>(column: C, patterns: readonly string[]): this;
  /** ILIKE all of the patterns */
  ilikeAllOf<C extends Column<Row>>(column: C, patterns: readonly string[]): this;
  /** ILIKE any of the patterns */
  ilikeAnyOf<C extends Column<Row>>(column: C, patterns: readonly string[]): this;
  /** `column ~ pattern` (POSIX regex) */
  regexMatch<C extends Column<Row>>(column: C, pattern: string): this;
  /** `column ~* pattern` */
  regexIMatch<C extends Column<Row>>(column: C, pattern: string): this;
  /** `column IS value` (null, true, false) */
  is<C extends Column<Row>>(column: C, value: boolean | null): this;
  /** `column IS DISTINCT FROM value` */
  isDistinct<C extends Column<Row>>(column: C, value: ValueOf<Row, C>): this;
  /** `column IN (values)`; values are quoted as needed and deduplicated */
  in<C extends Column<Row>>(column: C, values: readonly ValueOf<Row, C>[]): this;
  /** `column NOT IN (values)` */
  notIn<C extends Column<Row>>(column: C, values: readonly ValueOf<Row, C>[]): this;
  /** `column @> value` (array, range literal string, or JSON object) */
  contains<C extends Column<Row>>(
    column: C,
    value: string | readonly unknown[] | Record<string, unknown>,
  ): this;
  /** `column <@ value` */
  containedBy<C extends Column<Row>>(
    column: C,
    value: string | readonly unknown[] | Record<string, unknown>,
  ): this;
  /** `column && value` */
  overlaps<C extends Column<Row>>(column: C, value: string | readonly unknown[]): this;
  /** range strictly right of `range` (`sr`) */
  rangeGt<C extends Column<Row>>(column: C, range: string): this;
  /** range not extending left of `range` (`nxl`) */
  rangeGte<C extends Column<Row>>(column: C, range: string): this;
  /** range strictly left of `range` (`sl`) */
  rangeLt<C extends Column<Row>>(column: C, range: string): this;
  /** range not extending right of `range` (`nxr`) */
  rangeLte<C extends Column<Row>>(column: C, range: string): this;
  /** range adjacent to `range` (`adj`) */
  rangeAdjacent<C extends Column<Row>>(column: C, range: string): this;
  /** full-text search */
  textSearch<C extends Column<Row>>(column: C, query: string, options?: TextSearchOptions): this;
  /** `eq` on every key of `query` */
  match(query: { [K in keyof Row]?: Row[K] } | Record<string, unknown>): this;
  /** negates an operator: `column=not.operator.value` */
  not<C extends Column<Row>>(column: C, operator: FilterOperator, value: unknown): this;
  /** a logic tree, e.g. `'age.lt.18,name.eq.x'` (raw PostgREST syntax) */
  or(filters: string, options?: { referencedTable?: string }): this;
}
