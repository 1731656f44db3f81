import { randomUUID } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Meter, type ObjectWriter, SWEEP_GRACE_MS } from './types';

const FLUSH_AT = 1 << 20;
const READ_CHUNK = 1 << 20;

/** fsyncs a directory (after a rename into it). */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * The storage directory's local files, whatever the object backend: `<root>/tmp` (uploads
 * being received by the file backend) and `<root>/tus` (resumable uploads, shared by the
 * replicas). The file backend keeps object bytes beside them (backends/disk.ts).
 */
export class DiskStore {
  readonly tmp: string;
  /** Where resumable (tus) uploads keep their partial files. */
  readonly tus: string;

  constructor(readonly root: string) {
    this.tmp = join(root, 'tmp');
    this.tus = join(root, 'tus');
  }

  async init(): Promise<void> {
    for (const dir of [this.tmp, this.tus]) await mkdir(dir, { recursive: true });
  }

  /**
   * A new temp file that counts, hashes (md5) and limits what is written to it, to become
   * a new version: `adopt(path, version)` puts it in place.
   */
  async createTemp(
    limit: number,
    adopt: (path: string, version: string) => Promise<void>,
  ): Promise<TempFile> {
    const path = join(this.tmp, randomUUID());
    return new TempFile(path, await open(path, 'wx'), limit, adopt);
  }

  /** fsyncs a file written by someone else (the tus store) before it is adopted. */
  async syncFile(path: string): Promise<void> {
    const handle = await open(path, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  /** Removes temp files untouched for `graceMs` (a younger one may be another replica's). */
  async sweepTemp(graceMs = SWEEP_GRACE_MS): Promise<number> {
    const before = Date.now() - graceMs;
    let removed = 0;
    for (const name of await readdir(this.tmp)) {
      const path = join(this.tmp, name);
      if (((await stat(path).catch(() => null))?.mtimeMs ?? before) >= before) continue;
      await rm(path, { force: true, recursive: true });
      removed++;
    }
    return removed;
  }
}

/** A file being written: batched writes, md5 and size as it goes, fsync at the end. */
export class TempFile implements ObjectWriter {
  readonly version = randomUUID();
  private readonly meter: Meter;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private closed = false;

  constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    limit: number,
    private readonly adopt: (path: string, version: string) => Promise<void>,
  ) {
    this.meter = new Meter(limit);
  }

  async write(chunk: Uint8Array): Promise<void> {
    const buffer = this.meter.add(chunk);
    this.pending.push(buffer);
    this.pendingBytes += buffer.byteLength;
    if (this.pendingBytes >= FLUSH_AT) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const buffers = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    await this.handle.writev(buffers);
  }

  /** Flushes, fsyncs and closes; returns the size and the hex md5. */
  async finish(): Promise<{ size: number; md5: string }> {
    await this.flush();
    await this.handle.sync();
    await this.close();
    return this.meter.digest();
  }

  commit(): Promise<void> {
    return this.adopt(this.path, this.version);
  }

  private async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }

  /** Closes and deletes the temp file. */
  async discard(): Promise<void> {
    await this.close().catch(() => {});
    await rm(this.path, { force: true });
  }
}

/** A Web stream of `length` bytes of `handle` from `start`; closes the handle at the end. */
export function fileStream(
  handle: FileHandle,
  start: number,
  length: number,
): ReadableStream<Uint8Array> {
  let position = start;
  let left = length;
  const close = () => handle.close().catch(() => {});
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (left <= 0) {
        await close();
        controller.close();
        return;
      }
      const size = Math.min(READ_CHUNK, left);
      const buffer = Buffer.allocUnsafe(size);
      const { bytesRead } = await handle.read(buffer, 0, size, position);
      if (bytesRead === 0) {
        await close();
        controller.error(new Error('file shorter than its metadata'));
        return;
      }
      position += bytesRead;
      left -= bytesRead;
      controller.enqueue(bytesRead === size ? buffer : buffer.subarray(0, bytesRead));
    },
    cancel: close,
  });
}
