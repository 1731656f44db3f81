/**
 * One database interface, two implementations: embedded PGlite and a PostgreSQL server.
 *
 * Values come back the same way from both: bool → boolean, int2/int4/oid → number,
 * float4/float8 → number, json/jsonb → parsed; everything else (int8, numeric,
 * timestamps, uuid, bytea, arrays, …) as the text Postgres sends.
 */

export type Row = Record<string, unknown>;

export interface QueryResult<R = Row> {
  rows: R[];
  /** Rows affected by INSERT/UPDATE/DELETE (or returned by SELECT). */
  affectedRows: number;
  /** Column names in order. */
  fields: { name: string; dataTypeID: number }[];
}

/** Something that runs one parameterised statement. Values are always bind parameters. */
export interface Queryable {
  query<R = Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
}

/** A transaction: statements with parameters, and scripts without. */
export interface Transaction extends Queryable {
  /** Runs a multi-statement script without parameters inside this transaction. */
  exec(script: string): Promise<void>;
  /**
   * `COPY <source> TO STDOUT` in the text format: the whole output. `source` is a quoted
   * table name with its column list, or a parenthesised query (export and dump).
   */
  copyOut(source: string): Promise<Uint8Array>;
  /** `COPY <target> FROM STDIN` in the text format, fed with `data` (import). */
  copyIn(target: string, data: Uint8Array): Promise<void>;
}

/** One parameterised statement. */
export interface Statement {
  text: string;
  params: readonly unknown[];
}

export interface TransactionOptions {
  /** Start the transaction READ ONLY (GET/HEAD rpc, like the hosted REST service). */
  readOnly?: boolean;
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs a multi-statement script without parameters (migrations, platform schema). */
  exec(script: string): Promise<void>;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Transaction) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Runs `statements` in one READ ONLY transaction without waiting between them, in one
   * round trip: on PostgreSQL the statements and a single Sync (one implicit transaction,
   * pipelined with other requests' batches; BEGIN … ROLLBACK through the pool when
   * `rollback`). Nothing can decide between the statements, so the transaction ends the
   * same way whatever they return; a failure aborts the rest of the transaction.
   * Resolves to each statement's result or error, in order; never rejects for a statement.
   */
  readBatch(
    statements: readonly Statement[],
    options?: { rollback?: boolean },
  ): Promise<Settled<QueryResult>[]>;
  /** LISTEN on a channel; resolves to an unlisten function. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  /** A connection string other processes can use (SUPABASE_DB_URL), when there is one. */
  readonly url: string | null;
  /**
   * Where a connection of one's own holds session state (LISTEN, session advisory locks):
   * `url`, or the database itself when `url` goes through a transaction-mode pooler.
   * Absent on PGlite.
   */
  readonly sessionUrl?: string | null;
  close(): Promise<void>;
}

/** The outcome of one statement of a batch. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** A Postgres error as both drivers report it, reduced to what the services need. */
export interface PgErrorFields {
  code: string;
  message: string;
  detail?: string | undefined;
  hint?: string | undefined;
}

/** The SQLSTATE and texts of a database error, or null when `error` is not one. */
export function pgError(error: unknown): PgErrorFields | null {
  if (typeof error !== 'object' || error === null) return null;
  const e = error as Record<string, unknown>;
  if (typeof e.code !== 'string' || !/^[0-9A-Z]{5}$/.test(e.code)) return null;
  return {
    code: e.code,
    message: typeof e.message === 'string' ? e.message : String(e.code),
    detail: typeof e.detail === 'string' ? e.detail : undefined,
    hint: typeof e.hint === 'string' ? e.hint : undefined,
  };
}
