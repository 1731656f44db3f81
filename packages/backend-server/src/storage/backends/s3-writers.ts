import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Upload } from '@aws-sdk/lib-storage';
import type { S3Backend } from './s3';
import { Meter, type ObjectWriter } from './types';

/**
 * A write streamed to the version's key as it arrives: chunks go through a PassThrough
 * (backpressure: a write waits while the upload's buffer is full) into lib-storage's
 * multipart upload; `finish` waits for it to complete.
 */
export class S3Writer implements ObjectWriter {
  private readonly meter: Meter;
  private readonly body = new PassThrough({ highWaterMark: 1 << 20 });
  private readonly upload: Upload;
  private readonly done: Promise<unknown>;
  private failure: unknown = null;
  private finished = false;

  constructor(
    private readonly backend: S3Backend,
    readonly version: string,
    limit: number,
  ) {
    this.meter = new Meter(limit);
    this.upload = backend.uploadStream(backend.keyOf(version), this.body, limit);
    this.done = this.upload.done();
    this.done.catch((error: unknown) => {
      this.failure = error;
      this.body.destroy();
    });
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    const buffer = this.meter.add(chunk);
    if (!this.body.write(buffer)) {
      await Promise.race([once(this.body, 'drain'), this.done]);
      if (this.failure) throw this.failure;
    }
  }

  async finish(): Promise<{ size: number; md5: string }> {
    this.body.end();
    await this.done;
    this.finished = true;
    return this.meter.digest();
  }

  async commit(): Promise<void> {}

  async discard(): Promise<void> {
    if (!this.finished) {
      await this.upload.abort().catch(() => {});
      this.body.destroy();
      await this.done.catch(() => {});
    }
    // Whatever reached the key (a small upload completes as one PUT).
    await this.backend.removeKey(this.version);
  }
}

/** The hex md5 in a single PUT's ETag (`"<md5>"`); a store that answers another form keeps it. */
const md5OfEtag = (etag: string | undefined) => (etag ?? '').replace(/^"|"$/g, '');

/**
 * A write of a known length streamed to the version's key as one PutObject: chunks go
 * through a PassThrough (backpressure as S3Writer) into the request; nothing is hashed
 * here, as the store hashes the bytes of a PUT for its ETag anyway.
 */
export class S3PutWriter implements ObjectWriter {
  private size = 0;
  private readonly body = new PassThrough({ highWaterMark: 1 << 20 });
  private readonly abort = new AbortController();
  private readonly done: Promise<{ ETag?: string }>;
  private failure: unknown = null;
  private finished = false;

  constructor(
    private readonly backend: S3Backend,
    readonly version: string,
    private readonly length: number,
  ) {
    this.done = backend.putStream(backend.keyOf(version), this.body, length, this.abort.signal);
    this.done.catch((error: unknown) => {
      this.failure = error;
      this.body.destroy();
    });
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    this.size += chunk.byteLength;
    if (this.size > this.length) throw new Error(`more than the ${this.length} bytes declared`);
    const buffer = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (!this.body.write(buffer)) {
      await Promise.race([once(this.body, 'drain'), this.done]);
      if (this.failure) throw this.failure;
    }
  }

  async finish(): Promise<{ size: number; md5: string }> {
    if (this.size !== this.length) {
      throw new Error(`${this.size} bytes of the ${this.length} declared`);
    }
    this.body.end();
    const { ETag } = await this.done;
    this.finished = true;
    return { size: this.size, md5: md5OfEtag(ETag) };
  }

  async commit(): Promise<void> {}

  async discard(): Promise<void> {
    if (!this.finished) {
      this.abort.abort();
      this.body.destroy();
      await this.done.catch(() => {});
    }
    await this.backend.removeKey(this.version);
  }
}
