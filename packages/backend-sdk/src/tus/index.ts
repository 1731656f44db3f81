/**
 * `@app/backend-sdk/tus` — the resumable upload engine (tus 1.0.0), importable alone.
 */
export { UploadError } from './errors';
export {
  defaultUrlStore,
  fileUrlStore,
  fingerprint,
  localStorageUrlStore,
  memoryUrlStore,
  type UrlStore,
} from './fingerprint';
export { type ParallelPartsOptions, parallelParts } from './parallel';
export { encodeMetadata, type TusFetch } from './protocol';
export { UploadQueue } from './queue';
export { DEFAULT_RETRY_DELAYS, isRetryable } from './retry';
export { type ChunkSource, openSource, type SourceInfo, type UploadSource } from './source';
export {
  DEFAULT_CHUNK_SIZE,
  type ParallelParts,
  type PartsJob,
  ResumableUpload,
  type ResumableUploadOptions,
  type UploadProgress,
  type UploadResult,
  type UploadState,
  type UploadTarget,
} from './upload';
