/**
 * A file path as a chunk source, in Node (reached through `@app/backend-sdk/node`). Chunks
 * stay on disk: each one is a range of the file, read as it is sent through two reusable
 * 1 MiB buffers per file, and read again from the file when it is sent again (a retry).
 */
import { open } from 'node:fs/promises';
import type { StreamedBody } from '../http/index';
import type { ChunkSource } from './source';

/** Bytes read from the file per write to the socket. */
const PIECE = 1 << 20;

/**
 * Opens `path` as a random-access chunk source.
 *
 * @example
 * const source = await openFile('/tmp/video.mp4');
 */
export async function openFile(
  path: string,
  options: { name?: string } = {},
): Promise<ChunkSource> {
  const handle = await open(path, 'r');
  const { size, mtimeMs } = await handle.stat();
  let buffers: Uint8Array[] | undefined;
  // One send at a time uses the buffers: a send that was cut off first finishes its last read.
  let busy: Promise<unknown> = Promise.resolve();
  const fill = async (target: Uint8Array, position: number): Promise<Uint8Array> => {
    for (let at = 0; at < target.length; ) {
      const { bytesRead } = await handle.read(target, at, target.length - at, position + at);
      if (!bytesRead) throw new RangeError('the file shrank while uploading');
      at += bytesRead;
    }
    return target;
  };
  const range = (start: number, length: number): StreamedBody => ({
    length,
    writeTo(write) {
      const run = busy.then(async () => {
        buffers ??= [new Uint8Array(PIECE), new Uint8Array(PIECE)];
        const pool = buffers;
        const piece = (at: number, turn: number) =>
          fill((pool[turn] as Uint8Array).subarray(0, Math.min(PIECE, length - at)), start + at);
        let next = length > 0 ? piece(0, 0) : undefined;
        let at = 0;
        let turn = 0;
        try {
          while (next) {
            const bytes = await next;
            at += bytes.length;
            turn ^= 1;
            // The next piece is read while this one is written, into the buffer of the piece
            // before this one, whose write has completed.
            next = at < length ? piece(at, turn) : undefined;
            await write(bytes);
          }
        } finally {
          await next?.catch(() => {});
        }
      });
      busy = run.catch(() => {});
      return run;
    },
    bytes: () => fill(new Uint8Array(length), start),
  });
  return {
    name: options.name ?? path,
    type: '',
    size,
    lastModified: mtimeMs,
    seekable: true,
    async read(start, end) {
      const from = Math.min(start, size);
      const to = Math.min(Math.max(end, from), size);
      return { data: range(from, to - from), last: to >= size };
    },
    release() {},
    close: () => void handle.close().catch(() => {}),
  };
}
