import { describe, expect, it } from 'vitest';
import { age, duration } from '../../../src/lib/format';

describe('duration', () => {
  it('writes milliseconds, seconds, then minutes', () => {
    expect(duration(0)).toBe('0 ms');
    expect(duration(849.6)).toBe('850 ms');
    expect(duration(12_400)).toBe('12.4 s');
    expect(duration(185_000)).toBe('3 min 5 s');
    expect(duration(null)).toBe('—');
    expect(duration(-1)).toBe('—');
  });
});

describe('age', () => {
  it('keeps the two largest units and drops zero ones', () => {
    expect(age(0)).toBe('0 s');
    expect(age(45)).toBe('45 s');
    expect(age(120)).toBe('2 min');
    expect(age(7800)).toBe('2 h 10 min');
    expect(age(3 * 86_400 + 4 * 3600 + 59)).toBe('3 d 4 h');
    expect(age(86_400 + 30)).toBe('1 d');
    expect(age(null)).toBe('—');
  });
});
