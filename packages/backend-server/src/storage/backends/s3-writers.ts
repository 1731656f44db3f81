import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Upload } from '@aws-sdk/lib-storage';
import type { S3Backend } from './s3';
import { asBuffer, Meter, type ObjectWriter } from './types';

/** The body of one request to the store, fed as the upload arrives. */
const newBody = () => new PassThrough({ highWaterMark: 1 << 20 });

/**
 * Feeds `body` to the request that is sending it (`done`): `push` waits while the request's
 * buffer is full (backpressure) and throws once the request failed (the body destroyed).
 */
class BodyFeed<T> {
  private failure: unknown = null;

  constructor(
    readonly body: PassThrough,
    readonly done: Promise<T>,
  ) {
    done.catch((error: unknown) => {
      this.failure = error;
      body.destroy();
    });
  }

  async push(buffer: Buffer): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.body.write(buffer)) {
      await Promise.race([once(this.body, 'drain'), this.done]);
      if (this.failure) throw this.failure;
    }
  }

  /** Ends the body; the store's answer. */
  end(): Promise<T> {
    this.body.end();
    return this.done;
  }

  /** Drops the body; settles once the request has. */
  async stop(): Promise<void> {
    this.body.destroy();
    await this.done.catch(() => {});
  }
}

/**
 * A write streamed to the version's key as it arrives, hashed (Meter), through lib-storage's
 * multipart upload; `finish` waits for it to complete.
 */
export class S3Writer implements ObjectWriter {
  private readonly meter: Meter;
  private readonly upload: Upload;
  private readonly feed: BodyFeed<unknown>;
  private finished = false;

  constructor(
    private readonly backend: S3Backend,
    readonly version: string,
    limit: number,
  ) {
    this.meter = new Meter(limit);
    const body = newBody();
    this.upload = backend.uploadStream(backend.keyOf(version), body, limit);
    this.feed = new BodyFeed(body, this.upload.done());
  }

  async write(chunk: Uint8Array): Promise<void> {
    await this.feed.push(this.meter.add(chunk));
  }

  async finish(): Promise<{ size: number; md5: string }> {
    await this.feed.end();
    this.finished = true;
    return this.meter.digest();
  }

  async commit(): Promise<void> {}

  async discard(): Promise<void> {
    if (!this.finished) {
      await this.upload.abort().catch(() => {});
      await this.feed.stop();
    }
    // Whatever reached the key (a small upload completes as one PUT).
    await this.backend.removeKey(this.version);
  }
}

/** The hex md5 in a single PUT's ETag (`"<md5>"`); a store that answers another form keeps it. */
const md5OfEtag = (etag: string | undefined) => (etag ?? '').replace(/^"|"$/g, '');

/**
 * A write of a known length streamed to the version's key as one PutObject. Nothing is
 * hashed here: the store hashes the bytes of a PUT for its ETag anyway.
 */
export class S3PutWriter implements ObjectWriter {
  private size = 0;
  private readonly abort = new AbortController();
  private readonly feed: BodyFeed<{ ETag?: string }>;
  private finished = false;

  constructor(
    private readonly backend: S3Backend,
    readonly version: string,
    private readonly length: number,
  ) {
    const body = newBody();
    const key = backend.keyOf(version);
    this.feed = new BodyFeed(body, backend.putStream(key, body, length, this.abort.signal));
  }

  async write(chunk: Uint8Array): Promise<void> {
    this.size += chunk.byteLength;
    if (this.size > this.length) throw new Error(`more than the ${this.length} bytes declared`);
    await this.feed.push(asBuffer(chunk));
  }

  async finish(): Promise<{ size: number; md5: string }> {
    if (this.size !== this.length) {
      throw new Error(`${this.size} bytes of the ${this.length} declared`);
    }
    const { ETag } = await this.feed.end();
    this.finished = true;
    return { size: this.size, md5: md5OfEtag(ETag) };
  }

  async commit(): Promise<void> {}

  async discard(): Promise<void> {
    if (!this.finished) {
      this.abort.abort();
      await this.feed.stop();
    }
    await this.backend.removeKey(this.version);
  }
}
