import { describe, expect, it } from 'vitest';
import { checkBucketName, checkKey, checkMime, parseSizeLimit } from '../../../src/storage/names';

describe('storage names and limits', () => {
  it('accepts hosted key characters and refuses dot segments, empty segments and others', () => {
    for (const key of ['a/b/c.txt', "it's (1) & more=@;:+,?$!*-_.txt", 'x']) {
      expect(checkKey(key)).toBe(key);
    }
    for (const key of [
      '../x',
      'a/../b',
      './a',
      'a//b',
      '/a',
      'a/',
      'a\\b',
      'nul\u0000',
      'é.txt',
      '',
    ]) {
      expect(() => checkKey(key), key).toThrowError(
        expect.objectContaining({ code: 'InvalidKey' }),
      );
    }
    expect(() => checkKey('a'.repeat(1025))).toThrow();
  });

  it('checks bucket names', () => {
    expect(checkBucketName('avatars')).toBe('avatars');
    for (const name of ['', 'a/b', '..', 'x'.repeat(101)]) {
      expect(() => checkBucketName(name)).toThrowError(
        expect.objectContaining({ code: 'InvalidBucketName' }),
      );
    }
  });

  it('parses size limits as numbers or "20MB"-style strings with decimal units, as hosted', () => {
    expect(parseSizeLimit(1000)).toBe(1000);
    expect(parseSizeLimit('20mb')).toBe(20_000_000);
    expect(parseSizeLimit('50MB')).toBe(50_000_000);
    expect(parseSizeLimit('1.5GB')).toBe(1_500_000_000);
    expect(parseSizeLimit('100kb')).toBe(100_000);
    expect(parseSizeLimit('3B')).toBe(3);
    // Three significant digits, as the hosted parser keeps.
    expect(parseSizeLimit('1.2345MB')).toBe(1_230_000);
    expect(parseSizeLimit('12')).toBe(12);
    expect(parseSizeLimit(null)).toBeNull();
    for (const bad of [-1, 1.5, '10 parsecs', 'MB', '1.5 GB', '2TB', '5MiB', {}]) {
      expect(() => parseSizeLimit(bad)).toThrowError(
        expect.objectContaining({
          code: 'InvalidRequest',
          message: 'Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B',
        }),
      );
    }
  });

  it('matches mime types with wildcards, ignoring parameters and case', () => {
    expect(() => checkMime('image/PNG', ['image/*'])).not.toThrow();
    expect(() => checkMime('text/plain;charset=UTF-8', ['text/plain'])).not.toThrow();
    expect(() => checkMime('anything/at-all', null)).not.toThrow();
    expect(() => checkMime('application/pdf', ['image/*', 'text/plain'])).toThrowError(
      expect.objectContaining({
        code: 'InvalidMimeType',
        message: 'mime type application/pdf is not supported',
      }),
    );
  });
});
