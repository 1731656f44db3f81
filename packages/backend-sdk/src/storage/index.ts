/**
 * `@app/backend-sdk/storage` — buckets, objects and resumable uploads.
 */
import type { Fetch, Http } from '../http/index';
import { UploadError } from '../tus/errors';
import type { TusFetch } from '../tus/protocol';
import { loadNode } from '../tus/source';
import { BucketApi } from './buckets';
import { FileApi } from './file-api';

export type { FileBody, TransferProgress } from './body';
export type { Bucket, BucketOptions } from './buckets';
export { StorageError } from './errors';
export { FileApi } from './file-api';
export type {
  DownloadOptions,
  FileInfo,
  FileObject,
  FileOptions,
  SortBy,
  TransformOptions,
  UrlOptions,
} from './file-types';
export type { StorageResult } from './request';

/**
 * tus requests through the client's HTTP layer: `apikey` and a fresh `Authorization` on every
 * request, never retried here (the upload engine has its own policy). In Node they go
 * through the layer's `node:http` transport, which streams file ranges from disk, unless the
 * client has a fetch of its own, which gets bodies it can send.
 */
const tusFetchFor =
  (http: Http): TusFetch =>
  async (url, init) => {
    const target = new URL(url);
    const path = url.startsWith(http.url)
      ? url.slice(http.url.length)
      : `${target.pathname}${target.search}`;
    const node = await loadNode();
    return http.send({
      method: init.method,
      path,
      headers: init.headers,
      body: (node && http.options.fetch ? await node.forFetch(init.body) : init.body) as BodyInit,
      transport: node?.nodeFetch as Fetch | undefined,
      signal: init.signal,
      timeout: init.timeout || undefined,
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
