import { describe, expect, it } from 'vitest';
import { banUntil } from '../../../src/auth/routes/admin-users';
import { mergeMetadata } from '../../../src/auth/users';

describe('mergeMetadata', () => {
  it('replaces keys, adds new ones and removes those set to null', () => {
    expect(mergeMetadata({ a: 1, b: { c: 2 }, d: 4 }, { b: { e: 5 }, d: null, f: 6 })).toEqual({
      a: 1,
      b: { e: 5 },
      f: 6,
    });
    expect(mergeMetadata(null, { a: 1 })).toEqual({ a: 1 });
  });
});

describe('banUntil', () => {
  it('reads Go durations and "none"', () => {
    const now = Date.now();
    const until = Date.parse(banUntil('1h30m') ?? '');
    expect(until - now).toBeGreaterThanOrEqual(90 * 60_000 - 1_000);
    expect(until - now).toBeLessThanOrEqual(90 * 60_000 + 1_000);
    expect(banUntil('none')).toBeNull();
  });

  it('refuses anything else with validation_failed', () => {
    for (const bad of ['24', 'forever', '1d', '']) {
      expect(() => banUntil(bad)).toThrow(expect.objectContaining({ code: 'validation_failed' }));
    }
  });
});
