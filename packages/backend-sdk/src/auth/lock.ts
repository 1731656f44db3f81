/**
 * Cross-tab mutual exclusion for token refresh that can never deadlock: a holder that
 * does not release within `timeout` ms has its lock stolen. Web Locks where the platform
 * has them (browsers), else an in-process lock with the same semantics.
 */

/** Runs `fn` while holding the lock `name`; waits at most `timeout` ms, then steals it. */
export type LockFn = <T>(name: string, timeout: number, fn: () => Promise<T>) => Promise<T>;

/** The subset of the Web Locks API the SDK uses. */
export interface LockManagerLike {
  request<T>(
    name: string,
    options: { signal?: AbortSignal; steal?: boolean },
    callback: () => Promise<T>,
  ): Promise<T>;
}

/**
 * A {@link LockFn} on the Web Locks API: waits with an abort signal, steals on timeout.
 *
 * @example
 * const lock = webLock(navigator.locks);
 * await lock('refresh', 5000, async () => refresh());
 */
export function webLock(locks: LockManagerLike): LockFn {
  return async (name, timeout, fn) => {
    let started = false;
    const run = () => {
      started = true;
      return fn();
    };
    try {
      return await locks.request(name, { signal: AbortSignal.timeout(timeout) }, run);
    } catch (error) {
      if (started) throw error;
      return locks.request(name, { steal: true }, run);
    }
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

/** Web Locks when the platform has them, else {@link memoryLock}. */
export function defaultLock(): LockFn {
  const locks = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks;
  return locks?.request ? webLock(locks) : memoryLock;
}
