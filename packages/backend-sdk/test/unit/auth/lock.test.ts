import { describe, expect, it, vi } from 'vitest';
import { type LockManagerLike, memoryLock, webLock, webMarks } from '../../../src/auth/lock';

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
    vi.useFakeTimers();
    try {
      let release = () => {};
      const hung = memoryLock('m2', 50, () => new Promise<void>((r) => (release = r)));
      let ran = false;
      const stolen = memoryLock('m2', 50, async () => {
        ran = true;
        return 'stolen';
      });
      await vi.advanceTimersByTimeAsync(49);
      expect(ran).toBe(false); // still waiting for the hung holder
      await vi.advanceTimersByTimeAsync(1);
      expect(ran).toBe(true);
      expect(await stolen).toBe('stolen');
      release();
      await hung;
    } finally {
      vi.useRealTimers();
    }
  });

  it('releases after a failing holder', async () => {
    await expect(
      memoryLock('m3', 1_000, async () => Promise.reject(new Error('x'))),
    ).rejects.toThrow('x');
    expect(await memoryLock('m3', 1_000, async () => 'next')).toBe('next');
  });
});

/**
 * A lock manager with the Web Locks semantics the SDK relies on (exclusive locks granted in
 * request order, `signal` aborting a waiting request, `steal` preempting the holder, whose
 * request then rejects while its callback runs on, `ifAvailable`, `query`). Pure logic, for
 * unit tests; the real one is exercised in Chromium by test/browser.
 */
function lockManager(): LockManagerLike {
  type Waiter = { grant: () => void };
  const held = new Map<string, { reject: (e: unknown) => void; done: boolean }>();
  const queues = new Map<string, Waiter[]>();
  const next = (name: string) => {
    if (held.has(name)) return;
    queues.get(name)?.shift()?.grant();
  };
  return {
    request(name, options, callback) {
      return new Promise((resolve, reject) => {
        const grant = () => {
          const entry = { reject, done: false };
          held.set(name, entry);
          callback({ name })
            .then(
              (v) => {
                if (entry.done) return;
                entry.done = true;
                resolve(v);
              },
              (e) => {
                if (entry.done) return;
                entry.done = true;
                reject(e);
              },
            )
            .finally(() => {
              if (held.get(name) === entry) held.delete(name);
              next(name);
            });
        };
        if (options.steal) {
          const current = held.get(name);
          if (current && !current.done) {
            current.done = true;
            current.reject(new DOMException('stolen', 'AbortError'));
          }
          held.delete(name);
          return grant();
        }
        if (!held.has(name) && !queues.get(name)?.length) return grant();
        if (options.ifAvailable) {
          callback(null).then(resolve, reject);
          return;
        }
        const waiter = { grant };
        queues.set(name, [...(queues.get(name) ?? []), waiter]);
        options.signal?.addEventListener('abort', () => {
          const q = queues.get(name) ?? [];
          if (!q.includes(waiter)) return;
          queues.set(
            name,
            q.filter((w) => w !== waiter),
          );
          reject(options.signal?.reason);
        });
      });
    },
    async query() {
      return { held: [...held.keys()].map((name) => ({ name })) };
    },
  };
}

describe('webLock', () => {
  it('runs holders one after another', async () => {
    const lock = webLock(lockManager());
    const order: string[] = [];
    const job = (name: string) =>
      lock('w0', 1000, async () => {
        order.push(`${name}+`);
        await sleep(5);
        order.push(`${name}-`);
        return name;
      });
    expect(await Promise.all([job('a'), job('b')])).toEqual(['a', 'b']);
    expect(order).toEqual(['a+', 'a-', 'b+', 'b-']);
  });

  it('a hung holder is replaced by one successor at a time, not by every waiter at once', async () => {
    const locks = lockManager();
    const lock = webLock(locks);
    void lock('w1', 200, () => new Promise<never>(() => {})); // hangs forever
    await sleep(1);
    let running = 0;
    let most = 0;
    let refreshed = 0;
    const waiter = () =>
      lock('w1', 200, async () => {
        running++;
        most = Math.max(most, running);
        // The first successor refreshes; the next ones find it done.
        if (refreshed === 0) await sleep(20);
        refreshed++;
        running--;
        return 'ok';
      });
    const results = await Promise.all(Array.from({ length: 9 }, waiter));
    expect(results).toEqual(Array(9).fill('ok'));
    expect(most).toBe(1);
  });

  it('keeps the result of a holder whose lock was stolen while it ran', async () => {
    const locks = lockManager();
    const lock = webLock(locks);
    const slow = lock('w2', 20, async () => {
      await sleep(80);
      return 'slow result';
    });
    await sleep(1);
    expect(await lock('w2', 20, async () => 'successor')).toBe('successor');
    expect(await slow).toBe('slow result');
  });

  it('steals from a successor that hangs too', async () => {
    const lock = webLock(lockManager());
    void lock('w3', 20, () => new Promise<never>(() => {}));
    await sleep(1);
    void lock('w3', 20, () => new Promise<never>(() => {})); // becomes the successor, hangs
    await sleep(30);
    expect(await lock('w3', 20, async () => 'third')).toBe('third');
  });

  it('does not run the callback twice when the callback itself fails', async () => {
    let runs = 0;
    await expect(
      webLock(lockManager())('w4', 30, async () => {
        runs++;
        throw new Error('inside');
      }),
    ).rejects.toThrow('inside');
    expect(runs).toBe(1);
  });
});

describe('webMarks', () => {
  it('holds one mark per tab, visible to others until released or replaced', async () => {
    const locks = lockManager();
    const a = webMarks(locks);
    const b = webMarks(locks);
    await a?.hold('m:1');
    expect(await b?.has('m:1')).toBe(true);
    await b?.hold('m:1'); // taken: b goes on without it
    await a?.hold('m:2');
    await sleep(1);
    expect([await b?.has('m:1'), await b?.has('m:2')]).toEqual([false, true]);
    a?.release();
    await sleep(1);
    expect(await b?.has('m:2')).toBe(false);
  });

  it('is null without Web Locks', () => {
    expect(webMarks(undefined)).toBeNull();
  });
});
