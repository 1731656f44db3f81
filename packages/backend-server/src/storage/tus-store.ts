/**
 * Where tus keeps uploads on disk: its record store and file store with our additions, and the
 * startup sweep of the directory.
 */
import { open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { FileConfigstore, FileStore } from '@tus/file-store';
import { ERRORS, Upload } from '@tus/server';
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
  /**
   * A part placed in its final upload's file (tus-concat.ts): that upload's id, where the
   * part starts in it, and the bytes of the part written so far.
   */
  storage_into?: string;
  storage_at?: number;
  storage_written?: number;
  /** A final upload still waiting for its parts: their ids, and its `Upload-Concat`. */
  storage_parts?: string[];
  storage_concat?: string;
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
    this.extensions.push('concatenation', 'concatenation-unfinished');
  }

  /** tus's own check asks for "concatentation"; ours is handled beside it (tus-concat.ts). */
  override hasExtension(extension: string): boolean {
    return extension === 'concatentation' || super.hasExtension(extension);
  }

  override async getUpload(id: string): Promise<Upload> {
    await this.finishing.get(id);
    const finished = this.finished.get(id);
    if (finished) return finished;
    const record = (await this.configstore.get(id)) as (UploadRecord & { id: string }) | undefined;
    // A placed part's bytes are in its final upload's file; a final upload waiting for its
    // parts has no offset to tell (HEAD leaves it out).
    if (record?.storage_into !== undefined || record?.storage_parts !== undefined) {
      return new Upload({
        id,
        size: record.size,
        offset: record.storage_written ?? 0,
        metadata: record.metadata as Upload['metadata'],
        creation_date: record.creation_date,
      });
    }
    return super.getUpload(id);
  }

  /**
   * Terminates an upload. One that became an object (or is becoming one) cannot be: tus's
   * own check would also refuse finished partial uploads, which are still only parts.
   */
  override async remove(id: string): Promise<void> {
    await this.finishing.get(id);
    if (this.finished.has(id)) throw ERRORS.INVALID_TERMINATION;
    const record = (await this.configstore.get(id)) as UploadRecord | undefined;
    // A placed part has no file of its own; a final upload takes its placed parts with it.
    if (record?.storage_into !== undefined) return this.configstore.delete(id);
    for (const part of record?.storage_parts ?? []) await this.configstore.delete(part);
    return super.remove(id);
  }

  /** Deletes an upload's data file (its record stays). */
  async dropData(id: string): Promise<void> {
    if (UUID.test(id)) await rm(join(this.dir, id), { force: true });
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
    const record = (await this.configstore.get(id)) as UploadRecord | undefined;
    const into = record?.storage_into;
    if (into === undefined || !UUID.test(into)) return this.#write(readable, id, offset);
    // A placed part: its bytes go to their place in the final upload's file, and the part's
    // offset is kept in its record (after the bytes are written, also when a write failed).
    const at = record?.storage_at ?? 0;
    let written = offset;
    try {
      written =
        (await this.#write(readable, into, at + offset, (end) => (written = end - at))) - at;
      return written;
    } finally {
      await this.configstore.set(id, { ...record, storage_written: written } as never);
    }
  }

  /**
   * Writes a request's bytes into file `file` at `offset`, batching socket reads into 1 MiB
   * positioned writes (the stock store issues one small write per socket read); one batch is
   * written while the next one arrives. What arrived before an error is kept (`wrote` is told
   * the end of each batch written): the offset of an upload is the size of its file.
   */
  async #write(
    readable: Readable,
    file: string,
    offset: number,
    wrote: (end: number) => void = () => {},
  ): Promise<number> {
    const handle = await open(join(this.dir, file), 'r+');
    let position = offset;
    let pending: Buffer[] = [];
    let bytes = 0;
    let writing: Promise<unknown> = Promise.resolve();
    const flush = (): Promise<unknown> => {
      if (bytes > 0) {
        const buffers = pending;
        const at = position;
        position += bytes;
        const end = position;
        pending = [];
        bytes = 0;
        writing = writing.then(async () => {
          await handle.writev(buffers, at);
          wrote(end);
        });
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
      // A placed part's bytes are in its final upload's file; a final upload waiting for its
      // parts, and complete parts, stay until they expire.
      const into = record?.storage_into;
      const bytes = into ? names.has(`${into}.json`) && names.has(into) : data !== null;
      const waiting = record?.storage_partial || record?.storage_parts;
      if (!record || !bytes || expired || (complete && !waiting)) await drop(id);
    } else if (!names.has(`${name}.json`)) {
      // Data files without a record (a placed part has a record and no data file).
      await rm(join(dir, name), { force: true, recursive: true });
      removed++;
    }
  }
  return removed;
}
