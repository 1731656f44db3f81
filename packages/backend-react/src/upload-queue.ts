/**
 * The upload queue: what to upload, in which order, how many at once, and each upload's
 * progress, rate, ETA and state. It holds no React state (uploads go on while the user
 * navigates); {@link useUploadQueue} renders it. How one file is uploaded is the `run`
 * function given to {@link createUploadQueue}.
 */

/** State of one upload. */
export type UploadState = 'queued' | 'uploading' | 'paused' | 'retrying' | 'failed' | 'done';

/** One upload as the queue shows it. Replaced (never mutated) on every change. */
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

/** One file to queue, with where it goes and the app's data (see {@link UploadQueue.add}). */
export interface UploadEntry {
  file: Blob;
  /** Default: the file's name. */
  name?: string;
  /** Default: the `target` given to `add`. */
  target?: unknown;
  meta?: unknown;
}

/** An unfinished upload to list again after a reload (see {@link UploadQueue.restore}). */
export interface RestoredUpload {
  name: string;
  size: number;
  target?: unknown;
  /** Bytes the server had when it was last heard of. */
  bytesUploaded?: number;
  meta?: unknown;
}

/** What `run` gets to report and to stop. */
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
 */
export type UploadRunner<TResult> = (
  item: UploadItem<TResult> & { file: Blob },
  control: UploadControl,
) => Promise<TResult>;

/** Options of {@link createUploadQueue}. */
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
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number;
  /** Minimum ms between progress-only notifications. Default 100. */
  throttleMs?: number;
}

/** The queue; see {@link createUploadQueue}. */
export interface UploadQueue<TResult = unknown> {
  /** Every upload, oldest first (a new array after every change). */
  getItems(): readonly UploadItem<TResult>[];
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

interface Running {
  controller: AbortController;
  samples: Array<[number, number]>;
}

const RATE_WINDOW_MS = 5_000;
let counter = 0;
const nextId = () => {
  counter += 1;
  return `upload-${counter}`;
};

/** A fresh item's fields. */
const blank = (id: string) => ({
  id,
  file: null,
  name: 'file',
  size: 0,
  target: null as unknown,
  state: 'queued' as UploadState,
  bytesUploaded: 0,
  rate: 0,
  etaSeconds: null,
  pausedBy: null,
  retryAt: null,
  error: null,
  result: null,
  meta: null as unknown,
});

/**
 * Creates an upload queue: at most `concurrency` uploads run, the rest wait in order;
 * pause, resume, cancel and retry each or all; offline pauses and online resumes.
 *
 * @example
 * const queue = createUploadQueue({ concurrency: 3, run: (item, control) => upload(item, control) });
 * queue.add(input.files, folderId);
 */
export function createUploadQueue<TResult = unknown>(
  options: UploadQueueOptions<TResult>,
): UploadQueue<TResult> {
  const concurrency = Math.max(1, options.concurrency ?? 3);
  const now = options.now ?? Date.now;
  const throttleMs = options.throttleMs ?? 100;
  let items: UploadItem<TResult>[] = [];
  const running = new Map<string, Running>();
  const listeners = new Set<() => void>();
  let online = true;
  let pending: ReturnType<typeof setTimeout> | null = null;

  const emit = () => {
    if (pending) {
      clearTimeout(pending);
      pending = null;
    }
    for (const listener of listeners) listener();
  };
  const emitSoon = () => {
    if (!pending) pending = setTimeout(emit, throttleMs);
  };
  const find = (id: string) => items.find((item) => item.id === id);
  const update = (id: string, patch: Partial<UploadItem<TResult>>, quiet = false) => {
    let changed = false;
    items = items.map((item) => {
      if (item.id !== id) return item;
      changed = true;
      return { ...item, ...patch };
    });
    if (changed) (quiet ? emitSoon : emit)();
  };

  const stop = (id: string, reason: 'pause' | 'cancel' | 'offline') => {
    const run = running.get(id);
    if (!run) return;
    running.delete(id);
    run.controller.abort(reason);
  };

  const start = (item: UploadItem<TResult> & { file: Blob }) => {
    const controller = new AbortController();
    const run: Running = { controller, samples: [] };
    running.set(item.id, run);
    update(item.id, { state: 'uploading', error: null, retryAt: null, pausedBy: null });
    const current = () => running.get(item.id) === run;
    const control: UploadControl = {
      signal: controller.signal,
      onProgress(bytes, total) {
        if (!current()) return;
        const t = now();
        run.samples.push([t, bytes]);
        while (run.samples.length > 2 && t - (run.samples[0]?.[0] ?? t) > RATE_WINDOW_MS) {
          run.samples.shift();
        }
        const [t0, b0] = run.samples[0] ?? [t, bytes];
        const rate = t > t0 ? ((bytes - b0) * 1000) / (t - t0) : 0;
        const size = total ?? item.size;
        const state = find(item.id)?.state === 'retrying' ? 'uploading' : undefined;
        update(
          item.id,
          {
            bytesUploaded: bytes,
            rate: Math.max(0, rate),
            etaSeconds: rate > 0 ? Math.max(0, (size - bytes) / rate) : null,
            retryAt: null,
            ...(state ? { state } : {}),
          },
          state === undefined,
        );
      },
      setMeta(meta) {
        if (current()) update(item.id, { meta }, true);
      },
      onRetry(delayMs, error) {
        if (!current()) return;
        update(item.id, {
          state: 'retrying',
          retryAt: now() + delayMs,
          error,
          rate: 0,
          etaSeconds: null,
        });
      },
    };
    let promise: Promise<TResult>;
    try {
      const latest = find(item.id);
      promise = Promise.resolve(
        options.run(
          latest?.file ? (latest as UploadItem<TResult> & { file: Blob }) : item,
          control,
        ),
      );
    } catch (error) {
      promise = Promise.reject(error);
    }
    promise.then(
      (result) => {
        if (!current()) return;
        running.delete(item.id);
        update(item.id, {
          state: 'done',
          result,
          bytesUploaded: item.size,
          rate: 0,
          etaSeconds: 0,
          retryAt: null,
          error: null,
        });
        const done = find(item.id);
        if (done) options.onDone?.(done);
        pump();
      },
      (error: unknown) => {
        if (!current()) return;
        running.delete(item.id);
        update(item.id, { state: 'failed', error, rate: 0, etaSeconds: null, retryAt: null });
        const failed = find(item.id);
        if (failed) options.onError?.(failed, error);
        pump();
      },
    );
  };

  const pump = () => {
    if (!online) return;
    for (const item of items) {
      if (running.size >= concurrency) break;
      if (item.state === 'queued' && item.file) start(item as UploadItem<TResult> & { file: Blob });
    }
  };

  return {
    getItems: () => items,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    add(files, target = null) {
      const ids: string[] = [];
      for (const given of files) {
        const entry: UploadEntry = given instanceof Blob ? { file: given } : given;
        const id = nextId();
        ids.push(id);
        items = [
          ...items,
          {
            ...blank(id),
            file: entry.file,
            name: entry.name ?? (entry.file as File).name ?? 'file',
            size: entry.file.size,
            target: entry.target === undefined ? target : entry.target,
            meta: entry.meta ?? null,
          },
        ];
      }
      emit();
      pump();
      return ids;
    },
    restore(uploads) {
      const ids: string[] = [];
      for (const upload of uploads) {
        const id = nextId();
        ids.push(id);
        items = [
          ...items,
          {
            ...blank(id),
            name: upload.name,
            size: upload.size,
            target: upload.target ?? null,
            state: 'paused',
            pausedBy: 'reload',
            bytesUploaded: Math.min(upload.size, Math.max(0, upload.bytesUploaded ?? 0)),
            meta: upload.meta ?? null,
          },
        ];
      }
      emit();
      return ids;
    },
    provideFile(id, file) {
      update(id, { file });
    },
    pause(id) {
      const item = find(id);
      if (!item || !['queued', 'uploading', 'retrying'].includes(item.state)) return;
      stop(id, 'pause');
      update(id, { state: 'paused', pausedBy: 'user', rate: 0, etaSeconds: null, retryAt: null });
      pump();
    },
    resume(id) {
      const item = find(id);
      if (item?.state !== 'paused' || !item.file) return;
      update(id, { state: 'queued', pausedBy: null });
      pump();
    },
    cancel(id) {
      const item = find(id);
      if (!item) return;
      stop(id, 'cancel');
      items = items.filter((i) => i.id !== id);
      emit();
      options.onCancel?.(item);
      pump();
    },
    retry(id) {
      const item = find(id);
      if (item?.state !== 'failed') return;
      update(id, { state: 'queued', error: null });
      pump();
    },
    pauseAll() {
      for (const item of items) this.pause(item.id);
    },
    resumeAll() {
      for (const item of items) if (item.state === 'paused') this.resume(item.id);
    },
    cancelAll() {
      for (const item of [...items]) if (item.state !== 'done') this.cancel(item.id);
    },
    dismiss(id) {
      if (running.has(id) || !find(id)) return;
      items = items.filter((item) => item.id !== id);
      emit();
    },
    clearDone() {
      items = items.filter((item) => item.state !== 'done');
      emit();
    },
    clear() {
      for (const item of items) stop(item.id, 'pause');
      items = [];
      emit();
    },
    setOnline(next) {
      if (next === online) return;
      online = next;
      if (!online) {
        for (const item of items) {
          if (['queued', 'uploading', 'retrying'].includes(item.state)) {
            stop(item.id, 'offline');
            update(item.id, {
              state: 'paused',
              pausedBy: 'offline',
              rate: 0,
              etaSeconds: null,
              retryAt: null,
            });
          }
        }
      } else {
        for (const item of items) {
          if (item.state === 'paused' && item.pausedBy === 'offline' && item.file) {
            update(item.id, { state: 'queued', pausedBy: null });
          }
        }
        pump();
      }
    },
    get online() {
      return online;
    },
  };
}
