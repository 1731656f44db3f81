import { describe, expect, it } from 'vitest';
import { createScheduler, refreshMargin } from '../../../src/auth/refresh';
import type { Timers } from '../../../src/timers';

/** Fake timers with a manual clock (pure scheduling logic). */
function fakeTimers() {
  let now = 1_000_000;
  let seq = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  const timers: Timers = {
    setTimeout: (fn, ms) => {
      pending.set(++seq, { at: now + ms, fn });
      return seq;
    },
    clearTimeout: (id) => {
      pending.delete(id as number);
    },
    now: () => now,
  };
  /** Advances the clock, firing due timers in order; lets async callbacks settle. */
  const advance = async (ms: number) => {
    const end = now + ms;
    for (;;) {
      const next = [...pending.entries()].sort((a, b) => a[1].at - b[1].at)[0];
      if (!next || next[1].at > end) break;
      pending.delete(next[0]);
      now = next[1].at;
      next[1].fn();
      for (let i = 0; i < 10; i++) await Promise.resolve();
    }
    now = end;
  };
  return { timers, advance, pending, at: () => now };
}

describe('refreshMargin', () => {
  it('is 90 s, or half the lifetime of short tokens', () => {
    expect(refreshMargin(3600)).toBe(90_000);
    expect(refreshMargin(60)).toBe(30_000);
  });
});

describe('refresh scheduler', () => {
  it('fires once, a margin before expiry', async () => {
    const t = fakeTimers();
    const fired: number[] = [];
    const s = createScheduler(t.timers, async () => {
      fired.push(t.at());
      return true;
    });
    const expiresAt = t.at() + 3600_000;
    s.schedule(expiresAt, 3600);
    await t.advance(3600_000 - 90_001);
    expect(fired).toEqual([]);
    await t.advance(1);
    expect(fired).toEqual([expiresAt - 90_000]);
    await t.advance(3600_000);
    expect(fired).toHaveLength(1);
  });

  it('retries with backoff while the refresh cannot finish, then stops', async () => {
    const t = fakeTimers();
    const fired: number[] = [];
    let failures = 3;
    const s = createScheduler(t.timers, async () => {
      fired.push(t.at());
      return failures-- <= 0;
    });
    const start = t.at();
    s.schedule(start + 90_000, 3600); // due now
    await t.advance(10_000);
    expect(fired.map((x) => x - start)).toEqual([0, 200, 600, 1400]);
  });

  it('treats a throwing refresh as not done and caps the backoff at 30 s', async () => {
    const t = fakeTimers();
    const fired: number[] = [];
    const s = createScheduler(t.timers, async () => {
      fired.push(t.at());
      throw new Error('offline');
    });
    s.schedule(t.at(), 3600);
    await t.advance(200_000);
    const gaps = fired.slice(1).map((x, i) => x - (fired[i] as number));
    expect(gaps.slice(0, 4)).toEqual([200, 400, 800, 1600]);
    expect(Math.max(...gaps)).toBe(30_000);
    s.stop();
    const count = fired.length;
    await t.advance(200_000);
    expect(fired).toHaveLength(count);
  });

  it('rescheduling replaces the pending timer', async () => {
    const t = fakeTimers();
    let runs = 0;
    const s = createScheduler(t.timers, async () => {
      runs++;
      return true;
    });
    s.schedule(t.at() + 100_000, 3600);
    s.schedule(t.at() + 200_000, 3600);
    expect(t.pending.size).toBe(1);
    await t.advance(200_000);
    expect(runs).toBe(1);
  });
});
