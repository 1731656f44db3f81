/** The parsed request (query string, select, filters) before any SQL: a pure AST. */

/** One step of a JSON path: `->key` (json) or `->>key` (text); numeric keys index arrays. */
export interface JsonStep {
  arrow: '->' | '->>';
  key: string;
}

/** A column, optionally followed by a JSON path. */
export interface Field {
  name: string;
  path: JsonStep[];
}

export type AggregateName = 'count' | 'sum' | 'avg' | 'min' | 'max';

export type SelectItem =
  | { kind: 'star' }
  | {
      kind: 'column';
      field: Field;
      alias: string | null;
      cast: string | null;
      aggregate: AggregateName | null;
      aggregateCast: string | null;
    }
  /** `count()` over the rows (no column). */
  | { kind: 'count'; alias: string | null; cast: string | null }
  | {
      kind: 'embed';
      name: string;
      alias: string | null;
      hint: string | null;
      join: 'inner' | 'left' | null;
      spread: boolean;
      items: SelectItem[];
    };

export const SIMPLE_OPS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'like',
  'ilike',
  'match',
  'imatch',
  'isdistinct',
  'cs',
  'cd',
  'ov',
  'sl',
  'sr',
  'nxr',
  'nxl',
  'adj',
] as const;
export type SimpleOp = (typeof SIMPLE_OPS)[number];
export const QUANTIFIABLE: ReadonlySet<string> = new Set([
  'eq',
  'gt',
  'gte',
  'lt',
  'lte',
  'like',
  'ilike',
  'match',
  'imatch',
]);
export const FTS_OPS = ['fts', 'plfts', 'phfts', 'wfts'] as const;
export type FtsOp = (typeof FTS_OPS)[number];

export type Operation =
  | { kind: 'simple'; op: SimpleOp; quantifier: 'any' | 'all' | null; value: string }
  | { kind: 'in'; values: string[] }
  | { kind: 'is'; value: 'null' | 'not_null' | 'true' | 'false' | 'unknown' }
  | { kind: 'fts'; op: FtsOp; config: string | null; value: string };

export interface Filter {
  kind: 'filter';
  field: Field;
  negate: boolean;
  operation: Operation;
}

export interface LogicTree {
  kind: 'logic';
  op: 'and' | 'or';
  negate: boolean;
  children: (LogicTree | Filter)[];
}

export interface OrderTerm {
  /** Set for `rel(col)` ordering on a to-one relation. */
  relation: string | null;
  field: Field;
  direction: 'asc' | 'desc' | null;
  nulls: 'first' | 'last' | null;
}

/** Filters, logic, order and paging of one level (the root, or an embed path). */
export interface Level {
  filters: Filter[];
  logic: LogicTree[];
  order: OrderTerm[] | null;
  limit: number | null;
  offset: number | null;
}

/** Everything in a query string, keyed by embed path ('' is the root, 'a.b' nested). */
export interface ParsedQuery {
  select: SelectItem[] | null;
  columns: string[] | null;
  onConflict: string[] | null;
  levels: Map<string, Level>;
  /** Parameters that are not reserved and have no operator (rpc GET arguments). */
  rawArgs: [string, string][];
}

export const emptyLevel = (): Level => ({
  filters: [],
  logic: [],
  order: null,
  limit: null,
  offset: null,
});
