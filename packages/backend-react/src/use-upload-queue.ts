import { useEffect, useSyncExternalStore } from 'react';
import type { UploadItem, UploadQueue } from './upload-queue';

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
 * Renders an upload queue (see `createUploadQueue`) and ties it to the browser's network
 * state: going offline pauses every upload, coming back online resumes them. The queue lives
 * outside React, so uploads go on while components unmount and remount (StrictMode, route
 * changes).
 *
 * @example
 * const uploads = useUploadQueue(queue);
 * uploads.items.map((item) => <Row key={item.id} item={item} onPause={() => uploads.queue.pause(item.id)} />);
 */
export function useUploadQueue<TResult>(queue: UploadQueue<TResult>): UploadQueueView<TResult> {
  const items = useSyncExternalStore(queue.subscribe, queue.getItems, queue.getItems);
  const offline = useSyncExternalStore(
    queue.subscribe,
    () => !queue.online,
    () => false,
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

  let active = 0;
  let bytesUploaded = 0;
  let bytesTotal = 0;
  for (const item of items) {
    if (item.state === 'done') continue;
    active += 1;
    bytesUploaded += item.bytesUploaded;
    bytesTotal += item.size;
  }
  return { items, active, bytesUploaded, bytesTotal, offline, queue };
}
