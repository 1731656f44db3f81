/**
 * Runs inside the PGlite worker thread (compiled by esbuild when a database opens; see
 * pglite-remote.ts). Owns the embedded database and answers the main thread's calls, so
 * the WASM backend works on one core while HTTP and REST work on the other.
 */
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { gunzipSync } from 'node:zlib';
import { openPglite } from './pglite';
import { type Call, type Reply, serializeError, type ThreadInit } from './thread-protocol';
import type { Transaction } from './types';

const port = parentPort;
if (!port) throw new Error('pglite-thread: not in a worker');
const init = workerData as ThreadInit;
/**
 * The snapshot, unzipped here with zlib (PGlite's own DecompressionStream is ~200 ms slower),
 * handed over as a Blob whose bytes are that one buffer: PGlite only reads `arrayBuffer()`,
 * and a real Blob would hold two more 40 MB copies until the next garbage collection.
 */
function snapshotBlob(file: string): Blob {
  const tar = gunzipSync(readFileSync(file));
  const bytes =
    tar.byteOffset === 0 && tar.byteLength === tar.buffer.byteLength
      ? (tar.buffer as ArrayBuffer)
      : tar.buffer.slice(tar.byteOffset, tar.byteOffset + tar.byteLength);
  return { type: '', size: bytes.byteLength, arrayBuffer: async () => bytes } as unknown as Blob;
}

const ready = openPglite({
  dataDir: init.dataDir ?? undefined,
  loadDataDir: init.snapshotFile ? snapshotBlob(init.snapshotFile) : undefined,
  pgliteDir: init.pgliteDir,
});

const post = (reply: Reply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);

/** Calls for one open transaction, handed to its loop in order. */
class Inbox {
  private queue: Call[] = [];
  private waiting: ((call: Call) => void) | null = null;
  push(call: Call) {
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w(call);
    } else this.queue.push(call);
  }
  drain(): Call[] {
    return this.queue.splice(0);
  }
  next(): Promise<Call> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }
}

const ROLLBACK = Symbol('rollback');
const transactions = new Map<number, Inbox>();
const unlisteners = new Map<string, () => Promise<void>>();

/** Drains an inbox whose transaction cannot run its calls any more. */
function refuse(inbox: Inbox, error: unknown) {
  for (const call of inbox.drain()) post({ id: call.id, ok: false, error: serializeError(error) });
}

/**
 * One interactive transaction. Its inbox exists from the `begin` message on, so the main
 * thread sends its statements without waiting for the transaction to start.
 */
async function serveTransaction(id: number, txid: number, readOnly: boolean, inbox: Inbox) {
  let endId = -1;
  try {
    const db = await ready;
    await db.transaction(
      async (tx: Transaction) => {
        post({ id, ok: true, value: txid });
        for (;;) {
          const call = await inbox.next();
          if (call.op === 'end') {
            endId = call.id;
            if (!call.commit) throw ROLLBACK;
            return;
          }
          try {
            if (call.op === 'txcopyout') {
              // The output's buffer moves to the main thread instead of being copied.
              const bytes = await tx.copyOut(call.source);
              post({ id: call.id, ok: true, value: bytes }, [bytes.buffer as ArrayBuffer]);
              continue;
            }
            const value =
              call.op === 'txquery'
                ? await tx.query(call.text, call.params)
                : call.op === 'txexec'
                  ? await tx.exec(call.script)
                  : call.op === 'txcopyin'
                    ? await tx.copyIn(call.target, call.data)
                    : undefined;
            post({ id: call.id, ok: true, value });
          } catch (error) {
            post({ id: call.id, ok: false, error: serializeError(error) });
          }
        }
      },
      { readOnly },
    );
    post({ id: endId, ok: true, value: undefined });
  } catch (error) {
    if (endId < 0) {
      post({ id, ok: false, error: serializeError(error) });
      refuse(inbox, error);
    } else if (error === ROLLBACK) post({ id: endId, ok: true, value: undefined });
    else post({ id: endId, ok: false, error: serializeError(error) });
  } finally {
    transactions.delete(txid);
  }
}

async function serve(call: Call): Promise<void> {
  const db = await ready;
  switch (call.op) {
    case 'ready':
      return post({ id: call.id, ok: true, value: undefined });
    case 'query':
      return post({ id: call.id, ok: true, value: await db.query(call.text, call.params) });
    case 'exec':
      return post({ id: call.id, ok: true, value: await db.exec(call.script) });
    case 'batch': {
      const settled = await db.readBatch(call.statements, { rollback: call.rollback });
      const value = settled.map((s) => (s.ok ? s : { ok: false, error: serializeError(s.error) }));
      return post({ id: call.id, ok: true, value });
    }
    case 'listen': {
      if (!unlisteners.has(call.channel)) {
        const stop = await db.listen(call.channel, (payload) =>
          post({ id: -1, notify: call.channel, payload }),
        );
        unlisteners.set(call.channel, stop);
      }
      return post({ id: call.id, ok: true, value: undefined });
    }
    case 'unlisten': {
      const stop = unlisteners.get(call.channel);
      unlisteners.delete(call.channel);
      await stop?.();
      return post({ id: call.id, ok: true, value: undefined });
    }
    case 'close':
      await db.close();
      return post({ id: call.id, ok: true, value: undefined });
    default:
      throw new Error(`pglite-thread: unexpected call ${call.op}`);
  }
}

port.on('message', (call: Call) => {
  if (call.op === 'begin') {
    const inbox = new Inbox();
    transactions.set(call.txid, inbox);
    void serveTransaction(call.id, call.txid, call.readOnly, inbox);
    return;
  }
  if (
    call.op === 'txquery' ||
    call.op === 'txexec' ||
    call.op === 'txcopyout' ||
    call.op === 'txcopyin' ||
    call.op === 'end'
  ) {
    const inbox = transactions.get(call.txid);
    if (inbox) inbox.push(call);
    else
      post({ id: call.id, ok: false, error: serializeError(new Error('transaction is closed')) });
    return;
  }
  serve(call).catch((error: unknown) =>
    post({ id: call.id, ok: false, error: serializeError(error) }),
  );
});
