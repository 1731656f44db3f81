import { createHash, type Hash, randomUUID } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** How long a file nothing references must sit untouched before a startup sweep removes it. */
export const SWEEP_GRACE_MS = 10 * 60_000;

const VERSION = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FLUSH_AT = 1 << 20;
const READ_CHUNK = 1 << 20;

/** Raised when a write goes past its size limit. */
export class SizeLimitExceeded extends Error {}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * The bytes of stored objects, under `<root>/objects/<xx>/<version>`: files are named by
 * version uuid only, so no object key can name a path. New bytes go to `<root>/tmp`, are
 * fsynced and renamed into place before the metadata row commits.
 */
export class DiskStore {
  readonly objects: string;
  readonly tmp: string;
  /** Where resumable (tus) uploads keep their partial files. */
  readonly tus: string;
  /** Called for every version whose bytes were removed (the render cache drops its variants). */
  onRemove: ((version: string) => Promise<void>) | null = null;

  constructor(readonly root: string) {
    this.objects = join(root, 'objects');
    this.tmp = join(root, 'tmp');
    this.tus = join(root, 'tus');
  }

  async init(): Promise<void> {
    for (const dir of [this.objects, this.tmp, this.tus]) await mkdir(dir, { recursive: true });
  }

  /** The file of an object version. Throws for anything that is not a version uuid. */
  pathOf(version: string): string {
    if (!VERSION.test(version)) throw new Error(`not a version id: ${version}`);
    return join(this.objects, version.slice(0, 2), version);
  }

  /** A new temp file that counts, hashes (md5) and limits what is written to it. */
  async createTemp(limit: number): Promise<TempFile> {
    const path = join(this.tmp, randomUUID());
    return new TempFile(this, path, await open(path, 'wx'), limit);
  }

  /** Moves a complete, fsynced file into place as `version`. */
  async adopt(path: string, version: string): Promise<void> {
    const target = this.pathOf(version);
    const dir = join(this.objects, version.slice(0, 2));
    await mkdir(dir, { recursive: true });
    await rename(path, target);
    await fsyncDir(dir);
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

  /** Removes a version's bytes (no error when they are already gone). */
  async remove(version: string): Promise<void> {
    await unlink(this.pathOf(version)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    await this.onRemove?.(version);
  }

  /** Copies a version's bytes to a new version (temp file, fsync, rename). */
  async copy(from: string, to: string): Promise<void> {
    const source = await open(this.pathOf(from), 'r');
    const temp = await this.createTemp(Number.MAX_SAFE_INTEGER);
    try {
      const buffer = Buffer.allocUnsafe(READ_CHUNK);
      for (;;) {
        const { bytesRead } = await source.read(buffer, 0, READ_CHUNK, null);
        if (bytesRead === 0) break;
        await temp.write(Buffer.from(buffer.subarray(0, bytesRead)));
      }
      await temp.finish();
      await temp.commit(to);
    } catch (error) {
      await temp.discard();
      throw error;
    } finally {
      await source.close();
    }
  }

  /**
   * Opens a version for reading; the open handle keeps the bytes readable even if the
   * version is replaced meanwhile. Rejects with ENOENT when it is gone.
   */
  openVersion(version: string): Promise<FileHandle> {
    return open(this.pathOf(version), 'r');
  }

  /**
   * Startup sweep: removes temp files and every object file no row references (left by a
   * crash between rename and commit, or between commit and removal), once untouched for
   * `graceMs`: with a storage directory shared by replicas, a younger file may be another
   * replica's upload in flight.
   */
  async sweep(referenced: ReadonlySet<string>, graceMs = SWEEP_GRACE_MS): Promise<number> {
    const before = Date.now() - graceMs;
    const stale = async (path: string) =>
      ((await stat(path).catch(() => null))?.mtimeMs ?? before) < before;
    let removed = 0;
    for (const name of await readdir(this.tmp)) {
      const path = join(this.tmp, name);
      if (!(await stale(path))) continue;
      await rm(path, { force: true, recursive: true });
      removed++;
    }
    for (const shard of await readdir(this.objects)) {
      const dir = join(this.objects, shard);
      for (const name of await readdir(dir).catch(() => [] as string[])) {
        const path = join(dir, name);
        if (referenced.has(name) || !(await stale(path))) continue;
        await rm(path, { force: true, recursive: true });
        removed++;
      }
    }
    return removed;
  }
}

/** A file being written: batched writes, md5 and size as it goes, fsync at the end. */
export class TempFile {
  size = 0;
  private readonly hash: Hash = createHash('md5');
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private closed = false;

  constructor(
    private readonly store: DiskStore,
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly limit: number,
  ) {}

  /** Appends bytes; throws SizeLimitExceeded past the limit. */
  async write(chunk: Uint8Array): Promise<void> {
    this.size += chunk.byteLength;
    if (this.size > this.limit) throw new SizeLimitExceeded();
    const buffer = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.hash.update(buffer);
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
    return { size: this.size, md5: this.hash.digest('hex') };
  }

  /** Renames the finished file into place as `version`. */
  commit(version: string): Promise<void> {
    return this.store.adopt(this.path, version);
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
