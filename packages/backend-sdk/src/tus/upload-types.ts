/** The options, progress, result and state of a resumable upload. */

import type { UploadError } from './errors';
import type { UrlStore } from './fingerprint';
import type { TusFetch } from './protocol';
import type { ChunkSource } from './source';

/** The chunk size the hosted backend requires for all but the last chunk: 6 MiB. */
export const DEFAULT_CHUNK_SIZE = 6 * 1024 * 1024;

/** Progress of an upload. */
export interface UploadProgress {
  /** Bytes the server has. */
  bytes: number;
  /** Total bytes, `undefined` while a stream's length is unknown. */
  total: number | undefined;
  /** Bytes per second since this run started. */
  rate: number;
}

/** What a finished upload reports. */
export interface UploadResult {
  /** The tus upload URL. */
  url: string;
  /** Path inside the bucket. */
  path: string;
  /** `<bucket>/<path>`. */
  fullPath: string;
  /** Size in bytes. */
  size: number;
}

/** Options of a resumable upload. */
export interface ResumableUploadOptions {
  /** MIME type stored with the object (default: the file's type, else octet-stream). */
  contentType?: string;
  /** `Cache-Control` max-age in seconds (default 3600). */
  cacheControl?: number | string;
  /** User metadata stored with the object. */
  metadata?: Record<string, unknown>;
  /** Overwrite an existing object (default false). */
  upsert?: boolean;
  /** Bytes per request (default 6 MiB, what the hosted backend requires). */
  chunkSize?: number;
  /**
   * Sends a file of several chunks as parts side by side, joined on the server (tus's
   * concatenation extension), where the server offers it; elsewhere (the hosted backend) the
   * file goes up as one upload. Made by `parallelParts(n)` from `@app/backend-sdk/tus`, so
   * apps that do not use it do not ship it. Resuming, pausing and `abort({ terminate })`
   * cover every part.
   *
   * @example
   * import { parallelParts } from '@app/backend-sdk/tus';
   * bucket.uploadResumable('videos/talk.mp4', file, { parallel: parallelParts(3) });
   */
  parallel?: ParallelParts;
  /** Delays (ms) before each retry (default 0, 1000, 3000, 5000). */
  retryDelays?: readonly number[];
  /** Size of a stream, when known; otherwise the length is sent with the last chunk. */
  size?: number;
  /** File name used in the fingerprint (default: the File's name or the stream's path). */
  name?: string;
  /** Where upload URLs are kept for resuming (default: localStorage / memory); false: none. */
  urlStore?: UrlStore | false;
  /** Send the first chunk with the creation request (default true). */
  uploadDataDuringCreation?: boolean;
  /** Token from `createSignedUploadUrl`: uploads to the signed endpoint without a session. */
  signature?: string;
  /** Start right away (default true). */
  autoStart?: boolean;
  onProgress?(progress: UploadProgress): void;
  onChunkComplete?(chunk: { size: number; bytes: number; total: number | undefined }): void;
  onSuccess?(result: UploadResult): void;
  onError?(error: UploadError): void;
  onRetry?(retry: { delay: number; attempt: number; error: UploadError }): void;
}

/** Where a resumable upload goes and how its requests are sent. */
export interface UploadTarget {
  /** `<project>/storage/v1/upload/resumable`. */
  endpoint: string;
  bucket: string;
  path: string;
  fetch: TusFetch;
}

/** State of an upload. */
export type UploadState = 'idle' | 'uploading' | 'paused' | 'done' | 'failed' | 'aborted';

/** How an upload settles: its result, or its error. */
export type Settled = { data: UploadResult; error: null } | { data: null; error: UploadError };

/** What a parallel upload gets from the upload it serves. */
export interface PartsJob {
  fetch: TusFetch;
  endpoint: string;
  /** Headers of every request (e.g. a signed upload's token). */
  headers: Record<string, string>;
  /** Headers of the creation requests: those of every request, metadata, upsert. */
  creation: Record<string, string>;
  source: ChunkSource;
  /** Bytes per request (default 6 MiB). */
  chunkSize: number | undefined;
  /**
   * The upload served: its `url` (the stored value on entry; the engine sets the parts'
   * `final;…` value once they exist, then the final upload's URL) and its `bytes` (the engine
   * keeps the sum over the parts).
   */
  upload: { url: string | undefined; bytes: number };
  signal: AbortSignal;
  /** Called once every part exists (after `upload.url` is set): keeps it in the URL store. */
  created(url: string): void;
  /** Called after `upload.bytes` grew by `chunk` bytes. */
  progress(chunk: number): void;
}

/** Sends uploads as parts side by side (see the `parallel` option). */
export interface ParallelParts {
  /**
   * Sends the parts and joins them; resolves with the final upload's URL, or null when this
   * upload goes up whole (one chunk, a stream, a plain upload under way, or a server without
   * the extension).
   */
  send(job: PartsJob): Promise<string | null>;
}
