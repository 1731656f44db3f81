/**
 * Types of the REST capability: the `Database` shape of generated types, and results.
 */
import type { RestError } from '../errors';

/** A JSON value. */
export type Json = string | number | boolean | null | { [key: string]: Json | undefined } | Json[];

/** A foreign key as generated types describe it. */
export interface GenericRelationship {
  foreignKeyName: string;
  columns: string[];
  isOneToOne?: boolean;
  referencedRelation: string;
  referencedColumns: string[];
}

/** A table of a generated `Database` type. */
export interface GenericTable {
  Row: Record<string, unknown>;
  Insert: Record<string, unknown>;
  Update: Record<string, unknown>;
  Relationships: GenericRelationship[];
}

/** A view of a generated `Database` type (updatable views also have Insert/Update). */
export interface GenericView {
  Row: Record<string, unknown>;
  Relationships: GenericRelationship[];
}

/** A function of a generated `Database` type. */
export interface GenericFunction {
  Args: Record<string, unknown>;
  Returns: unknown;
}

/** One schema of a generated `Database` type. */
export interface GenericSchema {
  Tables: Record<string, GenericTable>;
  Views: Record<string, GenericView>;
  Functions: Record<string, GenericFunction>;
}

/** The schema used when no `Database` type is given: anything goes. */
export interface AnySchema {
  // biome-ignore lint/suspicious/noExplicitAny: untyped use
  Tables: Record<string, { Row: any; Insert: any; Update: any; Relationships: [] }>;
  // biome-ignore lint/suspicious/noExplicitAny: untyped use
  Views: Record<string, { Row: any; Relationships: [] }>;
  // biome-ignore lint/suspicious/noExplicitAny: untyped use
  Functions: Record<string, { Args: any; Returns: any }>;
}

/** Schema names of a `Database` type. */
export type SchemaName<DB> = string & Exclude<keyof DB, '__InternalSupabase'>;

/** The schema `S` of `DB`, or {@link AnySchema} when `DB` is untyped. */
export type SchemaOf<DB, S> = 0 extends 1 & DB
  ? AnySchema
  : S extends keyof DB
    ? DB[S] extends GenericSchema
      ? DB[S]
      : AnySchema
    : AnySchema;

/** Tables and views of a schema by name. */
export type Relations<S extends GenericSchema> = S['Tables'] & S['Views'];

/** The foreign keys of the table or view `N` of `S` (unknown for anything else). */
export type RelationshipsOf<S extends GenericSchema, N> = N extends keyof Relations<S>
  ? Relations<S>[N]['Relationships']
  : unknown;

/** Counting algorithm for `count`. */
export type CountMethod = 'exact' | 'planned' | 'estimated';

/** A successful REST result. */
export interface RestSuccess<T> {
  data: T;
  error: null;
  /** True (as in the official client's results). */
  success: true;
  /** Row count when one was requested (`count` option), else null. */
  count: number | null;
  /** HTTP status. */
  status: number;
  statusText: string;
}

/** A failed REST result. */
export interface RestFailure {
  data: null;
  error: RestError;
  /** False (as in the official client's results). */
  success: false;
  count: null;
  /** HTTP status, 0 when no response arrived. */
  status: number;
  statusText: string;
}

/** Result of a REST call: a discriminated union on `error`. */
export type RestResult<T> = RestSuccess<T> | RestFailure;

/** `T` with its `data` non-null under `throwOnError()`. */
export type RestResultOf<T, Throws extends boolean> = Throws extends true
  ? RestSuccess<T>
  : RestResult<T>;
