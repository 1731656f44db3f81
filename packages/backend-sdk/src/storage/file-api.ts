/** The object API of one bucket: `client.storage.from(bucket)`. */
import type { Http } from '../http/index';
import { base64Utf8, type TusFetch } from '../tus/protocol';
import type { UploadSource } from '../tus/source';
import { ResumableUpload, type ResumableUploadOptions } from '../tus/upload';
import { bodyType, type FileBody, toBody } from './body';
import { StorageError } from './errors';
import type {
  DownloadOptions,
  FileInfo,
  FileObject,
  FileOptions,
  SortBy,
  UrlOptions,
} from './file-types';
import { encodePath, type StorageResult, storageJson, storageSend } from './request';
import { query, urlQuery, wantsTransform } from './urls';

const NOT_FOUND = 'Either the object does not exist or you do not have access to it';

const camel = (info: Record<string, unknown>): FileInfo =>
  Object.fromEntries(
    Object.entries(info).map(([k, v]) => [
      k.replace(/_(\w)/g, (_, c: string) => c.toUpperCase()),
      v,
    ]),
  ) as unknown as FileInfo;

/** Objects of one bucket. */
export class FileApi {
  readonly #http: Http;
  readonly #tusFetch: TusFetch;
  readonly #bucket: string;

  constructor(
    http: Http,
    readonly bucketId: string,
    tusFetch: TusFetch,
  ) {
    this.#bucket = encodeURIComponent(bucketId);
    this.#http = http;
    this.#tusFetch = tusFetch;
  }

  /** A JSON request to storage (`path` below `/storage/v1`). */
  #post<T>(
    path: string,
    json: unknown,
    map?: (body: never) => T,
    method = 'POST',
  ): Promise<StorageResult<T>> {
    return storageJson(this.#http, { method, path, json }, map);
  }

  #key(path: string): string {
    return `${this.#bucket}/${encodePath(path)}`;
  }

  #send(
    method: string,
    path: string,
    body: FileBody,
    options: FileOptions,
    /** The signed-upload token query (`x-upsert` goes with uploads and signed uploads). */
    query?: string,
  ): Promise<StorageResult<{ id: string; path: string; fullPath: string }>> {
    const headers: Record<string, string> =
      method === 'POST' || query ? { 'x-upsert': String(options.upsert ?? false) } : {};
    const cacheControl = String(options.cacheControl ?? 3600);
    const metadata = options.metadata && JSON.stringify(options.metadata);
    if (typeof FormData !== 'undefined' && body instanceof FormData) {
      // A multipart form goes as it is (fetch sets its type), with the options as fields.
      if (!body.has('cacheControl')) body.append('cacheControl', cacheControl);
      if (metadata && !body.has('metadata')) body.append('metadata', metadata);
    } else {
      headers['Content-Type'] = options.contentType ?? bodyType(body);
      headers['Cache-Control'] = `max-age=${cacheControl}`;
      if (metadata) headers['x-metadata'] = base64Utf8(metadata);
    }
    return storageJson(
      this.#http,
      {
        method,
        path,
        query,
        headers,
        body: toBody(body, options.onUploadProgress),
        signal: options.signal ?? null,
      },
      (r: { Id?: string; Key: string }) => ({
        id: r.Id ?? '',
        path: r.Key.slice(this.bucketId.length + 1),
        fullPath: r.Key,
      }),
    );
  }

  /**
   * Uploads a file in one request (use `uploadResumable` for large files).
   *
   * @example
   * const { data, error } = await client.storage.from('docs').upload('a/b.txt', 'hello', {
   *   onUploadProgress: ({ loaded, total }) => console.log(loaded, total),
   * });
   */
  upload(path: string, body: FileBody, options: FileOptions = {}) {
    return this.#send('POST', `/object/${this.#key(path)}`, body, options);
  }

  /** Replaces an existing object. */
  update(path: string, body: FileBody, options: FileOptions = {}) {
    return this.#send('PUT', `/object/${this.#key(path)}`, body, options);
  }

  /** Uploads with a token from `createSignedUploadUrl` (no session needed). */
  async uploadToSignedUrl(path: string, token: string, body: FileBody, options: FileOptions = {}) {
    const r = await this.#send(
      'PUT',
      `/object/upload/sign/${this.#key(path)}`,
      body,
      options,
      `token=${encodeURIComponent(token)}`,
    );
    return r.error ? r : { data: { path: r.data.path, fullPath: r.data.fullPath }, error: null };
  }

  /** A URL and token that let anyone upload this one path for a short while. */
  createSignedUploadUrl(
    path: string,
    options: { upsert?: boolean } = {},
  ): Promise<StorageResult<{ signedUrl: string; path: string; token: string }>> {
    return storageJson(
      this.#http,
      {
        method: 'POST',
        path: `/object/upload/sign/${this.#key(path)}`,
        headers: options.upsert ? { 'x-upsert': 'true' } : {},
        json: {},
      },
      (r: { url: string; token?: string }) => ({
        signedUrl: `${this.#http.url}/storage/v1${r.url}`,
        path,
        token: r.token ?? new URL(r.url, 'http://x').searchParams.get('token') ?? '',
      }),
    );
  }

  /**
   * Starts a resumable (tus) upload and returns its controller.
   *
   * @example
   * const upload = client.storage.from('videos').uploadResumable('trip.mp4', file);
   * const { data, error } = await upload.result;
   */
  uploadResumable(
    path: string,
    data: UploadSource,
    options: ResumableUploadOptions = {},
  ): ResumableUpload {
    const endpoint = `${this.#http.url}/storage/v1/upload/resumable${options.signature ? '/sign' : ''}`;
    return new ResumableUpload(
      { endpoint, bucket: this.bucketId, path: path.replace(/^\/+/, ''), fetch: this.#tusFetch },
      data,
      options,
    );
  }

  #get(path: string, options: DownloadOptions) {
    const render = wantsTransform(options.transform);
    return storageSend(this.#http, {
      path: `/${render ? 'render/image/authenticated' : 'object'}/${this.#key(path)}`,
      query: query(urlQuery(options, false)),
      signal: options.signal ?? null,
    });
  }

  /**
   * Downloads an object as a Blob; with `transform`, the transformed image (same access
   * rules: row level security on the object).
   *
   * @example
   * const { data: blob } = await files.download('a.pdf');
   * const { data: thumb } = await files.download('cat.jpg', {
   *   transform: { width: 200, height: 200 },
   * });
   */
  async download(path: string, options: DownloadOptions = {}): Promise<StorageResult<Blob>> {
    const { res, error } = await this.#get(path, options);
    if (error) return { data: null, error };
    try {
      return { data: await res.blob(), error: null };
    } catch (cause) {
      return {
        data: null,
        error: new StorageError('Download interrupted', { code: 'network_error', cause }),
      };
    }
  }

  /** Downloads an object (or, with `transform`, its transformed image) as a stream of bytes. */
  async downloadStream(
    path: string,
    options: DownloadOptions = {},
  ): Promise<StorageResult<ReadableStream<Uint8Array>>> {
    const { res, error } = await this.#get(path, options);
    if (error) return { data: null, error };
    return { data: res.body ?? new Blob([]).stream(), error: null };
  }

  /** Metadata of one object. */
  info(path: string): Promise<StorageResult<FileInfo>> {
    return storageJson(this.#http, { path: `/object/info/${this.#key(path)}` }, camel);
  }

  /** Whether the object exists (and the caller may see it). */
  async exists(path: string): Promise<StorageResult<boolean>> {
    const { res, error } = await storageSend(this.#http, {
      method: 'HEAD',
      path: `/object/${this.#key(path)}`,
    });
    if (res) return { data: true, error: null };
    if (
      error.statusCode === '404' ||
      error.code === 'NoSuchKey' ||
      (error.status === 400 && !error.code)
    ) {
      return { data: false, error: null };
    }
    return { data: null, error };
  }

  /** Lists a folder (files and sub-folders; folders have `id: null`). */
  list(
    prefix = '',
    options: { limit?: number; offset?: number; sortBy?: SortBy; search?: string } = {},
  ): Promise<StorageResult<FileObject[]>> {
    return this.#post(`/object/list/${this.#bucket}`, {
      limit: 100,
      offset: 0,
      sortBy: { column: 'name', order: 'asc' },
      ...options,
      prefix,
    });
  }

  /** Lists with cursor paging (`hasNext`, `nextCursor`). */
  listV2(
    options: {
      prefix?: string;
      limit?: number;
      cursor?: string;
      with_delimiter?: boolean;
      sortBy?: { column: 'name' | 'updated_at' | 'created_at'; order?: 'asc' | 'desc' };
    } = {},
  ): Promise<
    StorageResult<{
      hasNext: boolean;
      nextCursor?: string;
      folders: Array<{ name: string; key?: string }>;
      objects: Array<FileObject & { key?: string }>;
    }>
  > {
    return this.#post(`/object/list-v2/${this.#bucket}`, options);
  }

  /** Deletes objects; the result lists those actually deleted. */
  remove(paths: string[]): Promise<StorageResult<FileObject[]>> {
    return this.#post(`/object/${this.#bucket}`, { prefixes: paths }, undefined, 'DELETE');
  }

  /** Moves (renames) an object, optionally to another bucket. */
  move(from: string, to: string, options: { destinationBucket?: string } = {}) {
    return this.#post(
      '/object/move',
      { bucketId: this.bucketId, sourceKey: from, destinationKey: to, ...options },
      (r: { message: string }) => r,
    );
  }

  /** Copies an object, optionally to another bucket. */
  copy(from: string, to: string, options: { destinationBucket?: string } = {}) {
    return this.#post(
      '/object/copy',
      { bucketId: this.bucketId, sourceKey: from, destinationKey: to, ...options },
      (r: { Key: string }) => ({ path: r.Key }),
    );
  }

  /**
   * A time-limited URL that serves the object without a session; with `transform`, a
   * `/render/image/sign/…` URL whose token carries the transformation (it cannot be changed
   * in the URL).
   *
   * @example
   * const { data } = await files.createSignedUrl('cat.jpg', 3600, {
   *   transform: { width: 200, height: 200 },
   * });
   */
  createSignedUrl(
    path: string,
    expiresIn: number,
    options: UrlOptions = {},
  ): Promise<StorageResult<{ signedUrl: string }>> {
    const transform = wantsTransform(options.transform) ? options.transform : undefined;
    return this.#post(
      `/object/sign/${this.#key(path)}`,
      { expiresIn, transform },
      (r: { signedURL: string }) => ({
        signedUrl: this.#absolute(r.signedURL, options),
      }),
    );
  }

  /**
   * Signed URLs for several objects; entries the caller may not see carry an `error`. With
   * `transform`, each path is signed on its own (the batch endpoint signs plain URLs only).
   *
   * @example
   * const { data } = await files.createSignedUrls(['a.jpg', 'b.jpg'], 3600, {
   *   transform: { width: 120, height: 120 },
   * });
   */
  async createSignedUrls(
    paths: string[],
    expiresIn: number,
    options: UrlOptions = {},
  ): Promise<
    StorageResult<Array<{ path: string | null; signedUrl: string | null; error: string | null }>>
  > {
    if (wantsTransform(options.transform)) return this.#signEach(paths, expiresIn, options);
    return this.#post(
      `/object/sign/${this.#bucket}`,
      { expiresIn, paths },
      (rows: Array<{ path: string | null; signedURL: string | null; error: string | null }>) =>
        rows.map((r) => ({
          ...r,
          signedUrl: r.signedURL ? this.#absolute(r.signedURL, options) : null,
        })),
    );
  }

  async #signEach(paths: string[], expiresIn: number, options: UrlOptions) {
    type Entry = {
      error: string | null;
      path: string | null;
      signedURL: string | null;
      signedUrl: string | null;
    };
    const out: Entry[] = [];
    for (let i = 0; i < paths.length; i += 8) {
      const batch = paths.slice(i, i + 8);
      const results = await Promise.all(
        batch.map((p) =>
          this.#post(
            `/object/sign/${this.#key(p)}`,
            { expiresIn, transform: options.transform },
            (r: { signedURL: string }) => r.signedURL,
          ),
        ),
      );
      for (const [j, r] of results.entries()) {
        // A path that does not exist (or is hidden) is an entry's error, as in the batch
        // answer; anything else (network, auth) fails the call.
        if (r.error && r.error.code !== 'NoSuchKey') return { data: null, error: r.error };
        out.push({
          error: r.error ? NOT_FOUND : null,
          path: batch[j] ?? null,
          signedURL: r.data,
          signedUrl: r.data === null ? null : this.#absolute(r.data, options),
        });
      }
    }
    return { data: out, error: null };
  }

  #absolute(relative: string, options: UrlOptions): string {
    const extra = query({ download: urlQuery(options).download, cacheNonce: options.cacheNonce });
    return `${this.#http.url}/storage/v1${relative}${extra ? `${relative.includes('?') ? '&' : '?'}${extra}` : ''}`;
  }

  /**
   * The URL of an object in a public bucket (no request is made); with `transform`, the
   * `/render/image/public/…` URL of the transformed image.
   *
   * @example
   * const { data } = files.getPublicUrl('cat.jpg', { transform: { width: 200, height: 200 } });
   * // data.publicUrl: …/storage/v1/render/image/public/<bucket>/cat.jpg?width=200&height=200
   */
  getPublicUrl(path: string, options: UrlOptions = {}): { data: { publicUrl: string } } {
    const render = wantsTransform(options.transform);
    const q = query(urlQuery(options));
    const base = `${this.#http.url}/storage/v1/${render ? 'render/image' : 'object'}/public/${this.#key(path)}`;
    return { data: { publicUrl: q ? `${base}?${q}` : base } };
  }
}
