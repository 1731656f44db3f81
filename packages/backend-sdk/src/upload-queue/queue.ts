/**
 * The upload queue: what to upload, in which order, how many at once, and each upload's
 * progress, rate, ETA and state. It belongs to no UI framework (uploads go on while the
 * user navigates): it is observed with `subscribe` and `getSnapshot` (`useUploadQueue` of
 * `@app/backend-react` renders it). How one file is uploaded is the `run` function given to
 * {@link createUploadQueue}.
 */
import { systemTimers } from '../timers';
import type {
  UploadControl,
  UploadEntry,
  UploadItem,
  UploadQueue,
  UploadQueueOptions,
  UploadQueueSnapshot,
  UploadState,
} from './types';

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

/** The snapshot of `items` and `online`: the items with their totals, frozen. */
function snapshotOf<TResult>(
  items: readonly UploadItem<TResult>[],
  online: boolean,
): UploadQueueSnapshot<TResult> {
  let active = 0;
  let bytesUploaded = 0;
  let bytesTotal = 0;
  for (const item of items) {
    if (item.state === 'done') continue;
    active += 1;
    bytesUploaded += item.bytesUploaded;
    bytesTotal += item.size;
  }
  return Object.freeze({ items, online, active, bytesUploaded, bytesTotal });
}

/**
 * Creates an upload queue: at most `concurrency` uploads run, the rest wait in order;
 * pause, resume, cancel and retry each or all; offline pauses and online resumes. Observe it
 * with `subscribe(listener)` (returns the unsubscribe function) and `getSnapshot()` (an
 * immutable snapshot, a new object only after a change).
 *
 * @example
 * import { createUploadQueue } from '@app/backend-sdk/upload-queue';
 *
 * const queue = createUploadQueue({ concurrency: 3, run: (item, control) => upload(item, control) });
 * const unsubscribe = queue.subscribe(() => {
 *   const { items, active, bytesUploaded, bytesTotal, online } = queue.getSnapshot();
 *   render(items, { active, bytesUploaded, bytesTotal, online });
 * });
 * queue.add(input.files, folderId);
 */
export function createUploadQueue<TResult = unknown>(
  options: UploadQueueOptions<TResult>,
): UploadQueue<TResult> {
  const concurrency = Math.max(1, options.concurrency ?? 3);
  const timers = options.timers ?? systemTimers;
  const now = options.now ?? (() => timers.now());
  const throttleMs = options.throttleMs ?? 100;
  let items: UploadItem<TResult>[] = [];
  const running = new Map<string, Running>();
  const listeners = new Set<() => void>();
  let online = true;
  let pending: { id: unknown } | null = null;
  let snapshot = snapshotOf(items, online);

  const emit = () => {
    if (pending) {
      timers.clearTimeout(pending.id);
      pending = null;
    }
    for (const listener of listeners) listener();
  };
  const emitSoon = () => {
    if (!pending) pending = { id: timers.setTimeout(emit, throttleMs) };
  };
  const find = (id: string) => items.find((item) => item.id === id);
  /** Keeps the items `keep` accepts; the array stays the same when it accepts them all. */
  const retain = (keep: (item: UploadItem<TResult>) => boolean) => {
    const next = items.filter(keep);
    if (next.length !== items.length) items = next;
  };
  const update = (id: string, patch: Partial<UploadItem<TResult>>, quiet = false) => {
    const index = items.findIndex((item) => item.id === id);
    const item = items[index];
    if (!item) return;
    const next = items.slice();
    next[index] = { ...item, ...patch };
    items = next;
    (quiet ? emitSoon : emit)();
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
    getSnapshot() {
      if (snapshot.items !== items || snapshot.online !== online) {
        snapshot = snapshotOf(items, online);
      }
      return snapshot;
    },
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
      retain((i) => i.id !== id);
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
      retain((item) => item.id !== id);
      emit();
    },
    clearDone() {
      retain((item) => item.state !== 'done');
      emit();
    },
    clear() {
      for (const item of items) stop(item.id, 'pause');
      if (items.length > 0) items = [];
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
      // The snapshot's `online` changed even when no upload did.
      emit();
    },
    get online() {
      return online;
    },
  };
}
