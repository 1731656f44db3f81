/** The schema cache: what the REST service knows about the exposed schemas. */

export interface Column {
  name: string;
  /** `format_type` text, e.g. `bigint`, `text[]`, `public.status`. */
  type: string;
  /** `format_type` without modifiers (what values are cast to). */
  baseType: string;
  /** The type's own name (`int8`, `_text`, `status`). */
  udt: string;
  /** `b` base, `e` enum, `c` composite, `d` domain, `r` range, `p` pseudo. */
  typtype: string;
  /** pg_type.typcategory (`A` arrays, `N` numeric, `S` string, …). */
  category: string;
  nullable: boolean;
  default: string | null;
  /** Identity `a` (always) / `d` (by default), or ''. */
  identity: string;
  /** Generated column (`s`) or ''. */
  generated: string;
  description: string | null;
  enumValues: string[] | null;
}

export interface Table {
  schema: string;
  name: string;
  /** r table, p partitioned, v view, m materialized view, f foreign table. */
  kind: string;
  insertable: boolean;
  updatable: boolean;
  deletable: boolean;
  description: string | null;
  columns: Column[];
  columnMap: Map<string, Column>;
  primaryKey: string[];
  /** Unique constraints (including the primary key), each a column list. */
  uniques: string[][];
}

export interface ForeignKey {
  name: string;
  schema: string;
  table: string;
  columns: string[];
  refSchema: string;
  refTable: string;
  refColumns: string[];
}

export interface FunctionArg {
  /** '' for an unnamed parameter. */
  name: string;
  /** The type as PostgREST names it (`integer`, `text`, `public.users`). */
  type: string;
  /** The type values are cast to (`character` and `bit` widened to their varying forms). */
  castType: string;
  hasDefault: boolean;
  variadic: boolean;
}

export interface DbFunction {
  schema: string;
  name: string;
  args: FunctionArg[];
  /** Columns of a TABLE / OUT-parameter result. */
  outColumns: { name: string; type: string; baseType: string }[];
  returnType: string;
  /** Return type's typtype (`c` composite, `p` pseudo: record/void, …). */
  returnTyptype: string;
  /** Schema-qualified table when the function returns a table's row type. */
  returnTable: { schema: string; name: string } | null;
  retset: boolean;
  volatility: 'i' | 's' | 'v';
  description: string | null;
  /**
   * Callable through /rpc: every parameter named, or a single unnamed one of type json,
   * jsonb, text, xml or bytea (others are left out of PostgREST's schema cache).
   */
  callable: boolean;
}

/**
 * A function of exactly one parameter whose type is a table's row type: a computed field
 * (`select=fn` on that table) and, when it returns rows of a table, a computed relationship.
 */
export interface ComputedFunction {
  schema: string;
  name: string;
  argSchema: string;
  argTable: string;
  /** `format_type` of the result. */
  returnType: string;
  /** The table whose rows it returns, if any. */
  returnTable: { schema: string; name: string } | null;
  retset: boolean;
  /** The planner's row estimate (`ROWS n`). */
  rows: number;
}

export interface EnumType {
  schema: string;
  name: string;
  values: string[];
}

export interface CompositeType {
  schema: string;
  name: string;
  attributes: { name: string; type: string }[];
}

export interface SchemaCache {
  schemas: string[];
  tables: Map<string, Table>;
  foreignKeys: ForeignKey[];
  functions: Map<string, DbFunction[]>;
  computed: ComputedFunction[];
  enums: EnumType[];
  composites: CompositeType[];
  /**
   * Row types from schemas that are not exposed which functions of exposed schemas return
   * (a composite type, or a table's row): known only for the columns of those functions' rows.
   */
  resultRowTypes: CompositeType[];
}

export const qualified = (schema: string, name: string) => `${schema}.${name}`;
