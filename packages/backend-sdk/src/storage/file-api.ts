/** The object API of one bucket: `client.storage.from(bucket)`. */
import type { Http } from '../http/index';
import { base64Utf8, type TusFetch } from '../tus/protocol';
import type { UploadSource } from '../tus/source';
import { ResumableUpload, type ResumableUploadOptions } from '../tus/upload';
import { bodyType, type FileBody, type TransferProgress, toBody } from './body';
import { StorageError } from './errors';
import { encodePath, type StorageResult, storageJson, storageSend } from './request';

/** Options of `upload`, `update` and `uploadToSignedUrl`. */
export interface FileOptions {
  /** `Cache-Control` max-age in seconds (default 3600). */
  cacheControl?: string | number;
  /** MIME type (default: the Blob's type, text for strings, else octet-stream). */
  contentType?: string;
  /** Overwrite an existing object (default false). */
  upsert?: boolean;
  /** User metadata stored with the object. */
  metadata?: Record<string, unknown>;
  /** Called as bytes are sent. */
  onUploadProgress?: (progress: TransferProgress) => void;
  signal?: AbortSignal;
}

/** Image transformation options (served by `/render/image`). */
export interface TransformOptions {
  width?: number;
  height?: number;
  resize?: 'cover' | 'contain' | 'fill';
  format?: 'origin' | 'avif' | 'webp';
  quality?: number;
}

/** A file or folder entry of `list()`. */
export interface FileObject {
  name: string;
  id: string | null;
  updated_at: string | null;
  created_at: string | null;
  last_accessed_at: string | null;
  metadata: Record<string, unknown> | null;
}

/** What `info()` returns (camel-cased). */
export interface FileInfo {
  id: string;
  name: string;
  version?: string;
  bucketId: string;
  size: number;
  contentType: string;
  cacheControl: string;
  etag: string;
  metadata: Record<string, unknown> | null;
  lastModified: string;
  createdAt: string;
}

/** Sorting of `list()`. */
export interface SortBy {
  column: 'name' | 'updated_at' | 'created_at' | 'last_accessed_at';
  order: 'asc' | 'desc';
}

const query = (entries: Record<string, unknown>): string =>
  Object.entries(entries)
    .filter(([, v]) => v !== undefined && v !== false)
    .map(([k, v]) => (v === true ? `${k}=` : `${k}=${encodeURIComponent(String(v))}`))
    .join('&');

const downloadQuery = (download: string | boolean | undefined) =>
  download === undefined || download === false
    ? {}
    : { download: download === true ? '' : download };

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

  #get(path: string, options: { transform?: TransformOptions; signal?: AbortSignal }) {
    const render = options.transform && Object.keys(options.transform).length > 0;
    return storageSend(this.#http, {
      path: `/${render ? 'render/image/authenticated' : 'object'}/${this.#key(path)}`,
      query: query({ ...options.transform }),
      signal: options.signal ?? null,
    });
  }

  /** Downloads an object as a Blob (optionally transformed). */
  async download(
    path: string,
    options: { transform?: TransformOptions; signal?: AbortSignal } = {},
  ): Promise<StorageResult<Blob>> {
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

  /** Downloads an object as a stream of bytes, without buffering it. */
  async downloadStream(
    path: string,
    options: { transform?: TransformOptions; signal?: AbortSignal } = {},
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

  /** A time-limited URL that downloads the object without a session. */
  createSignedUrl(
    path: string,
    expiresIn: number,
    options: { download?: string | boolean; transform?: TransformOptions } = {},
  ): Promise<StorageResult<{ signedUrl: string }>> {
    return this.#post(
      `/object/sign/${this.#key(path)}`,
      { expiresIn, transform: options.transform },
      (r: { signedURL: string }) => ({ signedUrl: this.#absolute(r.signedURL, options.download) }),
    );
  }

  /** Signed URLs for several objects; entries the caller may not see carry an `error`. */
  createSignedUrls(
    paths: string[],
    expiresIn: number,
    options: { download?: string | boolean } = {},
  ): Promise<
    StorageResult<Array<{ path: string | null; signedUrl: string | null; error: string | null }>>
  > {
    return this.#post(
      `/object/sign/${this.#bucket}`,
      { expiresIn, paths },
      (rows: Array<{ path: string | null; signedURL: string | null; error: string | null }>) =>
        rows.map((r) => ({
          ...r,
          signedUrl: r.signedURL ? this.#absolute(r.signedURL, options.download) : null,
        })),
    );
  }

  #absolute(relative: string, download: string | boolean | undefined): string {
    const extra = query(downloadQuery(download));
    return `${this.#http.url}/storage/v1${relative}${extra ? `${relative.includes('?') ? '&' : '?'}${extra}` : ''}`;
  }

  /** The URL of an object in a public bucket (no request is made). */
  getPublicUrl(
    path: string,
    options: { download?: string | boolean; transform?: TransformOptions } = {},
  ): { data: { publicUrl: string } } {
    const render = options.transform && Object.keys(options.transform).length > 0;
    const q = query({ ...options.transform, ...downloadQuery(options.download) });
    const base = `${this.#http.url}/storage/v1/${render ? 'render/image' : 'object'}/public/${this.#key(path)}`;
    return { data: { publicUrl: q ? `${base}?${q}` : base } };
  }
}
