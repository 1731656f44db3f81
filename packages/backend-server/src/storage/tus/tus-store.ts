/**
 * Where tus keeps uploads on disk: its record store and file store with our additions (the
 * collector is tus-sweep.ts).
 */
import { randomUUID } from 'node:crypto';
import { open, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { FileConfigstore, FileStore } from '@tus/file-store';
import { ERRORS, type KvStore, Upload } from '@tus/server';
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
  /** The last byte is written and the object is being committed (since this time). */
  storage_finishing?: string;
  /** It became an object (a part: it was joined into final upload `storage_final`). */
  storage_done?: boolean;
  storage_final?: string;
  /** S3 backend (tus-s3-store.ts): the multipart upload at the version's key, and its end. */
  storage_s3_upload?: string;
  storage_s3_complete?: boolean;
}

/** How long a read waits for another request's commit of an upload (then reads what is). */
const FINISH_WAIT_MS = 30_000;

/** An upload's record once no commit of it is under way (on any replica). */
export async function settled(
  read: (id: string) => Promise<UploadRecord | undefined>,
  id: string,
): Promise<UploadRecord | undefined> {
  const end = Date.now() + FINISH_WAIT_MS;
  let record = await read(id);
  while (record?.storage_finishing && !record.storage_done && Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    record = await read(id);
  }
  return record;
}

/** Marks an upload done (it became an object, or a part of one): its record stays. */
export async function markDone(
  store: KvStore<Upload>,
  id: string,
  fields: Partial<UploadRecord> = {},
): Promise<void> {
  const record = (await store.get(id)) as UploadRecord | undefined;
  const { storage_finishing: _, storage_parts: __, ...rest } = record ?? {};
  await store.set(id, { ...rest, ...fields, storage_done: true } as never);
}

/**
 * tus's record store (a JSON file per upload), read afresh at every request: replicas share
 * the directory, so what one process remembered could be stale. A record is replaced whole
 * (written beside it, then renamed over it), so another replica never reads half of one.
 */
class RecordStore extends FileConfigstore {
  constructor(private readonly dir: string) {
    super(dir);
  }

  /** The record file of upload `key` (an upload id: a version uuid). */
  #path(key: string): string {
    if (!UUID.test(key)) throw ERRORS.FILE_NOT_FOUND;
    return join(this.dir, `${key}.json`);
  }

  override async set(key: string, value: Upload): Promise<void> {
    const path = this.#path(key);
    const temp = join(this.dir, `.${randomUUID()}.tmp`);
    try {
      await writeFile(temp, JSON.stringify(value));
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  override async delete(key: string): Promise<void> {
    await rm(this.#path(key), { force: true });
  }
}

/**
 * The file store of tus, plus: an upload that became an object keeps its record, marked done
 * (`storage_done`), and answers as complete (a HEAD gets its full offset) until it would have
 * expired, so a client that lost the last PATCH's answer (paused, cut off, sent to another
 * replica) learns it is done instead of starting over; and while the object is being
 * committed (`storage_finishing`, set under the lock with the last byte), reads of the upload
 * wait for the commit, so "complete" is never said before the object exists.
 */
export class ObjectFileStore extends FileStore {
  constructor(
    private readonly dir: string,
    expiryMs: number,
  ) {
    super({
      directory: dir,
      configstore: new RecordStore(dir),
      expirationPeriodInMilliseconds: expiryMs,
    });
    this.extensions.push('concatenation', 'concatenation-unfinished');
  }

  /** tus's own check asks for "concatentation"; ours is handled beside it (tus-concat.ts). */
  override hasExtension(extension: string): boolean {
    return extension === 'concatentation' || super.hasExtension(extension);
  }

  /** An upload's record (our fields and tus's), undefined when there is none. */
  async record(id: string): Promise<UploadRecord | undefined> {
    return (await this.configstore.get(id)) as UploadRecord | undefined;
  }

  /** An upload's record once no commit of it is under way (on any replica). */
  settled(id: string): Promise<UploadRecord | undefined> {
    return settled((key) => this.record(key), id);
  }

  /** How many bytes of upload `id` are stored (the size of its file); -1 when it is gone. */
  async held(id: string): Promise<number> {
    if (!UUID.test(id)) return -1;
    return (await stat(join(this.dir, id)).catch(() => null))?.size ?? -1;
  }

  override async getUpload(id: string): Promise<Upload> {
    const record = await this.settled(id);
    // An object now, or a part taken by one: complete. A placed part's bytes are in its final
    // upload's file; a final upload waiting for its parts has no offset to tell (HEAD leaves
    // it out).
    if (
      record?.storage_done ||
      record?.storage_into !== undefined ||
      record?.storage_parts !== undefined
    ) {
      return new Upload({
        id,
        size: record.size,
        offset: record.storage_done ? (record.size ?? 0) : (record.storage_written ?? 0),
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
    const record = await this.settled(id);
    if (record?.storage_done) throw ERRORS.INVALID_TERMINATION;
    // A placed part has no file of its own; a final upload takes its placed parts with it.
    if (record?.storage_into !== undefined) return this.configstore.delete(id);
    for (const part of record?.storage_parts ?? []) await this.configstore.delete(part);
    return super.remove(id);
  }

  /** Deletes an upload's data file (its record stays). */
  async dropData(id: string): Promise<void> {
    if (UUID.test(id)) await rm(join(this.dir, id), { force: true });
  }

  /** Marks an upload done (it became an object, or a part of one): its record stays. */
  markDone(id: string, fields: Partial<UploadRecord> = {}): Promise<void> {
    return markDone(this.configstore, id, fields);
  }

  /**
   * Appends a chunk at `offset`, batching socket reads into 1 MiB positioned writes (the
   * stock store issues one small write per socket read); one batch is written while the next
   * one arrives. What arrived before an error is kept: the offset of an upload is the size of
   * its file.
   */
  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    if (!UUID.test(id)) throw ERRORS.FILE_NOT_FOUND;
    const record = await this.record(id);
    if (record?.storage_done) return offset;
    const into = record?.storage_into;
    if (into === undefined || !UUID.test(into)) {
      const end = await this.#write(readable, id, offset);
      // The last byte of an upload that becomes an object: its commit starts (tus.ts), which
      // other replicas' reads wait for. Marked here, under the upload's lock.
      if (record && !record.storage_partial && record.size === end && end > offset) {
        await this.configstore.set(id, {
          ...record,
          storage_finishing: new Date().toISOString(),
        } as never);
      }
      return end;
    }
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
