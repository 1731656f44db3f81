/**
 * Where tus keeps uploads on the S3 backend: in the bucket, so any replica can go on with any
 * upload and no replica shares a directory with another.
 *
 * - `objects/<id>`: a multipart upload started at creation, straight at the key the object
 *   version will have (upload ids are version uuids), so completing it makes the object's
 *   bytes: nothing is copied at the end.
 * - `tus/<id>.part`: the bytes of a PATCH too small to be a part (S3 wants 5 MiB but for the
 *   last one), until later PATCHes make a part of them; tagged with the part number it
 *   starts, so one left behind by a crash between a part and its clean-up is never counted.
 * - `tus/<id>.json`: tus's record of the upload with our fields (tus-store.ts), read afresh
 *   at every request and replaced whole by each write (S3 is read-after-write consistent).
 *
 * An upload's offset is what S3 says: the sizes of its parts (ListParts) and of its pending
 * bytes. Nothing is kept in memory between requests; requests on one upload are serialised by
 * tus's lock (tus-lock.ts, PostgreSQL advisory locks).
 */
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { DataStore, ERRORS, type KvStore, Upload } from '@tus/server';
import type { S3Backend } from '../backends/s3';
import { UUID } from './tus-ids';
import { markDone, settled, type UploadRecord } from './tus-store';

/** S3's smallest part (but for the last one). */
export const MIN_PART = 5 * 1024 * 1024;
/** S3's most parts in one upload. */
const MAX_PARTS = 10_000;

/** What S3 holds of an unfinished upload: its parts and the part number its pending bytes start. */
interface S3State {
  parts: { PartNumber: number; ETag: string; Size: number }[];
  pending: number;
}

const missing = (error: unknown) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return (
    e.name === 'NoSuchKey' ||
    e.name === 'NotFound' ||
    e.name === 'NoSuchUpload' ||
    e.$metadata?.httpStatusCode === 404
  );
};

/** The records of uploads, `tus/<id>.json` in the bucket. */
class BucketRecords implements KvStore<Upload> {
  constructor(private readonly backend: S3Backend) {}

  key(id: string): string {
    if (!UUID.test(id)) throw ERRORS.FILE_NOT_FOUND;
    return `tus/${id}.json`;
  }

  async get(id: string): Promise<Upload | undefined> {
    try {
      const got = await this.backend.client.send(
        new GetObjectCommand({ Bucket: this.backend.settings.bucket, Key: this.key(id) }),
      );
      return JSON.parse((await got.Body?.transformToString()) ?? 'null') ?? undefined;
    } catch (error) {
      if (missing(error)) return undefined;
      throw error;
    }
  }

  async set(id: string, value: Upload): Promise<void> {
    await this.backend.client.send(
      new PutObjectCommand({
        Bucket: this.backend.settings.bucket,
        Key: this.key(id),
        Body: JSON.stringify(value),
        ContentType: 'application/json',
      }),
    );
  }

  async delete(id: string): Promise<void> {
    await this.backend.client.send(
      new DeleteObjectCommand({ Bucket: this.backend.settings.bucket, Key: this.key(id) }),
    );
  }

  async list(): Promise<string[]> {
    return [];
  }
}

/** The tus data store of the S3 backend (see above). */
export class ObjectS3Store extends DataStore {
  readonly configstore: BucketRecords;
  readonly #bucket: string;
  /** Parts are flushed at this size: 10,000 of them hold the server's largest upload. */
  readonly #partSize: number;

  constructor(
    readonly backend: S3Backend,
    private readonly expiryMs: number,
    largest: number,
  ) {
    super();
    this.configstore = new BucketRecords(backend);
    this.#bucket = backend.settings.bucket;
    this.#partSize = Math.max(8 * 1024 * 1024, Math.ceil(largest / (MAX_PARTS - 1)));
    this.extensions = [
      'creation',
      'creation-with-upload',
      'creation-defer-length',
      'termination',
      'expiration',
      'concatenation',
    ];
  }

  /** tus's own check asks for "concatentation"; ours is handled beside it (tus-concat.ts). */
  override hasExtension(extension: string): boolean {
    return extension === 'concatentation' || super.hasExtension(extension);
  }

  override getExpiration(): number {
    return this.expiryMs;
  }

  pendingKey(id: string): string {
    return `tus/${id}.part`;
  }

  async record(id: string): Promise<UploadRecord | undefined> {
    return (await this.configstore.get(id)) as UploadRecord | undefined;
  }

  settled(id: string): Promise<UploadRecord | undefined> {
    return settled((key) => this.record(key), id);
  }

  markDone(id: string, fields: Partial<UploadRecord> = {}): Promise<void> {
    return markDone(this.configstore, id, fields);
  }

  override async create(upload: Upload): Promise<Upload> {
    const Key = this.backend.keyOf(upload.id);
    const extra: UploadRecord = {};
    if (upload.size === 0) {
      // Nothing to send: the object's bytes are there at once.
      await this.backend.client.send(
        new PutObjectCommand({ Bucket: this.#bucket, Key, Body: Buffer.alloc(0) }),
      );
      extra.storage_s3_complete = true;
    } else {
      const { UploadId } = await this.backend.client.send(
        new CreateMultipartUploadCommand({ Bucket: this.#bucket, Key }),
      );
      extra.storage_s3_upload = UploadId;
    }
    upload.storage = { type: 's3', path: Key, bucket: this.#bucket };
    Object.assign(upload, extra);
    await this.configstore.set(upload.id, upload);
    return upload;
  }

  /** The parts of an unfinished upload and where its pending bytes go; null when it is gone. */
  async state(id: string, record: UploadRecord): Promise<S3State | null> {
    const UploadId = record.storage_s3_upload;
    if (!UploadId) return null;
    const parts: S3State['parts'] = [];
    let PartNumberMarker: string | undefined;
    try {
      do {
        const page = await this.backend.client.send(
          new ListPartsCommand({
            Bucket: this.#bucket,
            Key: this.backend.keyOf(id),
            UploadId,
            PartNumberMarker,
          }),
        );
        for (const p of page.Parts ?? []) {
          parts.push({ PartNumber: p.PartNumber ?? 0, ETag: p.ETag ?? '', Size: p.Size ?? 0 });
        }
        PartNumberMarker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
      } while (PartNumberMarker);
    } catch (error) {
      if (missing(error)) return null;
      throw error;
    }
    parts.sort((a, b) => a.PartNumber - b.PartNumber);
    return { parts, pending: parts.length + 1 };
  }

  /** The pending bytes of an upload for part `pending` (their size, or the bytes themselves). */
  async #pending(id: string, pending: number, read: false): Promise<number>;
  async #pending(id: string, pending: number, read: true): Promise<Buffer | null>;
  async #pending(id: string, pending: number, read: boolean): Promise<number | Buffer | null> {
    const params = { Bucket: this.#bucket, Key: this.pendingKey(id) };
    try {
      if (!read) {
        const head = await this.backend.client.send(new HeadObjectCommand(params));
        return Number(head.Metadata?.part) === pending ? (head.ContentLength ?? 0) : 0;
      }
      const got = await this.backend.client.send(new GetObjectCommand(params));
      if (Number(got.Metadata?.part) !== pending) return null;
      return Buffer.from((await got.Body?.transformToByteArray()) ?? []);
    } catch (error) {
      if (missing(error)) return read ? null : 0;
      throw error;
    }
  }

  /** How many bytes of upload `id` are stored; -1 when it is gone. */
  async held(id: string): Promise<number> {
    try {
      return (await this.getUpload(id)).offset;
    } catch {
      return -1;
    }
  }

  override async getUpload(id: string): Promise<Upload> {
    const record = await this.settled(id);
    if (!record) throw ERRORS.FILE_NOT_FOUND;
    const upload = (offset: number) =>
      new Upload({
        id,
        size: record.size,
        offset,
        metadata: record.metadata as Upload['metadata'],
        creation_date: record.creation_date,
        storage: { type: 's3', path: this.backend.keyOf(id), bucket: this.#bucket },
      });
    if (record.storage_done || record.storage_s3_complete) return upload(record.size ?? 0);
    const state = await this.state(id, record);
    if (!state) throw ERRORS.FILE_NOT_FOUND;
    const sent = state.parts.reduce((sum, p) => sum + p.Size, 0);
    return upload(sent + (await this.#pending(id, state.pending, false)));
  }

  override async declareUploadLength(id: string, size: number): Promise<void> {
    const record = await this.record(id);
    if (!record) throw ERRORS.FILE_NOT_FOUND;
    await this.configstore.set(id, { ...record, size } as never);
  }

  /**
   * Terminates an upload: its multipart upload, pending bytes and record (a finished part's
   * object too). One that became an object (or is becoming one) cannot be.
   */
  override async remove(id: string): Promise<void> {
    const record = await this.settled(id);
    if (!record) throw ERRORS.FILE_NOT_FOUND;
    if (record.storage_done) throw ERRORS.INVALID_TERMINATION;
    await this.dropUpload(id, record);
    await this.configstore.delete(id);
  }

  /** Removes what S3 holds of an upload that did not become an object (its record stays). */
  async dropUpload(id: string, record: UploadRecord): Promise<void> {
    const Key = this.backend.keyOf(id);
    if (record.storage_s3_upload && !record.storage_s3_complete) {
      await this.backend.client
        .send(
          new AbortMultipartUploadCommand({
            Bucket: this.#bucket,
            Key,
            UploadId: record.storage_s3_upload,
          }),
        )
        .catch((error) => {
          if (!missing(error)) throw error;
        });
    }
    // A finished part's bytes (a plain upload's are the object's, or the sweep's to judge).
    if (record.storage_s3_complete && record.storage_partial) {
      await this.backend.client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key }));
    }
    await this.backend.client.send(
      new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.pendingKey(id) }),
    );
  }

  /**
   * Appends a PATCH's bytes at `offset`: with the pending bytes before them, every full part
   * is sent as it fills (at most one part is held in memory); at the end, the rest becomes a
   * part if it is the upload's last bytes or large enough, else the new pending bytes. On the
   * last byte the multipart upload is completed onto the version's key. What arrived before
   * an error is kept the same way.
   */
  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    const record = await this.record(id);
    if (!record) throw ERRORS.FILE_NOT_FOUND;
    if (record.storage_done || record.storage_s3_complete) return offset;
    const state = await this.state(id, record);
    if (!state) throw ERRORS.FILE_NOT_FOUND;
    const Key = this.backend.keyOf(id);
    const UploadId = record.storage_s3_upload;
    const { parts } = state;
    const before = await this.#pending(id, state.pending, true);
    let chunks: Buffer[] = before ? [before] : [];
    let bytes = before?.length ?? 0;
    let sent = parts.reduce((sum, p) => sum + p.Size, 0);
    const flush = async () => {
      const Body = Buffer.concat(chunks, bytes);
      const PartNumber = parts.length + 1;
      const { ETag } = await this.backend.client.send(
        new UploadPartCommand({ Bucket: this.#bucket, Key, UploadId, PartNumber, Body }),
      );
      parts.push({ PartNumber, ETag: ETag ?? '', Size: bytes });
      sent += bytes;
      chunks = [];
      bytes = 0;
    };
    let failure: unknown = null;
    try {
      for await (const chunk of readable) {
        chunks.push(chunk as Buffer);
        bytes += (chunk as Buffer).byteLength;
        if (bytes >= this.#partSize) await flush();
      }
    } catch (error) {
      failure = error;
    }
    const end = sent + bytes;
    const last = record.size !== undefined && end >= record.size;
    try {
      if (last || bytes >= MIN_PART) {
        if (bytes > 0 || parts.length === 0) await flush();
      } else if (bytes > 0 && end > offset) {
        await this.backend.client.send(
          new PutObjectCommand({
            Bucket: this.#bucket,
            Key: this.pendingKey(id),
            Body: Buffer.concat(chunks, bytes),
            Metadata: { part: String(parts.length + 1) },
          }),
        );
      }
      if (last) {
        await this.backend.client.send(
          new CompleteMultipartUploadCommand({
            Bucket: this.#bucket,
            Key,
            UploadId,
            MultipartUpload: { Parts: parts.map(({ PartNumber, ETag }) => ({ PartNumber, ETag })) },
          }),
        );
        // The commit starts (tus.ts), which other replicas' reads wait for.
        await this.configstore.set(id, {
          ...record,
          storage_s3_complete: true,
          ...(record.storage_partial ? {} : { storage_finishing: new Date().toISOString() }),
        } as never);
      }
      if (bytes === 0 && before) {
        await this.backend.client
          .send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.pendingKey(id) }))
          .catch(() => {});
      }
    } catch (error) {
      failure ??= error;
    }
    if (failure) throw failure;
    return end;
  }
}
