/**
 * Types of the upload queue: its items and their states, what `run` gets to report, the
 * options of {@link createUploadQueue}, the queue's methods and its snapshot.
 */
import type { Timers } from '../timers';

/**
 * State of one upload.
 *
 * @example
 * const busy = (state: UploadState) => state === 'uploading' || state === 'retrying';
 */
export type UploadState = 'queued' | 'uploading' | 'paused' | 'retrying' | 'failed' | 'done';

/**
 * One upload as the queue shows it. Replaced (never mutated) on every change.
 *
 * @example
 * const percent = (item: UploadItem) =>
 *   item.size ? Math.round((item.bytesUploaded / item.size) * 100) : 100;
 */
export interface UploadItem<TResult = unknown> {
  /** Queue-local id. */
  id: string;
  /**
   * The bytes to send; null for an upload restored after a reload until the app gives the
   * file again ({@link UploadQueue.provideFile}).
   */
  file: Blob | null;
  /** File name (a `File`'s name, or the one given to `add`). */
  name: string;
  /** Bytes in total. */
  size: number;
  /** Where the file goes (e.g. a folder id), as given to `add`. */
  target: unknown;
  state: UploadState;
  /** Bytes the server has. */
  bytesUploaded: number;
  /** Recent rate in bytes per second, or 0 when unknown. */
  rate: number;
  /** Seconds left at the recent rate, or null when unknown. */
  etaSeconds: number | null;
  /**
   * Why it is paused: the user, the network going away, or a reload (restored with
   * {@link UploadQueue.restore}: it resumes once it has its file again).
   */
  pausedBy: 'user' | 'offline' | 'reload' | null;
  /** When the next retry starts (epoch ms), while `state` is `'retrying'`. */
  retryAt: number | null;
  /** The failure, while `state` is `'failed'`. */
  error: unknown;
  /** What `run` resolved with, once `done`. */
  result: TResult | null;
  /** The app's own data for this upload (given to `add`/`restore`, or set by `run`). */
  meta: unknown;
}

/**
 * One file to queue, with where it goes and the app's data (see {@link UploadQueue.add}).
 *
 * @example
 * queue.add([{ file, name: 'report.pdf', target: folderId, meta: { handle } }]);
 */
export interface UploadEntry {
  file: Blob;
  /** Default: the file's name. */
  name?: string;
  /** Default: the `target` given to `add`. */
  target?: unknown;
  meta?: unknown;
}

/**
 * An unfinished upload to list again after a reload (see {@link UploadQueue.restore}).
 *
 * @example
 * queue.restore([{ name: 'film.mov', size: 100, bytesUploaded: 40, meta: { fileId } }]);
 */
export interface RestoredUpload {
  name: string;
  size: number;
  target?: unknown;
  /** Bytes the server had when it was last heard of. */
  bytesUploaded?: number;
  meta?: unknown;
}

/**
 * What `run` gets to report and to stop.
 *
 * @example
 * const run: UploadRunner<string> = async (item, control) => {
 *   control.signal.addEventListener('abort', () => upload.pause());
 *   control.onProgress(0, item.size);
 *   return 'done';
 * };
 */
export interface UploadControl {
  /** Aborted on pause, cancel or going offline; `signal.reason` is `'pause'`, `'cancel'` or `'offline'`. */
  signal: AbortSignal;
  /** Report the bytes the server has. */
  onProgress(bytesUploaded: number, bytesTotal?: number): void;
  /** Report that a failed attempt will be retried in `delayMs`. */
  onRetry(delayMs: number, error: unknown): void;
  /** Keep the app's data of this upload (e.g. the id the backend gave it). */
  setMeta(meta: unknown): void;
}

/**
 * Uploads one item (or resumes it: after a pause `run` is called again and should continue
 * from what the server has). Resolves when done; rejects on failure. When `signal` aborts
 * it should stop and settle; on `'cancel'` it should also discard the partial upload.
 *
 * @example
 * const run: UploadRunner<unknown> = async (item, control) => {
 *   const upload = client.storage.from('files').uploadResumable(item.name, item.file, {
 *     onProgress: (p) => control.onProgress(p.bytes, p.total),
 *     onRetry: (r) => control.onRetry(r.delay, r.error),
 *   });
 *   control.signal.addEventListener('abort', () =>
 *     control.signal.reason === 'cancel' ? upload.abort({ terminate: true }) : upload.pause(),
 *   );
 *   const { data, error } = await upload.result;
 *   if (error) throw error;
 *   return data;
 * };
 */
export type UploadRunner<TResult> = (
  item: UploadItem<TResult> & { file: Blob },
  control: UploadControl,
) => Promise<TResult>;

/**
 * Options of {@link createUploadQueue}.
 *
 * @example
 * const options: UploadQueueOptions<FileRow> = { run, concurrency: 2, onDone: (item) => toast(item.name) };
 */
export interface UploadQueueOptions<TResult> {
  run: UploadRunner<TResult>;
  /** Uploads at once. Default 3. */
  concurrency?: number;
  /** Called when an upload finishes. */
  onDone?: (item: UploadItem<TResult>) => void;
  /** Called when an upload fails for good. */
  onError?: (item: UploadItem<TResult>, error: unknown) => void;
  /**
   * Called once an upload is cancelled, running or not (after `run` was told to stop): the
   * place to discard what the backend holds of it.
   */
  onCancel?: (item: UploadItem<TResult>) => void;
  /**
   * Timers and clock of the throttled notifications, the rates and the retry times (tests
   * inject manual ones). Default: the platform's.
   */
  timers?: Timers;
  /** Clock, for tests. Default `timers.now` (`Date.now`). */
  now?: () => number;
  /** Minimum ms between progress-only notifications. Default 100. */
  throttleMs?: number;
}

/**
 * What the queue holds at one moment; see {@link UploadQueue.getSnapshot}. Frozen, and a new
 * object only when something in it changed, so `===` tells whether anything did.
 *
 * @example
 * const before = queue.getSnapshot();
 * queue.pause(id);
 * queue.getSnapshot() !== before; // true: the item's state changed
 * queue.getSnapshot() === queue.getSnapshot(); // true: nothing changed between the calls
 */
export interface UploadQueueSnapshot<TResult = unknown> {
  /** Every upload, oldest first (the same array as {@link UploadQueue.getItems}). */
  readonly items: readonly UploadItem<TResult>[];
  /** Whether the queue considers the network up ({@link UploadQueue.setOnline}). */
  readonly online: boolean;
  /** Uploads not yet done (queued, uploading, paused, retrying, failed). */
  readonly active: number;
  /** Bytes uploaded over the unfinished uploads. */
  readonly bytesUploaded: number;
  /** Bytes in total over the unfinished uploads. */
  readonly bytesTotal: number;
}

/**
 * The queue; see {@link createUploadQueue}. Observable: `subscribe(listener)` is told of
 * every change (progress-only changes at most every `throttleMs`), `getSnapshot()` reads
 * the state — the pair `useSyncExternalStore` (React) or any store adapter takes.
 *
 * @example
 * const unsubscribe = queue.subscribe(() => render(queue.getSnapshot()));
 * queue.add(files, folderId);
 * // later
 * unsubscribe();
 */
export interface UploadQueue<TResult = unknown> {
  /** Every upload, oldest first (a new array after every change). */
  getItems(): readonly UploadItem<TResult>[];
  /**
   * The queue's state: items, network and totals. The same object until something changes,
   * then a new one (immutable), so it can be compared with `===`.
   */
  getSnapshot(): UploadQueueSnapshot<TResult>;
  /** Calls `listener` after changes; returns the function that stops it. */
  subscribe(listener: () => void): () => void;
  /** Queue files (or entries with their own name, target and data); returns their ids. */
  add(files: Iterable<Blob | UploadEntry>, target?: unknown): string[];
  /**
   * Lists unfinished uploads again after a reload, paused (`pausedBy: 'reload'`) and without
   * their file; returns their ids.
   */
  restore(uploads: Iterable<RestoredUpload>): string[];
  /** Gives a restored upload its file again (it stays paused until `resume`). */
  provideFile(id: string, file: Blob): void;
  pause(id: string): void;
  /** Resumes a paused upload that has its file. */
  resume(id: string): void;
  /** Stop and forget an upload (its partial data is discarded by `run`). */
  cancel(id: string): void;
  /** Start a failed upload again. */
  retry(id: string): void;
  pauseAll(): void;
  resumeAll(): void;
  cancelAll(): void;
  /** Forgets one upload that is not running, discarding nothing (no `onCancel`). */
  dismiss(id: string): void;
  /** Forget finished uploads. */
  clearDone(): void;
  /**
   * Stops every upload, discarding nothing (no `onCancel`), and forgets them all — e.g. on
   * sign-out.
   */
  clear(): void;
  /** Tell the queue whether the network is up: offline pauses everything, online resumes it. */
  setOnline(online: boolean): void;
  readonly online: boolean;
}
