/**
 * `@app/backend-sdk/storage` — buckets, objects and resumable uploads.
 */
import type { Http } from '../http/index';
import { UploadError } from '../tus/errors';
import type { TusFetch } from '../tus/protocol';
import { BucketApi } from './buckets';
import { FileApi } from './file-api';

export type { FileBody, TransferProgress } from './body';
export type { Bucket, BucketOptions } from './buckets';
export { StorageError } from './errors';
export type { FileInfo, FileObject, FileOptions, SortBy, TransformOptions } from './file-api';
export { FileApi } from './file-api';
export type { StorageResult } from './request';

/**
 * tus requests through the client's HTTP layer: `apikey` and a fresh `Authorization` on every
 * request, never retried here (the upload engine has its own policy).
 */
const tusFetchFor =
  (http: Http): TusFetch =>
  (url, init) => {
    const target = new URL(url);
    const path = url.startsWith(http.url)
      ? url.slice(http.url.length)
      : `${target.pathname}${target.search}`;
    return http.send({
      method: init.method,
      path,
      headers: init.headers,
      // In Node, fetch copies a byte-array body but sends a stream's chunks as they are, so a
      // one-chunk stream keeps the chunk from being held twice. (Browsers stream request
      // bodies only over HTTP/2: there the bytes go as they are.)
      body: (init.body &&
      typeof window === 'undefined' &&
      (globalThis as { process?: unknown }).process
        ? (ReadableStream as unknown as { from(x: unknown[]): ReadableStream }).from([init.body])
        : (init.body ?? null)) as BodyInit | null,
      signal: init.signal,
      ...(init.timeout ? { timeout: init.timeout } : {}),
      retry: false,
      error: (message, options) => new UploadError(message, options),
    });
  };

/**
 * The storage client: bucket calls, and `from(bucket)` for objects.
 *
 * @example
 * const { data, error } = await client.storage.from('avatars').upload('me.png', file);
 */
export class StorageClient extends BucketApi {
  readonly #tusFetch: TusFetch;

  constructor(http: Http) {
    super(http);
    this.#tusFetch = tusFetchFor(http);
  }

  /** Objects of one bucket. */
  from(bucket: string): FileApi {
    return new FileApi(this.http, bucket, this.#tusFetch);
  }
}
