import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { S3PutWriter, S3Writer } from './s3-writers';
import {
  checkVersion,
  type ObjectBackend,
  type ObjectWriter,
  SizeLimitExceeded,
  type StoredObject,
  SWEEP_GRACE_MS,
  VersionGone,
} from './types';

/** Settings of the S3 backend (the hosted storage service's `STORAGE_S3_*`, `AWS_*`). */
export interface S3BackendSettings {
  bucket: string;
  endpoint: string | null;
  region: string;
  forcePathStyle: boolean;
  accessKeyId: string | null;
  secretAccessKey: string | null;
}

const MIN_PART = 8 * 1024 * 1024;
/** S3's most parts in one upload. */
const MAX_PARTS = 10_000;
/** Parts of 8 MiB, or larger when `limit` bytes would not fit in S3's 10,000 parts. */
const partSize = (limit: number) => Math.max(MIN_PART, Math.ceil(limit / (MAX_PARTS - 1)));
const QUEUE = 4;
/** S3's largest single PutObject. */
const PUT_MAX = 5 * 1024 ** 3;
/** Largest single CopyObject; bigger objects are copied part by part. */
const COPY_MAX = 5 * 1024 ** 3;
const COPY_PART = 1024 ** 3;
/** S3's smallest part but for the last one, copied parts included. */
const S3_MIN_PART = 5 * 1024 * 1024;

const notFound = (error: unknown) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
};

/**
 * Object bytes are sent as `UNSIGNED-PAYLOAD`: the SDK would otherwise sha256 every part to
 * sign it over http (and the store hash it again to check), a second pass over each byte
 * on both sides for what TCP's and TLS's own checks cover. Documents (XML, strings) stay
 * signed.
 */
function unsignedPayload(request: unknown): void {
  const r = request as { headers?: Record<string, string>; body?: unknown };
  const stream = typeof (r.body as { pipe?: unknown } | undefined)?.pipe === 'function';
  if (r.headers && (ArrayBuffer.isView(r.body) || stream))
    r.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
}

/**
 * The client's log, silent as the SDK's default is: without a logger of its own, the SDK
 * prints a warning on every failed streamed PUT (a client that went away mid-upload). Its
 * errors reach the request that made the call.
 */
const QUIET = { debug() {}, info() {}, warn() {}, error() {} };

/** A client of the store; payloads go unsigned, and no checksum is added or checked. */
function s3Client(settings: S3BackendSettings): S3Client {
  const client = new S3Client({
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    logger: QUIET,
    // No CRC32 of every part sent (which the store then checks again) and none checked on
    // reads: the bytes' md5 is ours (Meter) or the store's own (a single PUT's ETag). With both hashes (and the signed
    // payload below) an upload straight to radosgw ran at 57 MiB/s on two cores, without
    // them at 92. S3 operations that require a checksum (DeleteObjects) still get one.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.accessKeyId && settings.secretAccessKey
      ? {
          credentials: {
            accessKeyId: settings.accessKeyId,
            secretAccessKey: settings.secretAccessKey,
          },
        }
      : {}),
  });
  client.middlewareStack.add(
    (next) => (args) => {
      unsignedPayload(args.request);
      return next(args);
    },
    { step: 'build', name: 'unsignedPayload' },
  );
  return client;
}

/**
 * The body of a GET as a web stream, the store's chunks enqueued as they come (up to 1 MiB
 * queued, the response paused beyond): one stream layer, where the SDK's
 * `transformToWebStream` read through a second one cost a promise per 64 KiB chunk.
 */
function rangeStream(get: () => Promise<{ Body?: unknown }>): ReadableStream<Uint8Array> {
  let body: Readable | null = null;
  let cancelled = false;
  return new ReadableStream<Uint8Array>(
    {
      start: async (controller) => {
        const source = (await get()).Body as Readable;
        body = source;
        if (cancelled) {
          source.destroy();
          return;
        }
        source.on('data', (chunk: Buffer) => {
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) source.pause();
        });
        source.once('end', () => controller.close());
        source.once('error', (error) => controller.error(error));
      },
      pull: () => {
        body?.resume();
      },
      cancel: () => {
        cancelled = true;
        body?.destroy();
      },
    },
    { highWaterMark: 1 << 20, size: (chunk) => chunk.byteLength },
  );
}

/**
 * Object bytes in an S3-compatible bucket, as `objects/<version>`. Writes stream straight
 * to their key (multipart for large ones, `@aws-sdk/lib-storage`); the metadata row commits
 * after the upload completed, and a sweep removes keys no row references. Reads are ranged
 * GETs streamed through; copies are server-side.
 */
export class S3Backend implements ObjectBackend {
  readonly kind = 's3';
  readonly client: S3Client;
  onRemove: ((version: string) => Promise<void>) | null = null;

  constructor(readonly settings: S3BackendSettings) {
    this.client = s3Client(settings);
  }

  keyOf(version: string): string {
    return `objects/${checkVersion(version)}`;
  }

  /** Checks that the bucket answers (a missing bucket or bad credentials stop the start). */
  async init(): Promise<void> {
    await this.client.send(
      new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: 'objects/', MaxKeys: 1 }),
    );
  }

  /** A streamed upload of `body` to `key` (one PUT, or multipart past a part's size). */
  uploadStream(key: string, body: Readable, limit: number): Upload {
    return new Upload({
      client: this.client,
      params: { Bucket: this.settings.bucket, Key: key, Body: body },
      partSize: partSize(limit),
      queueSize: QUEUE,
      leavePartsOnError: false,
    });
  }

  /**
   * A body of known length up to S3's largest PUT goes to its key in one streamed PutObject,
   * its md5 the store's ETag (a single PUT's ETag is the md5 of its bytes): no second hash
   * and no part buffers in this process. Others stream through a multipart upload, hashed.
   */
  async createWriter(limit: number, length?: number): Promise<ObjectWriter> {
    if (length !== undefined && length > limit) throw new SizeLimitExceeded();
    if (length !== undefined && length <= PUT_MAX) {
      return new S3PutWriter(this, randomUUID(), length);
    }
    return new S3Writer(this, randomUUID(), limit);
  }

  /**
   * Sends `body`, of exactly `length` bytes, to `key` as one streamed PutObject (the SDK does
   * not retry a streamed body). `signal` aborts it.
   */
  putStream(key: string, body: Readable, length: number, signal?: AbortSignal) {
    return this.client.send(
      new PutObjectCommand({
        Bucket: this.settings.bucket,
        Key: key,
        Body: body,
        ContentLength: length,
      }),
      signal ? { abortSignal: signal } : {},
    );
  }

  /**
   * Streams a finished local file (an import's) to the version's key, one PUT up to 5 GiB,
   * then removes it.
   */
  async adoptFile(path: string, version: string): Promise<void> {
    const { size } = await stat(path);
    const key = this.keyOf(version);
    if (size <= PUT_MAX) await this.putStream(key, createReadStream(path), size);
    else await this.uploadStream(key, createReadStream(path), size).done();
    await rm(path, { force: true });
  }

  async open(version: string): Promise<StoredObject> {
    const key = this.keyOf(version);
    const head = await this.client
      .send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: key }))
      .catch((error) => {
        throw notFound(error) ? new VersionGone(version) : error;
      });
    const size = head.ContentLength ?? 0;
    const stream = (start: number, length: number): ReadableStream<Uint8Array> => {
      if (length <= 0) return new ReadableStream({ start: (c) => c.close() });
      return rangeStream(() =>
        this.client.send(
          new GetObjectCommand({
            Bucket: this.settings.bucket,
            Key: key,
            Range: `bytes=${start}-${start + length - 1}`,
          }),
        ),
      );
    };
    return { size, stream, close: async () => {} };
  }

  async exists(version: string): Promise<boolean> {
    try {
      await this.client.send(
        new HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(version) }),
      );
      return true;
    } catch (error) {
      if (notFound(error)) return false;
      throw error;
    }
  }

  localPath(): null {
    return null;
  }

  async remove(version: string): Promise<void> {
    await this.client.send(
      new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(version) }),
    );
    await this.onRemove?.(version);
  }

  /** Deletes whatever an unfinished write left at a version's key (errors ignored). */
  async removeKey(version: string): Promise<void> {
    await this.client
      .send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(version) }))
      .catch(() => {});
  }

  /** Server-side copy (part by part past 5 GiB, the limit of one CopyObject). */
  async copy(from: string, to: string): Promise<void> {
    const { size } = await this.open(from);
    if (size > COPY_MAX) return this.#assemble(to, [{ version: from, size }]);
    await this.client.send(
      new CopyObjectCommand({
        Bucket: this.settings.bucket,
        Key: this.keyOf(to),
        CopySource: this.#source(from),
      }),
    );
  }

  /**
   * Joins objects, in order, into `to` inside the store (UploadPartCopy: no byte goes
   * through this server). S3 wants every part but the last of 5 MiB or more: false, and
   * nothing done, when an object with bytes but the last is smaller, or none has any.
   *
   * @example await backend.join([{ version: a, size: 6 << 20 }, { version: b, size: 10 }], c)
   */
  async join(from: { version: string; size: number }[], to: string): Promise<boolean> {
    const parts = from.filter((p) => p.size > 0);
    if (parts.length === 0 || parts.slice(0, -1).some((p) => p.size < S3_MIN_PART)) return false;
    if (parts.reduce((n, p) => n + Math.ceil(p.size / COPY_PART), 0) > MAX_PARTS) return false;
    await this.#assemble(to, parts);
    return true;
  }

  #source(version: string): string {
    return encodeURI(`${this.settings.bucket}/${this.keyOf(version)}`);
  }

  /**
   * A multipart upload at `to`'s key made of `sources` copied in order, each in even ranges
   * of at most COPY_PART (so over half of it when there are several); aborted on failure.
   */
  async #assemble(to: string, sources: { version: string; size: number }[]): Promise<void> {
    const Bucket = this.settings.bucket;
    const Key = this.keyOf(to);
    const { UploadId } = await this.client.send(new CreateMultipartUploadCommand({ Bucket, Key }));
    try {
      const parts: { ETag?: string; PartNumber: number }[] = [];
      for (const { version, size } of sources) {
        const CopySource = this.#source(version);
        const step = Math.ceil(size / Math.ceil(size / COPY_PART));
        for (let at = 0; at < size; at += step) {
          const PartNumber = parts.length + 1;
          const { CopyPartResult } = await this.client.send(
            new UploadPartCopyCommand({
              Bucket,
              Key,
              UploadId,
              PartNumber,
              CopySource,
              CopySourceRange: `bytes=${at}-${Math.min(size, at + step) - 1}`,
            }),
          );
          parts.push({ ETag: CopyPartResult?.ETag, PartNumber });
        }
      }
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket,
          Key,
          UploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
    } catch (error) {
      await this.client
        .send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId }))
        .catch(() => {});
      throw error;
    }
  }

  /** Whether a tus upload of `version` has a record (tus-s3-store.ts): its collector's then. */
  async #tusUpload(version: string): Promise<boolean> {
    const Key = `tus/${version}.json`;
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key }));
      return true;
    } catch (error) {
      if (notFound(error)) return false;
      throw error;
    }
  }

  /**
   * Removes keys no row references and abandoned multipart uploads, older than `graceMs`;
   * those of a tus upload that still has a record are left to the tus collector.
   */
  async sweep(referenced: ReadonlySet<string>, graceMs = SWEEP_GRACE_MS): Promise<number> {
    const Bucket = this.settings.bucket;
    const before = Date.now() - graceMs;
    let removed = 0;
    let ContinuationToken: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket, Prefix: 'objects/', ContinuationToken }),
      );
      for (const item of page.Contents ?? []) {
        const version = item.Key?.slice('objects/'.length) ?? '';
        if (referenced.has(version) || (item.LastModified?.getTime() ?? before) >= before) continue;
        if (await this.#tusUpload(version)) continue;
        await this.client.send(new DeleteObjectCommand({ Bucket, Key: item.Key }));
        removed++;
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    const uploads = await this.client.send(
      new ListMultipartUploadsCommand({ Bucket, Prefix: 'objects/' }),
    );
    for (const u of uploads.Uploads ?? []) {
      if ((u.Initiated?.getTime() ?? before) >= before) continue;
      if (await this.#tusUpload(u.Key?.slice('objects/'.length) ?? '')) continue;
      await this.client
        .send(new AbortMultipartUploadCommand({ Bucket, Key: u.Key, UploadId: u.UploadId }))
        .catch(() => {});
      removed++;
    }
    return removed;
  }
}
