/**
 * Timers for the realtime socket. Browsers throttle timers of background tabs to a minute or
 * more, which starves heartbeats; `workerTimers()` runs them in a Web Worker, which is not
 * throttled that way.
 */

import { systemTimers, type Timers } from '../timers';

/**
 * The platform's timers, kept referenced: a Node process waiting to reconnect its socket
 * stays alive (unlike auth's refresh timers).
 */
export const platformTimers: Timers = {
  ...systemTimers,
  setTimeout: (fn, ms) => setTimeout(fn, ms),
};

const SCRIPT =
  'const t={};onmessage=({data:[i,m]})=>{if(m<0){clearTimeout(t[i]);delete t[i]}else t[i]=setTimeout(()=>{delete t[i];postMessage(i)},m)}';

/**
 * Timers run by a Web Worker (browsers); the platform's timers where workers are unavailable.
 *
 * @example
 * import { workerTimers } from '@app/backend-sdk/realtime';
 * createClient(url, key, { realtime: { timers: workerTimers() } });
 */
export function workerTimers(): Timers {
  if (typeof Worker === 'undefined' || typeof URL.createObjectURL !== 'function') {
    return platformTimers;
  }
  const worker = new Worker(URL.createObjectURL(new Blob([SCRIPT], { type: 'text/javascript' })));
  const pending = new Map<number, () => void>();
  let next = 0;
  worker.onmessage = ({ data }: MessageEvent<number>) => {
    const fn = pending.get(data);
    pending.delete(data);
    fn?.();
  };
  return {
    setTimeout(fn, ms) {
      const id = ++next;
      pending.set(id, fn);
      worker.postMessage([id, ms]);
      return id;
    },
    clearTimeout(id) {
      if (pending.delete(id as number)) worker.postMessage([id, -1]);
    },
    now: systemTimers.now,
  };
}

/** Reconnect and rejoin delays: 1 s, 2 s, 5 s, then 10 s. */
export const backoff = (tries: number): number => [1000, 2000, 5000][tries - 1] ?? 10000;
