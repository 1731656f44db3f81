import { describe, expect, it } from 'vitest';
import { type LockManagerLike, memoryLock, webLock } from './lock';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('memoryLock', () => {
  it('runs holders one after another', async () => {
    const order: string[] = [];
    const job = (name: string, ms: number) =>
      memoryLock('m1', 5_000, async () => {
        order.push(`${name}+`);
        await sleep(ms);
        order.push(`${name}-`);
        return name;
      });
    expect(await Promise.all([job('a', 30), job('b', 1), job('c', 1)])).toEqual(['a', 'b', 'c']);
    expect(order).toEqual(['a+', 'a-', 'b+', 'b-', 'c+', 'c-']);
  });

  it('never deadlocks: a holder that hangs is overtaken after the timeout', async () => {
    let release = () => {};
    const hung = memoryLock('m2', 50, () => new Promise<void>((r) => (release = r)));
    const started = Date.now();
    expect(await memoryLock('m2', 50, async () => 'stolen')).toBe('stolen');
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    release();
    await hung;
  });

  it('releases after a failing holder', async () => {
    await expect(
      memoryLock('m3', 1_000, async () => Promise.reject(new Error('x'))),
    ).rejects.toThrow('x');
    expect(await memoryLock('m3', 1_000, async () => 'next')).toBe('next');
  });
});

describe('webLock', () => {
  /** A LockManager whose lock is held forever by someone else (a hung tab). */
  function hungManager() {
    const calls: { steal?: boolean; hasSignal: boolean }[] = [];
    const locks: LockManagerLike = {
      request(_name, options, callback) {
        calls.push({ steal: options.steal, hasSignal: Boolean(options.signal) });
        if (options.steal) return callback();
        return new Promise((_resolve, reject) => {
          options.signal?.addEventListener('abort', () => reject(options.signal?.reason));
        });
      },
    };
    return { locks, calls };
  }

  it('steals the lock after the timeout instead of waiting forever', async () => {
    const { locks, calls } = hungManager();
    expect(await webLock(locks)('w1', 30, async () => 'ran')).toBe('ran');
    expect(calls).toEqual([
      { steal: undefined, hasSignal: true },
      { steal: true, hasSignal: false },
    ]);
  });

  it('does not run the callback twice when the callback itself fails', async () => {
    let runs = 0;
    const locks: LockManagerLike = { request: (_n, _o, cb) => cb() };
    await expect(
      webLock(locks)('w2', 30, async () => {
        runs++;
        throw new Error('inside');
      }),
    ).rejects.toThrow('inside');
    expect(runs).toBe(1);
  });
});
