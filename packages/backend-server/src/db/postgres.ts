import { connect, type Socket } from 'node:net';
import postgres from 'postgres';
import { parseArray } from './pg-array';
import { Pipeline } from './pipeline';
import type {
  Database,
  Queryable,
  QueryResult,
  Row,
  Settled,
  Statement,
  Transaction,
  TransactionOptions,
} from './types';
import { type ArrayTypes, BOX_ARRAY } from './wire';
import { connectTarget } from './wire-connect';

const TEXT_TYPES = [20, 1700, 1082, 1083, 1114, 1184, 1266, 1186, 17];

type Sql = postgres.Sql<Record<string, never>>;

type Conn = Sql | postgres.TransactionSql<Record<string, never>>;

/**
 * Sends one statement: named (parsed and planned once per connection) on a direct pool,
 * unnamed behind a transaction-mode pooler, whose server connections change between
 * transactions and do not hold our named statements.
 */
const send = (sql: Conn, text: string, params: readonly unknown[], prepare = true) =>
  sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare }).execute();

function toResult<R>(result: postgres.RowList<postgres.Row[]>): QueryResult<R> {
  return {
    rows: result as unknown as R[],
    affectedRows: result.count ?? result.length,
    fields: (result.columns ?? []).map((c) => ({ name: c.name, dataTypeID: c.type })),
  };
}

function wrap(sql: Conn, prepare: boolean): Queryable {
  return {
    async query<R = Row>(text: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
      return toResult<R>(await send(sql, text, params, prepare));
    },
  };
}

/** How the pool reaches PostgreSQL through a pooler (see {@link PostgresOptions.pooler}). */
export interface PoolerOptions {
  /** Only transaction pooling: a server connection is ours for one transaction. */
  mode: 'transaction';
  /** postgres:// URL of the database itself, not through the pooler. */
  directUrl: string;
}

export interface PostgresOptions {
  /** postgres:// connection string. */
  url: string;
  /** Pool size (default 10). */
  max?: number | undefined;
  /** Connections of the pipelined read path (default 2; 0 = reads go through the pool). */
  pipelined?: number | undefined;
  /** Session settings of every connection, sent at startup (Vault's key). */
  settings?: Readonly<Record<string, string>> | undefined;
  /**
   * `url` goes through a transaction-mode pooler (PgBouncer `pool_mode = transaction`):
   * statements are unnamed, `settings` are set transaction-locally in every transaction
   * instead of at connection startup, the pipelined read path is off, and what needs a
   * session of its own (LISTEN, session advisory locks) connects to `directUrl`.
   */
  pooler?: PoolerOptions | undefined;
}

/** The pipelined read path, or null when the URL or the server does not allow it. */
async function openPipeline(
  url: string,
  size: number,
  settings: Readonly<Record<string, string>>,
  arrays: ArrayTypes,
): Promise<Pipeline | null> {
  const target = size > 0 ? connectTarget(url) : null;
  if (!target) return null;
  try {
    return await Pipeline.open({ ...target, settings }, size, arrays);
  } catch {
    return null;
  }
}

/**
 * The pool's sockets, with Nagle's algorithm off. postgres.js leaves it on, and a
 * `COPY … FROM stdin` ends with a small CopyDone written after the data: Nagle holds it back
 * until the server acknowledges the data, which the server delays (~40 ms per COPY, so a
 * restore of many small tables spent most of its time waiting). Hosts are tried in turn on
 * reconnects as postgres.js does; a Unix socket path is used as is.
 */
function socketFactory() {
  let turn = 0;
  return (o: { host: string[]; port: number[]; path: string | false }): Socket => {
    if (o.path) return connect(o.path);
    const i = turn++ % o.host.length;
    const host = o.host[i] as string;
    const socket = connect({ host, port: o.port[i] ?? (o.port[0] as number), noDelay: true });
    // postgres.js names the TLS server from this (SNI).
    return Object.assign(socket, { host });
  };
}

/** A statement setting `settings` until the transaction ends, or null when there are none. */
function localSettings(settings: Readonly<Record<string, string>>): Statement | null {
  const entries = Object.entries(settings);
  if (entries.length === 0) return null;
  return {
    text: `select ${entries.map((_, i) => `pg_catalog.set_config($${2 * i + 1}, $${2 * i + 2}, true)`).join(', ')}`,
    params: entries.flat(),
  };
}

type Parser = (text: string) => unknown;

/**
 * Reads arrays with NULL elements right: postgres.js's own array parser gives an unquoted
 * `NULL` element to the element's parser (the string 'NULL' in a text[], NaN in an int[]).
 * Its parsers of the array types it fetched at the first connection are replaced by
 * {@link parseArray} over the same element parsers (later connections keep them). Returns
 * the array types, for the pipelined read path.
 */
function readArraysRight(sql: Sql): ArrayTypes {
  const options = (
    sql as unknown as {
      options: {
        parsers: Record<number, Parser>;
        shared: { typeArrayMap: Record<string, number> };
      };
    }
  ).options;
  const arrays = new Map<number, number>();
  for (const [element, array] of Object.entries(options.shared.typeArrayMap)) {
    const item = options.parsers[Number(element)] ?? ((text: string) => text);
    const delimiter = array === BOX_ARRAY ? ';' : ',';
    // Not marked `array`: postgres.js would cut the first character off for its own parser.
    options.parsers[array] = (text: string) => parseArray(text, item, delimiter);
    arrays.set(array, Number(element));
  }
  return arrays;
}

/** A real PostgreSQL server through a connection pool. */
export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const text = { to: 25, from: TEXT_TYPES, serialize: String, parse: (x: string) => x };
  const pooler = options.pooler ?? null;
  const prepare = !pooler;
  const settings = options.settings ?? {};
  const pool = (url: string, startup: Readonly<Record<string, string>>, max: number) =>
    postgres(url, {
      max,
      prepare,
      onnotice: () => {},
      types: { text } as never,
      connection: { ...startup, application_name: 'backend-server' },
      // Supported by postgres.js, missing from its types.
      ...({ socket: socketFactory() } as object),
    }) as unknown as Sql;
  // A pooler refuses startup parameters it does not track (and would not keep them per
  // transaction anyway): behind one, the settings are set in each transaction instead.
  const sql = pool(options.url, pooler ? {} : settings, options.max ?? 10);
  const perTransaction = pooler ? localSettings(settings) : null;
  /** Sets the settings first in a transaction just begun on `conn` (behind a pooler). */
  const setLocal = (conn: Conn) =>
    perTransaction ? send(conn, perTransaction.text, perTransaction.params, prepare) : null;
  // LISTEN holds a session: on the database itself, opened at the first listen().
  let direct: Sql | null = null;
  const session = () => {
    if (!pooler) return sql;
    direct ??= pool(pooler.directUrl, settings, 1);
    return direct;
  };
  await sql`select 1`;
  const arrays = readArraysRight(sql);
  const pipeline = pooler
    ? null
    : await openPipeline(options.url, options.pipelined ?? 2, settings, arrays);
  const base = wrap(sql, prepare);
  const transaction = async <T>(
    fn: (tx: Transaction) => Promise<T>,
    opts: TransactionOptions = {},
  ): Promise<T> => {
    // BEGIN is pipelined with the first statements of `fn` on a reserved connection
    // (postgres.js queues them without waiting), saving a round trip per transaction.
    const conn = await sql.reserve();
    const tx: Transaction = {
      ...wrap(conn as unknown as Sql, prepare),
      async exec(script) {
        await conn.unsafe(script);
      },
      async copyOut(source) {
        const stream = await conn.unsafe(`copy ${source} to stdout`).readable();
        // Flowing mode: postgres.js's copy stream stalls under async iteration past ~64 KB.
        return new Promise<Uint8Array>((resolve, reject) => {
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.once('end', () => resolve(Buffer.concat(chunks)));
          stream.once('error', reject);
        });
      },
      async copyIn(target, data) {
        const stream = await conn.unsafe(`copy ${target} from stdin`).writable();
        await new Promise<void>((resolve, reject) => {
          stream.once('error', reject);
          stream.once('finish', () => resolve());
          stream.end(data);
        });
      },
    };
    try {
      const begin = conn.unsafe(opts.readOnly ? 'begin read only' : 'begin').execute();
      const set = setLocal(conn as unknown as Sql);
      let result: T;
      try {
        result = await fn(tx);
      } finally {
        await Promise.all([begin, set]);
      }
      await conn.unsafe('commit');
      return result;
    } catch (error) {
      await conn.unsafe('rollback').catch(() => {});
      throw error;
    } finally {
      conn.release();
    }
  };
  return {
    kind: 'postgres',
    url: options.url,
    sessionUrl: pooler?.directUrl ?? options.url,
    async query<R = Row>(text: string, params: readonly unknown[] = []) {
      if (!perTransaction) return base.query<R>(text, params);
      // The settings need a transaction around the statement: all sent in one go.
      return transaction((tx) => tx.query<R>(text, params));
    },
    async exec(script) {
      await sql.unsafe(script);
    },
    transaction,
    async readBatch(statements, opts = {}) {
      const piped = opts.rollback ? null : pipeline?.run(statements);
      if (piped) return piped;
      const conn = (await sql.reserve()) as unknown as Sql & { release(): void };
      try {
        // What the pipeline does not take. Queued in one go: postgres.js sends them in one
        // write and reads the answers in order. Each statement has its own Sync, so BEGIN …
        // COMMIT bound the transaction.
        const begin = send(conn, 'begin read only', [], prepare);
        const set = setLocal(conn);
        const results = statements.map((st) =>
          send(conn, st.text, st.params, prepare).then(
            (r): Settled<QueryResult> => ({ ok: true, value: toResult(r) }),
            (error: unknown): Settled<QueryResult> => ({ ok: false, error }),
          ),
        );
        const end = send(conn, opts.rollback ? 'rollback' : 'commit', [], prepare);
        const [first, setting, last] = await Promise.allSettled([begin, set, end]);
        const settled = await Promise.all(results);
        if (first.status === 'rejected') throw first.reason;
        if (setting.status === 'rejected') throw setting.reason;
        if (last.status === 'rejected') throw last.reason;
        return settled;
      } finally {
        conn.release();
      }
    },
    async listen(channel, onPayload) {
      const { unlisten } = await session().listen(channel, onPayload);
      return unlisten;
    },
    async close() {
      pipeline?.close();
      await Promise.all([sql.end({ timeout: 5 }), direct?.end({ timeout: 5 })]);
    },
  };
}
