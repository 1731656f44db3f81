import { PGlite, type Transaction as PgliteTransaction } from '@electric-sql/pglite';
import { installPgliteExtensions, loadExtensionFiles } from './extensions/pglite-files';
import { exchange, StatementNames } from './pglite-protocol';
import type {
  Database,
  Queryable,
  QueryResult,
  Row,
  Settled,
  Transaction,
  TransactionOptions,
} from './types';

// Types returned as the text Postgres sends, so both implementations agree.
const TEXT_TYPES = [
  20 /* int8 */, 1700 /* numeric */, 1082 /* date */, 1083 /* time */, 1114 /* timestamp */,
  1184 /* timestamptz */, 1266 /* timetz */, 1186 /* interval */, 17 /* bytea */,
];
const asText = (value: string) => value;
const parsers = Object.fromEntries(TEXT_TYPES.map((oid) => [oid, asText]));

type PgliteQueryable = Pick<PGlite | PgliteTransaction, 'query'>;

/**
 * Statements go to the backend as one protocol exchange, as named statements kept by SQL
 * text, when their parameters are plain; others through PGlite's query, which serialises
 * parameters by their described types.
 */
function wrap(
  pglite: PGlite,
  target: PgliteQueryable,
  inTransaction: boolean,
  names: StatementNames,
): Queryable {
  return {
    async query<R = Row>(text: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
      const fast = await exchange(pglite, [{ text, params }], { inTransaction, names });
      if (fast) {
        const [r] = fast;
        if (!r?.ok) throw r?.error;
        return r.value as QueryResult<R>;
      }
      const result = await target.query<R>(text, params as unknown[], { rowMode: 'object' });
      return {
        rows: result.rows,
        affectedRows: result.affectedRows ?? result.rows.length,
        fields: result.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
      };
    },
  };
}

export interface PgliteOptions {
  /** Directory for a persistent database; in memory when absent. */
  dataDir?: string | undefined;
  /** A `dumpDataDir()` tarball to start from (the platform snapshot). */
  loadDataDir?: Blob | undefined;
  /** PGlite's installed folder (its contrib bundles); resolved from this module when absent. */
  pgliteDir?: string | undefined;
}

/**
 * PGlite's start parameters, with 32 MB of shared buffers instead of 128 MB: its files live
 * in memory (or the OS cache) already, so a large buffer pool mostly holds second copies of
 * pages; this saves about 100 MB of resident memory.
 */
const START_PARAMS = [
  ...PGlite.defaultStartParams,
  '-c',
  'shared_buffers=32MB',
  // The hosted database's planner settings, so plans (and EXPLAIN's SETTINGS) match it:
  // its effective_cache_size, and Postgres' parallel defaults back (single-user PGlite
  // never plans parallel queries, whatever they say).
  '-c',
  'effective_cache_size=128MB',
  '-c',
  'max_parallel_workers=8',
  '-c',
  'max_parallel_workers_per_gather=2',
];

/** Embedded PGlite: one connection, so statements and transactions are serialised. */
export async function openPglite(
  options: PgliteOptions = {},
): Promise<Database & { pglite: PGlite }> {
  // Unpacked while PGlite starts; awaited (and its failure reported) once it has.
  const extensionFiles = loadExtensionFiles(options.pgliteDir);
  extensionFiles.catch(() => {});
  const pglite = await PGlite.create(options.dataDir, {
    parsers,
    startParams: START_PARAMS,
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  });
  // Single-user PGlite starts without a session_authorization value to return to, so a
  // transaction-local switch (see switchRoleSql) would outlive its transaction: give it one.
  await pglite.query(`select set_config('session_authorization', session_user, false)`);
  // Contrib and the server's own extensions, so `create extension` finds them.
  await installPgliteExtensions(pglite, await extensionFiles);
  // The one connection's named statements, shared by single statements and read batches.
  const names = new StatementNames();
  const base = wrap(pglite, pglite, false, names);
  return {
    kind: 'pglite',
    url: null,
    pglite,
    query: base.query,
    async exec(script) {
      // A script may change tables (or deallocate statements): parse everything again.
      try {
        await pglite.exec(script);
      } finally {
        names.forgetAll();
      }
    },
    transaction<T>(fn: (tx: Transaction) => Promise<T>, opts: TransactionOptions = {}) {
      return pglite.transaction(async (tx) => {
        if (opts.readOnly) await tx.query('set transaction read only');
        return fn({
          ...wrap(pglite, tx, true, names),
          async exec(script) {
            try {
              await tx.exec(script);
            } finally {
              names.forgetAll();
            }
          },
          // PGlite's COPY goes through a blob device instead of the protocol's copy messages.
          async copyOut(source) {
            const result = await tx.query(`copy ${source} to '/dev/blob'`);
            return new Uint8Array((await result.blob?.arrayBuffer()) ?? new ArrayBuffer(0));
          },
          async copyIn(target, data) {
            await tx.query(`copy ${target} from '/dev/blob'`, [], {
              blob: new Blob([data as Uint8Array<ArrayBuffer>]),
            });
          },
        });
      });
    },
    async readBatch(statements, opts = {}) {
      const batched = await exchange(pglite, statements, {
        before: 'begin read only',
        after: opts.rollback ? 'rollback' : 'commit',
        names,
      });
      if (batched) return batched;
      // Parameters that need PGlite's typed serializers: one statement at a time.
      return pglite.transaction(async (tx) => {
        await tx.query('set transaction read only');
        const q = wrap(pglite, tx, true, names);
        const out: Settled<QueryResult>[] = [];
        for (const st of statements) {
          out.push(
            await q.query(st.text, st.params).then(
              (value): Settled<QueryResult> => ({ ok: true, value }),
              (error: unknown): Settled<QueryResult> => ({ ok: false, error }),
            ),
          );
        }
        if (opts.rollback || out.some((r) => !r.ok)) await tx.rollback();
        return out;
      });
    },
    async listen(channel, onPayload) {
      const unlisten = await pglite.listen(channel, onPayload);
      return () => unlisten();
    },
    async close() {
      if (!pglite.closed) await pglite.close();
    },
  };
}
