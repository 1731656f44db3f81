/**
 * Cross-tab mutual exclusion for token refresh that can never deadlock: a holder that does
 * not release within `timeout` ms has its lock stolen, by one successor only (waiters that
 * timed out queue for the right to steal, so a hung holder is replaced by one tab, not by all
 * of them at once). Web Locks where the platform has them (browsers), else an in-process lock
 * with the same semantics. Marks (held locks whose name is a fact, e.g. "this refresh token
 * was rotated") tell other tabs what happened, in the lock manager's own order.
 */

/** Runs `fn` while holding the lock `name`; waits at most `timeout` ms, then steals it. */
export type LockFn = <T>(name: string, timeout: number, fn: () => Promise<T>) => Promise<T>;

/** The subset of the Web Locks API the SDK uses. */
export interface LockManagerLike {
  request<T>(
    name: string,
    options: { signal?: AbortSignal; steal?: boolean; ifAvailable?: boolean },
    callback: (lock: unknown) => Promise<T>,
  ): Promise<T>;
  query?(): Promise<{ held?: Array<{ name?: string }> }>;
}

/**
 * A {@link LockFn} on the Web Locks API. A waiter whose `timeout` passes joins the queue of
 * `<name>:successor`; the first in that queue steals the lock, the next ones get their turn
 * after it (and find the refresh done). A successor that hangs too is stolen from in turn.
 * When the lock is stolen from a holder still running, the holder's own result is kept.
 *
 * @example
 * const lock = webLock(navigator.locks);
 * await lock('refresh', 5000, async () => refresh());
 */
export function webLock(locks: LockManagerLike): LockFn {
  return async <T>(name: string, timeout: number, fn: () => Promise<T>) => {
    let result: Promise<T> | undefined;
    const run = () => {
      result ??= fn();
      return result;
    };
    // Resolves with the lock's outcome, or undefined when waiting for it timed out.
    const take = async (lock: string, steal: boolean, then: () => Promise<T>) => {
      const options = steal ? { steal } : { signal: AbortSignal.timeout(timeout) };
      try {
        return { value: await locks.request(lock, options, then) };
      } catch (error) {
        if (result) return { value: await result }; // ran; stolen from, or failed itself
        if (steal) throw error;
        return undefined;
      }
    };
    const steal = async () => (await take(name, true, run))?.value as T;
    const successor = `${name}:successor`;
    const outcome =
      (await take(name, false, run)) ??
      (await take(successor, false, steal)) ??
      (await take(successor, true, steal));
    return outcome?.value as T;
  };
}

const tails = new Map<string, Promise<unknown>>();

/**
 * An in-process {@link LockFn} (for platforms without Web Locks): callers queue; a caller
 * that waited `timeout` ms runs anyway.
 */
export const memoryLock: LockFn = async (name, timeout, fn) => {
  const previous = tails.get(name) ?? Promise.resolve();
  let release = () => {};
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  tails.set(name, tail);
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    previous.catch(() => {}),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeout);
    }),
  ]);
  clearTimeout(timer);
  try {
    return await fn();
  } finally {
    release();
    if (tails.get(name) === tail) tails.delete(name);
  }
};

const webLocks = (): LockManagerLike | undefined => {
  const locks = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks;
  return locks?.request ? locks : undefined;
};

/** Web Locks when the platform has them, else {@link memoryLock}. */
export function defaultLock(): LockFn {
  const locks = webLocks();
  return locks ? webLock(locks) : memoryLock;
}

/** Facts shared across tabs as held locks, ordered with the lock they are taken under. */
export interface Marks {
  /** Holds the mark `name` (until the next `hold` or `release`); resolves once held or taken. */
  hold(name: string): Promise<void>;
  /** True when some tab holds the mark `name`. */
  has(name: string): Promise<boolean>;
  /** Releases the mark this tab holds. */
  release(): void;
}

/**
 * Marks on the Web Locks API, or null without it. A mark taken while holding a lock is
 * visible to whoever takes that lock next: the mark is granted before the lock is released.
 *
 * @example
 * const marks = webMarks(navigator.locks);
 * await marks?.hold('lock:key:rotated:1a2b');
 */
export function webMarks(locks: LockManagerLike | undefined = webLocks()): Marks | null {
  if (!locks?.query) return null;
  let release = () => {};
  return {
    hold(name) {
      release();
      return new Promise<void>((held) => {
        locks
          .request(name, { ifAvailable: true }, (lock) => {
            held();
            return lock ? new Promise<void>((r) => (release = r)) : Promise.resolve();
          })
          .catch(() => held());
      });
    },
    async has(name) {
      const state = await locks.query?.().catch(() => null);
      return !!state?.held?.some((l) => l.name === name);
    },
    release: () => release(),
  };
}
