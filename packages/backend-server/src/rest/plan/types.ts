/**
 * The plan of one REST request: what the query string, the headers and the route ask for,
 * parsed and checked against the schema cache before any SQL is built (PostgREST's
 * ApiRequest → plan → query). Handlers only execute a plan: build its SQL, run it, shape
 * the response.
 */
import type { ParsedQuery } from '../parse/ast';
import type { DbFunction, Table } from '../schema/types';
import type { LevelSource } from '../sql/read';
import type { BodyShape } from '../sql/statement';

/** A `Range: from-to` header of a GET (`to` is Infinity for `from-`). */
export interface RowRange {
  from: number;
  to: number;
}

/** How returned rows become the body: the statement's shape and `nulls=stripped`. */
export interface RowsShape {
  shape: Extract<BodyShape, 'array' | 'object' | 'single' | 'csv'>;
  stripNulls: boolean;
}

/** `/` — the OpenAPI document. */
export interface OpenApiPlan {
  kind: 'openapi';
}

/** OPTIONS on any path: only the `Allow` header. */
export interface OptionsPlan {
  kind: 'options';
  allow: string;
}

/** GET / HEAD on a table or view. */
export interface ReadPlan {
  kind: 'read';
  table: Table;
  query: ParsedQuery;
  range: RowRange | null;
  body: RowsShape;
  /** The `Content-Location` header: the path and query string. */
  location: string;
}

/**
 * What a mutation answers with: nothing (`return=minimal`, or `headers-only` without a
 * primary key to point at), the primary keys of the rows (`headers-only`, for `Location`),
 * or the rows (`return=representation`).
 */
export type Returning = 'none' | 'keys' | 'rows';

/** An insert conflict target and whether conflicting rows are updated. */
export interface Conflict {
  target: string[];
  merge: boolean;
}

/** POST (insert / upsert) and PUT (single-row upsert). */
export interface InsertPlan {
  kind: 'insert';
  table: Table;
  query: ParsedQuery;
  rows: Record<string, unknown>[];
  columns: string[];
  conflict: Conflict | null;
  /** Preferences applied besides the request's own (`resolution=…`). */
  appliedExtra: string[];
  returning: Returning;
  body: RowsShape;
}

/**
 * PATCH and DELETE. The body of a PATCH is parsed while the statement is built, after its
 * filters (so a filter's error comes before the body's, as it always has).
 */
export interface MutatePlan {
  kind: 'update' | 'delete';
  table: Table;
  query: ParsedQuery;
  returning: Returning;
  body: RowsShape;
}

/** The arguments of an rpc call: by name (query string, form), or a JSON body to unpack. */
export type CallArgs =
  | { kind: 'direct'; values: Map<string, string | string[]> }
  | { kind: 'json'; text: string | null; keys: string[] }
  | { kind: 'raw'; text: string };

/** What a function returns: rows read like a table's, or a scalar (or nothing). */
export type CallResult =
  | {
      kind: 'rows';
      /** The columns and the name the rows are read under (its table's or type's). */
      source: Pick<LevelSource, 'table' | 'columns' | 'name'>;
      body: RowsShape;
    }
  | { kind: 'scalar'; shape: Extract<BodyShape, 'scalar' | 'scalars' | 'none'> };

/** GET / HEAD / POST on `/rpc/fn`. */
export interface CallPlan {
  kind: 'call';
  fn: DbFunction;
  query: ParsedQuery;
  args: CallArgs;
  /** GET, or POST to a stable or immutable function: run read only. */
  readOnly: boolean;
  range: RowRange | null;
  /** `Prefer: handling=strict, max-affected=n`: PGRST124 beyond n rows. */
  maxAffected: number | null;
  result: CallResult;
}

export type Plan = OpenApiPlan | OptionsPlan | ReadPlan | InsertPlan | MutatePlan | CallPlan;
