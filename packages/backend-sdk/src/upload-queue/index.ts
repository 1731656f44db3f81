/**
 * `@app/backend-sdk/upload-queue` — a queue of uploads for any UI: order, concurrency,
 * pause / resume / cancel / retry, offline, restore after a reload, progress, rate and ETA.
 * Observable with `subscribe` and `getSnapshot`; how one file is uploaded is up to the app
 * (e.g. the SDK's resumable upload).
 */
export type { Timers } from '../timers';
export { createUploadQueue } from './queue';
export type {
  RestoredUpload,
  UploadControl,
  UploadEntry,
  UploadItem,
  UploadQueue,
  UploadQueueOptions,
  UploadQueueSnapshot,
  UploadRunner,
  UploadState,
} from './types';
