/**
 * The auto-refresh scheduler: pure timing logic with injectable timers. It fires `run`
 * a margin before the access token expires, and retries with backoff (200 ms · 2^n, at
 * most 30 s) while `run` reports that it could not finish (network failure).
 */

import type { Timers } from '../timers';

/** How long before expiry a token is refreshed: 90 s, or half the lifetime if shorter. */
export function refreshMargin(expiresInSeconds: number): number {
  return Math.min(90_000, (expiresInSeconds * 1000) / 2);
}

const MAX_TIMER = 2 ** 31 - 1;

/** A refresh scheduler. */
export interface Scheduler {
  /** (Re)arms the timer for a token expiring at `expiresAt` (ms) with lifetime `expiresIn` (s). */
  schedule(expiresAt: number, expiresIn: number): void;
  /** Stops the timer. */
  stop(): void;
}

/**
 * Creates a scheduler that calls `run` when a refresh is due. `run` resolves true when done
 * (refreshed, or signed out); false to retry after a backoff.
 *
 * @example
 * const s = createScheduler(systemTimers, () => refresh());
 * s.schedule(session.expires_at * 1000, session.expires_in);
 */
export function createScheduler(timers: Timers, run: () => Promise<boolean>): Scheduler {
  let timer: unknown;
  let attempt = 0;
  const stop = () => {
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
  };
  const arm = (ms: number) => {
    stop();
    timer = timers.setTimeout(
      async () => {
        timer = undefined;
        const done = await run().catch(() => false);
        if (!done && timer === undefined) arm(Math.min(200 * 2 ** attempt++, 30_000));
      },
      Math.min(Math.max(0, ms), MAX_TIMER),
    );
  };
  return {
    schedule(expiresAt, expiresIn) {
      attempt = 0;
      arm(expiresAt - refreshMargin(expiresIn) - timers.now());
    },
    stop,
  };
}
