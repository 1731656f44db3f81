import { describe, expect, it } from 'vitest';
import { BLOCK, blockRange, MARGIN } from '../../../src/components/FileList';

const range = (startIndex: number, endIndex: number, count = 10_000) =>
  blockRange({ startIndex, endIndex, count, overscan: 0 });

describe('blockRange', () => {
  it('covers the visible rows and a margin either side, in whole blocks', () => {
    for (const [start, end] of [
      [0, 14],
      [7, 21],
      [500, 514],
      [9_990, 9_999],
    ] as const) {
      const rows = range(start, end);
      const first = rows[0] ?? -1;
      const last = rows.at(-1) ?? -1;
      expect(first).toBeLessThanOrEqual(Math.max(0, start - MARGIN));
      expect(last).toBeGreaterThanOrEqual(Math.min(9_999, end + MARGIN));
      expect(first % BLOCK).toBe(0);
      expect(rows).toEqual(Array.from({ length: last - first + 1 }, (_, i) => first + i));
    }
  });

  it('stays the same while the list scrolls within a block', () => {
    const at = (top: number) => range(top, top + 14);
    const changes = new Set<string>();
    for (let top = 0; top < 200; top += 1) changes.add(JSON.stringify(at(top)));
    // 200 rows of scrolling change the rendered rows about once per block, not once per row.
    expect(changes.size).toBeLessThanOrEqual(200 / BLOCK + 1);
  });

  it('never goes past either end', () => {
    expect(range(0, 3, 4)).toEqual([0, 1, 2, 3]);
    expect(range(0, 0, 0)).toEqual([]);
  });
});
