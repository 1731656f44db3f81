/**
 * The stored objects' bytes go into and out of an archive on a thread of their own (see
 * `copy-thread.ts`): it reads with blocking calls and writes each chunk while it reads the
 * next, while the main thread dumps or loads the database. Copying through the event loop
 * instead waited for it between every chunk, which on a busy machine took several times as
 * long as the copy.
 */
import { Worker } from 'node:worker_threads';
import { workerScript } from '../threads/worker-script';

/** Bytes of one object to put into an archive, after its tar header. */
export interface PackEntry {
  /** The object's file. */
  source: string;
  /** Bytes to copy (the file must have at least as many). */
  size: number;
  /** The entry's tar header, written before the bytes; zeros pad the bytes to a block. */
  header: Uint8Array;
}

/** Bytes of one archive entry to write to a new file, checked against their CRC-32. */
export interface UnpackEntry {
  /** Offset of the entry's first byte in the archive. */
  offset: number;
  size: number;
  /** The file to create (it must not exist; its folder is made). */
  target: string;
  /** The CRC-32 the bytes must have. */
  sum: number;
}

export type CopyRequest =
  | {
      op: 'pack';
      /** The archive, which exists; entries are written from offset `at` (block-aligned). */
      archive: string;
      at: number;
      entries: PackEntry[];
      /** Write to the disk directly where the system allows it (see copy-thread.ts). */
      direct: boolean;
      cancel: SharedArrayBuffer;
    }
  | {
      op: 'unpack';
      archive: string;
      entries: UnpackEntry[];
      /** Write to the disk directly where the system allows it (see copy-thread.ts). */
      direct: boolean;
      cancel: SharedArrayBuffer;
    };

export type CopyReply =
  /** Done: the CRC-32 of each entry's bytes, and (pack) the offset after the last one. */
  | { ok: true; sums: number[]; end: number }
  /**
   * The copy stopped at entry `index` (-1: before any): its bytes do not match their CRC-32
   * (unpack), a file could not be read or written, or the copy was cancelled.
   */
  | { ok: false; index: number; reason: 'checksum' | 'io' | 'cancelled'; message: string };

/** A copy thread, started at once so it boots while the caller prepares its request. */
export interface CopyThread {
  /** Runs one request (one at a time). */
  run(request: PackRequest | UnpackRequest): Promise<CopyReply>;
  /** Asks a running copy to stop (it closes its files first), then ends the thread. */
  stop(): Promise<void>;
}

type PackRequest = Omit<Extract<CopyRequest, { op: 'pack' }>, 'cancel'>;
type UnpackRequest = Omit<Extract<CopyRequest, { op: 'unpack' }>, 'cancel'>;

/**
 * Starts a copy thread.
 *
 * @example
 * const thread = startCopyThread();
 * try {
 *   const reply = await thread.run({ op: 'unpack', archive, entries });
 * } finally {
 *   await thread.stop();
 * }
 */
export function startCopyThread(): CopyThread {
  const cancel = new SharedArrayBuffer(4);
  const flag = new Int32Array(cancel);
  const worker = workerScript({ name: 'copy-thread', source: 'data/copy-thread.ts' }).then(
    (path) => new Worker(path),
  );
  // A failure to start shows in `run`; `stop` must not throw it again.
  worker.catch(() => {});
  let running: Promise<CopyReply> | null = null;
  return {
    run(request) {
      running = worker.then(
        (w) =>
          new Promise<CopyReply>((resolve, reject) => {
            const onExit = (code: number) => reject(new Error(`the copy thread ended (${code})`));
            w.once('error', reject).once('exit', onExit);
            w.once('message', (reply: CopyReply) => {
              w.off('error', reject).off('exit', onExit);
              resolve(reply);
            });
            w.postMessage({ ...request, cancel } satisfies CopyRequest);
          }),
      );
      return running;
    },
    async stop() {
      Atomics.store(flag, 0, 1);
      await running?.catch(() => {});
      const w = await worker.catch(() => null);
      await w?.terminate();
    },
  };
}
