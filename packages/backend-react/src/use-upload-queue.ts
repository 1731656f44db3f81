import type { UploadItem, UploadQueue, UploadQueueSnapshot } from '@app/backend-sdk/upload-queue';
import { useEffect, useSyncExternalStore } from 'react';

/** What {@link useUploadQueue} returns: the items, a summary, and the queue's actions. */
export interface UploadQueueView<TResult> {
  items: readonly UploadItem<TResult>[];
  /** Uploads not yet done (queued, uploading, paused, retrying, failed). */
  active: number;
  /** Bytes uploaded and total over the unfinished uploads. */
  bytesUploaded: number;
  bytesTotal: number;
  /** True while the queue considers the network down. */
  offline: boolean;
  queue: UploadQueue<TResult>;
}

const watchers = new WeakMap<UploadQueue<unknown>, number>();

/**
 * The snapshot a server render (and hydration) sees: the queue's, always online, as the
 * server knows nothing of the browser's network. Kept per snapshot so it is stable.
 */
const onlineSnapshots = new WeakMap<UploadQueueSnapshot<unknown>, UploadQueueSnapshot<unknown>>();
function onlineSnapshot<TResult>(
  snapshot: UploadQueueSnapshot<TResult>,
): UploadQueueSnapshot<TResult> {
  if (snapshot.online) return snapshot;
  const key = snapshot as UploadQueueSnapshot<unknown>;
  let online = onlineSnapshots.get(key);
  if (!online) {
    online = Object.freeze({ ...key, online: true });
    onlineSnapshots.set(key, online);
  }
  return online as UploadQueueSnapshot<TResult>;
}

/**
 * Renders an upload queue (see `createUploadQueue`) and ties it to the browser's network
 * state: going offline pauses every upload, coming back online resumes them. The queue lives
 * outside React, so uploads go on while components unmount and remount (StrictMode, route
 * changes). It reads the queue's snapshot (`subscribe` / `getSnapshot`) with
 * `useSyncExternalStore`.
 *
 * @example
 * const uploads = useUploadQueue(queue);
 * uploads.items.map((item) => <Row key={item.id} item={item} onPause={() => uploads.queue.pause(item.id)} />);
 */
export function useUploadQueue<TResult>(queue: UploadQueue<TResult>): UploadQueueView<TResult> {
  const snapshot = useSyncExternalStore(queue.subscribe, queue.getSnapshot, () =>
    onlineSnapshot(queue.getSnapshot()),
  );

  useEffect(() => {
    if (typeof window === 'undefined') return;
    const key = queue as UploadQueue<unknown>;
    const count = watchers.get(key) ?? 0;
    watchers.set(key, count + 1);
    const onOnline = () => queue.setOnline(true);
    const onOffline = () => queue.setOnline(false);
    if (count === 0 && typeof navigator !== 'undefined' && navigator.onLine === false) {
      queue.setOnline(false);
    }
    window.addEventListener('online', onOnline);
    window.addEventListener('offline', onOffline);
    return () => {
      watchers.set(key, (watchers.get(key) ?? 1) - 1);
      window.removeEventListener('online', onOnline);
      window.removeEventListener('offline', onOffline);
    };
  }, [queue]);

  const { items, active, bytesUploaded, bytesTotal, online } = snapshot;
  return { items, active, bytesUploaded, bytesTotal, offline: !online, queue };
}
