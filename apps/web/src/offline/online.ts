/**
 * Whether Drive can reach its backend: the browser says it is online (its `online` /
 * `offline` events) and the last request to the backend did not fail for want of a network.
 * `navigator.onLine` alone says too much: a machine with a network interface but no way out
 * (a captive portal, a cable pulled upstream, a browser's emulated offline mode after a
 * reload) reads as online. While a failure holds, the backend is probed every few seconds; the
 * first answer (any status) brings Drive back online.
 */
import { useSyncExternalStore } from 'react';

const PROBE_MS = 3000;
let failed = false;
let probing: ReturnType<typeof setInterval> | undefined;
let probeUrl: string | null = null;
const listeners = new Set<() => void>();

const emit = () => {
  for (const l of listeners) l();
};

/** Whether the backend looks reachable now. */
export const isOnline = (): boolean => (globalThis.navigator?.onLine ?? true) && !failed;

/** Asks the backend once whether it answers (any answer will do); notes the outcome. */
function probe(): Promise<void> {
  if (!probeUrl) return Promise.resolve();
  const signal = AbortSignal.timeout(PROBE_MS);
  return fetch(probeUrl, { cache: 'no-store', mode: 'no-cors', signal }).then(
    () => noteNetwork(true),
    () => noteNetwork(false),
  );
}

/**
 * Whether a change goes to the offline queue now (the queue, queue.ts, is loaded when first
 * needed): the browser says it is offline, or the backend failed to answer and still does not
 * answer a fresh probe.
 */
export async function offlineNow(): Promise<boolean> {
  if (!(globalThis.navigator?.onLine ?? true)) return true;
  if (failed) await probe();
  return failed;
}

/** Notes how a request to the backend went: `false` when no answer came (a network failure). */
export function noteNetwork(answered: boolean): void {
  if (failed === !answered) return;
  failed = !answered;
  clearInterval(probing);
  probing = undefined;
  if (failed) {
    probing = setInterval(() => {
      if (navigator.onLine) void probe();
    }, PROBE_MS);
  }
  emit();
}

/** Calls `listener` when `isOnline()` may have changed; returns the unsubscribe function. */
export function onOnlineChange(listener: () => void): () => void {
  const onEvent = () => {
    if (navigator.onLine) noteNetwork(true);
    listener();
  };
  listeners.add(listener);
  addEventListener('online', onEvent);
  addEventListener('offline', listener);
  return () => {
    listeners.delete(listener);
    removeEventListener('online', onEvent);
    removeEventListener('offline', listener);
  };
}

/**
 * A fetch for the SDK that notes each request's outcome (an aborted request says nothing).
 * `backendUrl` is probed while the network is away.
 *
 * @example
 * createClient(url, anonKey, { global: { fetch: watchingFetch(url) } })
 */
export function watchingFetch(backendUrl: string): typeof fetch {
  probeUrl = `${backendUrl.replace(/\/$/, '')}/auth/v1/health`;
  return (input, init) =>
    fetch(input, init).then(
      (response) => {
        noteNetwork(true);
        return response;
      },
      (error: unknown) => {
        if ((error as { name?: unknown })?.name !== 'AbortError') noteNetwork(false);
        throw error;
      },
    );
}

/** Whether the backend looks reachable (see `isOnline`), re-rendering the caller on change. */
export function useOnline(): boolean {
  return useSyncExternalStore(onOnlineChange, isOnline, () => true);
}
