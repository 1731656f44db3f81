/**
 * The copy thread of export and import (started by `copy.ts`): packs object files into an
 * archive and unpacks archive entries into new files, computing each entry's CRC-32 on the
 * way. This thread does nothing else, so it never waits for a busy event loop between
 * chunks. Reads and checksums are blocking calls; each write goes to the thread pool while
 * the next chunk is read and summed into the other of two buffers (at most one write at a
 * time, so a chunk is read from one disk area while the last one goes to another). A shared
 * flag set by the main thread stops it between two chunks, after it closed its files.
 *
 * What it writes goes to the disk directly (O_DIRECT) where the system allows it, instead of
 * through the page cache: an archive or a restore is a gigabyte written once and not read
 * back soon, and on virtual machines whose host takes free memory back (free page
 * reporting, as on this project's machines), filling new page-cache pages from a program's
 * buffer costs several times what the disk write does (1 GiB: 2–8 s against ~0.6 s).
 * Import reads the archive directly too (see `Input`). Direct reads and writes need a
 * buffer, offsets and lengths aligned to the device's blocks: the buffers are WebAssembly
 * memory (page-aligned), tar entries are 512-byte aligned, a file's last block is written
 * whole and cut back to size, and an entry's last block is read whole (tar pads it). Where
 * direct I/O is refused (another system, a file system without it, a device with larger
 * blocks), the same reads and writes go through the page cache.
 */
import { closeSync, constants, ftruncateSync, mkdirSync, openSync, readSync, write } from 'node:fs';
import { dirname } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import type { CopyReply, CopyRequest } from './copy';

const CHUNK = 2 << 20;
const BLOCK = 512;
// WebAssembly memory is page-aligned, as direct I/O requires (a Buffer's own is not).
// Its type is not in this package's libs.
const { Memory } = (
  globalThis as unknown as {
    WebAssembly: { Memory: new (d: { initial: number }) => { buffer: ArrayBuffer } };
  }
).WebAssembly;
const memory = Buffer.from(new Memory({ initial: (2 * CHUNK) / 65536 }).buffer);
/** Two chunk buffers, each page-aligned: one is filled while the other is written. */
const buffers = [memory.subarray(0, CHUNK), memory.subarray(CHUNK)];
const bufferOf = (turn: number) => (turn === 0 ? buffers[0] : buffers[1]) as Buffer;
const DIRECT = constants.O_DIRECT ?? 0;

class Stop extends Error {}

const failure = (error: unknown, index: number): CopyReply => ({
  ok: false,
  index,
  reason: error instanceof Stop ? 'cancelled' : 'io',
  message: (error as Error).message,
});

const isEinval = (error: unknown) => (error as NodeJS.ErrnoException).code === 'EINVAL';
const roundUp = (n: number) => Math.ceil(n / BLOCK) * BLOCK;

/** One positional write on the thread pool; resolves with the bytes written. */
const writeAt = (fd: number, buffer: Buffer, offset: number, length: number, position: number) =>
  new Promise<number>((resolve, reject) => {
    write(fd, buffer, offset, length, position, (error, n) => (error ? reject(error) : resolve(n)));
  });

/**
 * A file this thread writes: directly to the disk while it can, else through the cache.
 * One write is under way at a time, while the caller prepares the next one.
 */
class Output {
  #fd: number;
  #direct: boolean;
  #pending: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(
    private readonly path: string,
    flags: number,
    direct: boolean,
  ) {
    this.#direct = direct && DIRECT !== 0;
    try {
      this.#fd = openSync(path, flags | (this.#direct ? DIRECT : 0), 0o644);
    } catch (error) {
      if (!this.#direct || !isEinval(error)) throw error;
      this.#direct = false;
      this.#fd = openSync(path, flags, 0o644);
    }
  }

  /** True while writes go to the disk directly (they must then be whole blocks). */
  get direct(): boolean {
    return this.#direct;
  }

  /**
   * Starts writing `length` bytes of `buffer` at `position` once the write before it ended
   * (and throws that one's error); resolves when it started. `buffer` must then stay as it
   * is until the next call (or `finish`) returns.
   */
  async write(buffer: Buffer, length: number, position: number): Promise<void> {
    await this.#pending;
    const started = this.#write(buffer, length, position);
    // Its error is thrown by the next call; it must not count as unhandled before that.
    started.catch(() => {});
    this.#pending = started;
  }

  async #write(buffer: Buffer, length: number, position: number): Promise<void> {
    try {
      await this.#writeAll(buffer, length, position);
    } catch (error) {
      if (!this.#direct || !isEinval(error)) throw error;
      // Refused as unaligned: this file goes on through the page cache.
      closeSync(this.#fd);
      this.#direct = false;
      this.#fd = openSync(this.path, constants.O_WRONLY);
      await this.#writeAll(buffer, length, position);
    }
  }

  async #writeAll(buffer: Buffer, length: number, position: number): Promise<void> {
    for (let done = 0; done < length; ) {
      done += await writeAt(this.#fd, buffer, done, length - done, position + done);
    }
  }

  /** Waits for the last write, cuts the file to `size` bytes if given (after a last block
   * written whole), and closes it. */
  async finish(size?: number): Promise<void> {
    await this.#pending;
    if (size !== undefined) ftruncateSync(this.#fd, size);
    this.close();
  }

  /** Closes the file (after a write still under way); never throws. */
  async abandon(): Promise<void> {
    await this.#pending.catch(() => {});
    this.close();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.#fd);
  }
}

async function pack(
  request: Extract<CopyRequest, { op: 'pack' }>,
  cancelled: Int32Array,
): Promise<CopyReply> {
  const out = new Output(request.archive, constants.O_WRONLY, request.direct);
  const sums: number[] = [];
  // A buffer fills with headers, bytes and padding, and is written whenever it is full
  // (every write is then whole blocks at a block-aligned offset) while the other fills.
  let turn = 0;
  let buffer = bufferOf(0);
  let fill = 0;
  let at = request.at;
  const flush = async () => {
    await out.write(buffer, fill, at);
    at += fill;
    fill = 0;
    turn = 1 - turn;
    buffer = bufferOf(turn);
  };
  let index = -1;
  try {
    for (const entry of request.entries) {
      index += 1;
      if (fill + entry.header.byteLength > CHUNK) await flush();
      buffer.set(entry.header, fill);
      fill += entry.header.byteLength;
      const source = openSync(entry.source, 'r');
      let sum = 0;
      try {
        for (let done = 0; done < entry.size; ) {
          if (Atomics.load(cancelled, 0) !== 0) throw new Stop('cancelled');
          if (fill === CHUNK) await flush();
          const n = readSync(source, buffer, fill, Math.min(CHUNK - fill, entry.size - done), done);
          if (n === 0) throw new Error(`the file ends ${entry.size - done} bytes early`);
          sum = crc32(buffer.subarray(fill, fill + n), sum);
          fill += n;
          done += n;
        }
      } finally {
        closeSync(source);
      }
      sums.push(sum);
      // Fill started block-aligned, so the padding never runs past the buffer.
      const pad = roundUp(fill) - fill;
      buffer.fill(0, fill, fill + pad);
      fill += pad;
    }
    if (fill > 0) await flush();
    await out.finish();
  } catch (error) {
    await out.abandon();
    return failure(error, index);
  }
  return { ok: true, sums, end: at };
}

/**
 * The archive import reads: directly from the disk while it can, else through the cache.
 * Read through the cache, an archive that is not in it (export wrote it directly) comes in
 * at about half the disk's speed; read directly, the disk's own speed, and a chunk is read
 * while the one before it is written.
 */
class Input {
  #fd: number;
  #direct: boolean;

  constructor(
    private readonly path: string,
    direct: boolean,
  ) {
    this.#direct = direct && DIRECT !== 0;
    try {
      this.#fd = openSync(path, constants.O_RDONLY | (this.#direct ? DIRECT : 0));
    } catch (error) {
      if (!this.#direct || !isEinval(error)) throw error;
      this.#direct = false;
      this.#fd = openSync(path, constants.O_RDONLY);
    }
  }

  /**
   * Reads up to `length` bytes (at most a chunk) at `position` into `buffer`; 0 at the end.
   * A direct read asks for whole blocks (the bytes after `length` are not returned).
   */
  read(buffer: Buffer, length: number, position: number): number {
    if (this.#direct) {
      try {
        return Math.min(readSync(this.#fd, buffer, 0, roundUp(length), position), length);
      } catch (error) {
        if (!isEinval(error)) throw error;
        // Refused as unaligned: the rest is read through the page cache.
        closeSync(this.#fd);
        this.#direct = false;
        this.#fd = openSync(this.path, constants.O_RDONLY);
      }
    }
    return readSync(this.#fd, buffer, 0, length, position);
  }

  close(): void {
    closeSync(this.#fd);
  }
}

async function unpack(
  request: Extract<CopyRequest, { op: 'unpack' }>,
  cancelled: Int32Array,
): Promise<CopyReply> {
  const input = new Input(request.archive, request.direct);
  const sums: number[] = [];
  const create = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;
  let turn = 0;
  try {
    for (const [index, entry] of request.entries.entries()) {
      let sum = 0;
      try {
        mkdirSync(dirname(entry.target), { recursive: true });
        const out = new Output(entry.target, create, request.direct);
        try {
          for (let done = 0; done < entry.size; ) {
            if (Atomics.load(cancelled, 0) !== 0) throw new Stop('cancelled');
            // The other buffer may still be being written; this one is free.
            const buffer = bufferOf(turn);
            turn = 1 - turn;
            const n = input.read(buffer, Math.min(CHUNK, entry.size - done), entry.offset + done);
            if (n === 0) throw new Error(`the archive ends ${entry.size - done} bytes early`);
            sum = crc32(buffer.subarray(0, n), sum);
            // A direct write is whole blocks: the last one is padded, then cut back.
            const length = out.direct ? roundUp(n) : n;
            buffer.fill(0, n, length);
            await out.write(buffer, length, done);
            done += n;
          }
          await out.finish(entry.size % BLOCK !== 0 ? entry.size : undefined);
        } finally {
          await out.abandon();
        }
      } catch (error) {
        return failure(error, index);
      }
      sums.push(sum);
      if (sum !== entry.sum) {
        return { ok: false, index, reason: 'checksum', message: 'does not match its checksum' };
      }
    }
  } finally {
    input.close();
  }
  return { ok: true, sums, end: 0 };
}

parentPort?.on('message', async (request: CopyRequest) => {
  const cancelled = new Int32Array(request.cancel);
  let reply: CopyReply;
  try {
    reply =
      request.op === 'pack' ? await pack(request, cancelled) : await unpack(request, cancelled);
  } catch (error) {
    reply = failure(error, -1);
  }
  parentPort?.postMessage(reply);
});
