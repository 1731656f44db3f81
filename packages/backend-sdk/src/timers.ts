/**
 * Timers and clock, injectable: the SDK's schedulers (auth refresh, realtime heartbeats and
 * reconnects, the upload queue's notifications) take them as an option, so tests can drive
 * time by hand and browsers can run them elsewhere (see `workerTimers` in
 * `@app/backend-sdk/realtime`).
 */

/**
 * Timers and clock; the platform's by default, fake ones in tests.
 *
 * @example
 * // Manual timers for a test: nothing fires until the test says so.
 * let now = 0;
 * const due = new Map<number, () => void>();
 * let next = 0;
 * const timers: Timers = {
 *   setTimeout: (fn) => (due.set(++next, fn), next),
 *   clearTimeout: (id) => void due.delete(id as number),
 *   now: () => now,
 * };
 */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
  /** Milliseconds since the epoch. */
  now(): number;
}

/**
 * The platform's timers, unref'd in Node so a pending timer (a token refresh, a
 * notification) never keeps a process alive.
 *
 * @example
 * const id = systemTimers.setTimeout(() => refresh(), 1000);
 * systemTimers.clearTimeout(id);
 */
export const systemTimers: Timers = {
  setTimeout: (fn, ms) => {
    const id = setTimeout(fn, ms) as unknown as { unref?: () => void };
    id.unref?.();
    return id;
  },
  clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
};
