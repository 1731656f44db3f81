import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { workerScript } from '../threads/worker-script';
import {
  type Call,
  type CallBody,
  deserializeError,
  type Reply,
  type SerializedError,
  type ThreadInit,
} from './thread-protocol';
import type { Database, QueryResult, Settled, Transaction, TransactionOptions } from './types';

/** PGlite's ES module entry (its wasm and data files are found relative to it). */
function pgliteEntry(): string {
  const cjs = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const esm = join(dirname(cjs), 'index.js');
  return existsSync(esm) ? esm : cjs;
}

/** The worker's script; PGlite itself stays an import of the installed package. */
const threadScript = () =>
  workerScript({
    name: 'pglite-thread',
    source: 'db/pglite-thread.ts',
    external: { '@electric-sql/pglite': pathToFileURL(pgliteEntry()).href },
  });

export interface PgliteThreadOptions {
  dataDir?: string | undefined;
  /** A data-directory tarball to start from (the platform snapshot), read by the thread. */
  snapshotFile?: string | undefined;
}

/**
 * Embedded PGlite on a worker thread: the same database as `openPglite`, but the WASM
 * backend runs beside the event loop instead of on it. One connection: statements and
 * transactions are serialised, as before.
 */
export async function openPgliteThread(options: PgliteThreadOptions = {}): Promise<Database> {
  const init: ThreadInit = {
    dataDir: options.dataDir ?? null,
    snapshotFile: options.snapshotFile ?? null,
    pgliteDir: dirname(pgliteEntry()),
  };
  const worker = new Worker(await threadScript(), { workerData: init });
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const listeners = new Map<string, Set<(payload: string) => void>>();
  let nextId = 1;
  let nextTx = 1;
  let failure: Error | null = null;
  // Referenced only while calls are outstanding, like a socket with queries in flight.
  worker.unref();

  const settle = (error: Error) => {
    failure = error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  worker.on('error', (error) => settle(error));
  worker.on('exit', () => settle(new Error('pglite: the database thread has stopped')));
  worker.on('message', (reply: Reply) => {
    if ('notify' in reply) {
      for (const cb of listeners.get(reply.notify) ?? []) cb(reply.payload);
      return;
    }
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    if (pending.size === 0) worker.unref();
    if (reply.ok) p.resolve(reply.value);
    else p.reject(deserializeError(reply.error));
  });

  // biome-ignore lint/suspicious/noExplicitAny: each call's reply type is the caller's
  const call = <T = any>(message: CallBody, transfer: ArrayBuffer[] = []): Promise<T> => {
    if (failure) return Promise.reject(failure);
    const id = nextId++;
    if (pending.size === 0) worker.ref();
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ ...message, id } as Call, transfer);
    });
  };

  try {
    await call({ op: 'ready' });
  } catch (error) {
    await worker.terminate();
    throw error;
  }

  return {
    kind: 'pglite',
    url: null,
    query: (text, params = []) => call({ op: 'query', text, params }),
    async exec(script) {
      await call({ op: 'exec', script });
    },
    async transaction<T>(fn: (tx: Transaction) => Promise<T>, opts: TransactionOptions = {}) {
      // Statements follow BEGIN without waiting for it (messages arrive in order); when
      // BEGIN fails, they fail with its error.
      const txid = nextTx++;
      const began = call({ op: 'begin', txid, readOnly: opts.readOnly ?? false }).then(
        () => null,
        (error: Error) => error,
      );
      const tx: Transaction = {
        query: (text, params = []) => call({ op: 'txquery', txid, text, params }),
        async exec(script) {
          await call({ op: 'txexec', txid, script });
        },
        copyOut: (source) => call<Uint8Array>({ op: 'txcopyout', txid, source }),
        async copyIn(target, data) {
          await call({ op: 'txcopyin', txid, target, data });
        },
      };
      let result: T;
      try {
        result = await fn(tx);
      } catch (error) {
        await call({ op: 'end', txid, commit: false }).catch(() => {});
        throw (await began) ?? error;
      }
      const failed = await began;
      if (failed) throw failed;
      await call({ op: 'end', txid, commit: true });
      return result;
    },
    async readBatch(statements, opts = {}) {
      const settled = await call<(Settled<QueryResult> | { ok: false; error: SerializedError })[]>({
        op: 'batch',
        statements,
        rollback: opts.rollback ?? false,
      });
      return settled.map((s) =>
        s.ok ? s : { ok: false, error: deserializeError(s.error as SerializedError) },
      );
    },
    async listen(channel, onPayload) {
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        await call({ op: 'listen', channel });
      }
      set.add(onPayload);
      return async () => {
        const current = listeners.get(channel);
        if (!current?.delete(onPayload) || current.size > 0) return;
        listeners.delete(channel);
        await call({ op: 'unlisten', channel }).catch(() => {});
      };
    },
    async close() {
      if (failure) return;
      await call({ op: 'close' }).catch(() => {});
      await worker.terminate();
    },
  };
}
