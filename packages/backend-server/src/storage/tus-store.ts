/**
 * Where tus keeps uploads on disk: its record store and file store with our additions, and the
 * startup sweep of the directory.
 */
import { open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { FileConfigstore, FileStore } from '@tus/file-store';
import { ERRORS, type Upload } from '@tus/server';
import { UUID } from './tus-ids';

const WRITE_BATCH = 1 << 20;

/** What we keep beside tus's own record of an upload (in the same JSON file). */
export interface UploadRecord {
  metadata?: Record<string, string | null>;
  size?: number;
  creation_date?: string;
  storage_upsert?: boolean;
  /** A part of a later concatenation (`Upload-Concat: partial`): it never becomes an object. */
  storage_partial?: boolean;
}

/**
 * tus's record store (a JSON file per upload), with each record's text also kept in memory
 * once read or written: every PATCH reads the record three times (our access check, the size
 * limit, tus itself), and each file read is several thread-pool round trips. This process is
 * the only one writing the directory; the files stay the truth across restarts.
 */
class CachedFileKvStore extends FileConfigstore {
  readonly #texts = new Map<string, string>();
  /** Bumped by every write, so a read that raced one does not cache what it read. */
  #writes = 0;

  override async get(key: string): Promise<Upload | undefined> {
    const text = this.#texts.get(key);
    if (text !== undefined) return JSON.parse(text) as Upload;
    const writes = this.#writes;
    const value = await super.get(key);
    if (value !== undefined && writes === this.#writes) this.#texts.set(key, JSON.stringify(value));
    return value;
  }

  override async set(key: string, value: Upload): Promise<void> {
    const text = JSON.stringify(value);
    this.#writes++;
    this.#texts.delete(key);
    await super.set(key, value);
    this.#texts.set(key, text);
  }

  override async delete(key: string): Promise<void> {
    this.#writes++;
    this.#texts.delete(key);
    await super.delete(key);
  }
}

/** How many finished uploads keep answering HEAD as complete (the oldest go first). */
const FINISHED_KEPT = 10_000;

/**
 * The file store of tus, plus: an upload that became an object keeps answering as complete
 * (a HEAD gets its full offset) until it would have expired, so a client that lost the
 * last PATCH's answer (paused, cut off) learns it is done instead of starting over; and
 * while the object is being committed, reads of the upload wait for the commit, so
 * "complete" is never said before the object exists.
 */
export class ObjectFileStore extends FileStore {
  readonly finished = new Map<string, Upload>();
  readonly finishing = new Map<string, Promise<void>>();

  constructor(
    private readonly dir: string,
    expiryMs: number,
  ) {
    super({
      directory: dir,
      configstore: new CachedFileKvStore(dir),
      expirationPeriodInMilliseconds: expiryMs,
    });
    this.extensions.push('concatenation');
  }

  /** tus's own check asks for "concatentation"; ours is handled beside it (tus-concat.ts). */
  override hasExtension(extension: string): boolean {
    return extension === 'concatentation' || super.hasExtension(extension);
  }

  override async getUpload(id: string): Promise<Upload> {
    await this.finishing.get(id);
    return this.finished.get(id) ?? super.getUpload(id);
  }

  /**
   * Terminates an upload. One that became an object (or is becoming one) cannot be: tus's
   * own check would also refuse finished partial uploads, which are still only parts.
   */
  override async remove(id: string): Promise<void> {
    await this.finishing.get(id);
    if (this.finished.has(id)) throw ERRORS.INVALID_TERMINATION;
    return super.remove(id);
  }

  /** Remembers a finished upload as complete for `keepMs`. */
  keepFinished(upload: Upload, keepMs: number) {
    this.finished.delete(upload.id);
    this.finished.set(upload.id, upload);
    for (const id of this.finished.keys()) {
      if (this.finished.size <= FINISHED_KEPT) break;
      this.finished.delete(id);
    }
    setTimeout(() => {
      if (this.finished.get(upload.id) === upload) this.finished.delete(upload.id);
    }, keepMs).unref();
  }

  /**
   * Appends a chunk at `offset`, batching socket reads into 1 MiB positioned writes (the
   * stock store issues one small write per socket read); one batch is written while the next
   * one arrives. What arrived before an error is kept: the offset of an upload is the size of
   * its file.
   */
  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    if (!UUID.test(id)) throw ERRORS.FILE_NOT_FOUND;
    const handle = await open(join(this.dir, id), 'r+');
    let position = offset;
    let pending: Buffer[] = [];
    let bytes = 0;
    let writing: Promise<unknown> = Promise.resolve();
    const flush = (): Promise<unknown> => {
      if (bytes > 0) {
        const buffers = pending;
        const at = position;
        position += bytes;
        pending = [];
        bytes = 0;
        writing = writing.then(() => handle.writev(buffers, at));
        // Awaited before the next batch or at the end; handled now so it is never unhandled.
        writing.catch(() => {});
      }
      return writing;
    };
    try {
      for await (const chunk of readable) {
        pending.push(chunk as Buffer);
        bytes += (chunk as Buffer).byteLength;
        if (bytes >= WRITE_BATCH) {
          await writing;
          void flush();
        }
      }
      await flush();
    } catch (error) {
      await flush().catch(() => {});
      throw error;
    } finally {
      await handle.close();
    }
    return position;
  }
}

/**
 * Startup sweep of the tus directory: records whose bytes are gone, expired uploads, and
 * complete uploads that never became objects (a crash between the last byte and the commit)
 * are removed, as are data files without a record. Complete partial uploads stay until they
 * expire: a final upload may still take them.
 */
export async function sweepTus(dir: string, expiryMs: number): Promise<number> {
  const names = new Set(await readdir(dir));
  let removed = 0;
  const drop = async (id: string) => {
    await rm(join(dir, id), { force: true });
    await rm(join(dir, `${id}.json`), { force: true });
    removed++;
  };
  for (const name of names) {
    if (name.endsWith('.json')) {
      const id = name.slice(0, -5);
      let record: UploadRecord | null = null;
      try {
        record = JSON.parse(await readFile(join(dir, name), 'utf8')) as UploadRecord;
      } catch {}
      const data = names.has(id) ? await stat(join(dir, id)).catch(() => null) : null;
      const created = record?.creation_date ? Date.parse(record.creation_date) : 0;
      const expired = expiryMs > 0 && Date.now() > created + expiryMs;
      const complete = record?.size !== undefined && data !== null && data.size >= record.size;
      if (!record || !data || expired || (complete && !record.storage_partial)) await drop(id);
    } else if (!names.has(`${name}.json`)) {
      await rm(join(dir, name), { force: true, recursive: true });
      removed++;
    }
  }
  return removed;
}
