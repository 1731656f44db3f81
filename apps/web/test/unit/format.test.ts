import { beforeAll, describe, expect, it } from 'vitest';
import { formatBytes } from '../../src/format';
import { loadLocale } from '../../src/i18n';

beforeAll(() => loadLocale('en'));

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1 KB'],
    [1536, '1.5 KB'],
    [50 * 1024 ** 2, '50 MB'],
    [5 * 1024 ** 3, '5 GB'],
    [1024 ** 5, '1024 TB'],
    [-1, '—'],
    [Number.NaN, '—'],
  ])('%d → %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
