import { describe, expect, it, vi } from 'vitest';
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
    const now = Date.parse('2026-01-02T03:04:05.678Z');
    vi.useFakeTimers({ now });
    try {
      expect(banUntil('1h30m')).toBe('2026-01-02T04:34:05.678Z');
      expect(banUntil('1.5s')).toBe('2026-01-02T03:04:07.178Z');
      expect(banUntil('none')).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses anything else with validation_failed', () => {
    for (const bad of ['24', 'forever', '1d', '']) {
      expect(() => banUntil(bad)).toThrow(expect.objectContaining({ code: 'validation_failed' }));
    }
  });
});
