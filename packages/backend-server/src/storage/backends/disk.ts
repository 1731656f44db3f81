import { mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type DiskStore, fileStream, fsyncDir } from './storage-dir';
import {
  checkVersion,
  type ObjectBackend,
  type ObjectWriter,
  type StoredObject,
  SWEEP_GRACE_MS,
  VersionGone,
} from './types';

/**
 * Object bytes in the storage directory (the default), under `<root>/objects/<xx>/<version>`:
 * files are named by version uuid only, so no object key can name a path. New bytes go to
 * `<root>/tmp`, are fsynced and renamed into place before the metadata row commits.
 */
export class FileBackend implements ObjectBackend {
  readonly kind = 'file';
  readonly objects: string;
  onRemove: ((version: string) => Promise<void>) | null = null;

  constructor(private readonly dir: DiskStore) {
    this.objects = join(dir.root, 'objects');
  }

  async init(): Promise<void> {
    await mkdir(this.objects, { recursive: true });
  }

  /** The file of an object version. Throws for anything that is not a version uuid. */
  pathOf(version: string): string {
    return join(this.objects, checkVersion(version).slice(0, 2), version);
  }

  createWriter(limit: number): Promise<ObjectWriter> {
    return this.dir.createTemp(limit, (path, version) => this.adoptFile(path, version));
  }

  /** Moves a complete, fsynced file into place as `version` (directory fsynced). */
  async adoptFile(path: string, version: string): Promise<void> {
    const target = this.pathOf(version);
    const shard = join(this.objects, version.slice(0, 2));
    await mkdir(shard, { recursive: true });
    await rename(path, target);
    await fsyncDir(shard);
  }

  /**
   * Opens a version; the open handle keeps the bytes readable even if the version is
   * replaced meanwhile.
   */
  async open(version: string): Promise<StoredObject> {
    const handle = await open(this.pathOf(version), 'r').catch((error) => {
      throw (error as NodeJS.ErrnoException).code === 'ENOENT' ? new VersionGone(version) : error;
    });
    const { size } = await handle.stat();
    return {
      size,
      stream: (start, length) => fileStream(handle, start, length),
      close: () => handle.close().catch(() => {}),
    };
  }

  async exists(version: string): Promise<boolean> {
    return (await stat(this.pathOf(version)).catch(() => null)) !== null;
  }

  localPath(version: string): string {
    return this.pathOf(version);
  }

  async remove(version: string): Promise<void> {
    await unlink(this.pathOf(version)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    await this.onRemove?.(version);
  }

  /** Copies a version's bytes to a new version (temp file, fsync, rename). */
  async copy(from: string, to: string): Promise<void> {
    const source = await this.open(from);
    const temp = await this.dir.createTemp(Number.MAX_SAFE_INTEGER, (path) =>
      this.adoptFile(path, to),
    );
    try {
      for await (const chunk of source.stream(
        0,
        source.size,
      ) as unknown as AsyncIterable<Uint8Array>)
        await temp.write(chunk);
      await temp.finish();
      await temp.commit();
    } catch (error) {
      await temp.discard();
      throw error;
    } finally {
      await source.close();
    }
  }

  /**
   * Removes temp files and every object file no row references (left by a crash between
   * rename and commit, or between commit and removal), once untouched for `graceMs`.
   */
  async sweep(referenced: ReadonlySet<string>, graceMs = SWEEP_GRACE_MS): Promise<number> {
    let removed = await this.dir.sweepTemp(graceMs);
    const before = Date.now() - graceMs;
    for (const shard of await readdir(this.objects)) {
      const dir = join(this.objects, shard);
      for (const name of await readdir(dir).catch(() => [] as string[])) {
        const path = join(dir, name);
        if (referenced.has(name)) continue;
        if (((await stat(path).catch(() => null))?.mtimeMs ?? before) >= before) continue;
        await rm(path, { force: true, recursive: true });
        removed++;
      }
    }
    return removed;
  }
}
