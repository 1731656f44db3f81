import postgres from 'postgres';
import type {
  Database,
  Queryable,
  QueryResult,
  Row,
  Transaction,
  TransactionOptions,
} from './types';

const TEXT_TYPES = [20, 1700, 1082, 1083, 1114, 1184, 1266, 1186, 17];

type Sql = postgres.Sql<Record<string, never>>;

function wrap(sql: Sql | postgres.TransactionSql<Record<string, never>>): Queryable {
  return {
    async query<R = Row>(text: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
      const result = await sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], {
        prepare: true,
      });
      return {
        rows: result as unknown as R[],
        affectedRows: result.count ?? result.length,
        fields: (result.columns ?? []).map((c) => ({ name: c.name, dataTypeID: c.type })),
      };
    },
  };
}

export interface PostgresOptions {
  /** postgres:// connection string. */
  url: string;
  /** Pool size (default 10). */
  max?: number | undefined;
}

/** A real PostgreSQL server through a connection pool. */
export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const text = { to: 25, from: TEXT_TYPES, serialize: String, parse: (x: string) => x };
  const sql = postgres(options.url, {
    max: options.max ?? 10,
    onnotice: () => {},
    types: { text } as never,
    connection: { application_name: 'backend-server' },
  }) as unknown as Sql;
  await sql`select 1`;
  const base = wrap(sql);
  return {
    kind: 'postgres',
    url: options.url,
    query: base.query,
    async exec(script) {
      await sql.unsafe(script);
    },
    async transaction<T>(fn: (tx: Transaction) => Promise<T>, opts: TransactionOptions = {}) {
      // BEGIN is pipelined with the first statements of `fn` on a reserved connection
      // (postgres.js queues them without waiting), saving a round trip per transaction.
      const conn = await sql.reserve();
      const tx: Transaction = {
        ...wrap(conn as unknown as Sql),
        async exec(script) {
          await conn.unsafe(script);
        },
      };
      try {
        const begin = conn.unsafe(opts.readOnly ? 'begin read only' : 'begin').execute();
        let result: T;
        try {
          result = await fn(tx);
        } finally {
          await begin;
        }
        await conn.unsafe('commit');
        return result;
      } catch (error) {
        await conn.unsafe('rollback').catch(() => {});
        throw error;
      } finally {
        conn.release();
      }
    },
    async listen(channel, onPayload) {
      const { unlisten } = await sql.listen(channel, onPayload);
      return unlisten;
    },
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
}
