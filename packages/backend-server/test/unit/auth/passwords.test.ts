import { describe, expect, it } from 'vitest';
import { validateEmail } from '../../../src/auth/passwords';

describe('validateEmail (GoTrue rule)', () => {
  it('accepts what GoTrue accepts and lower-cases it', () => {
    for (const ok of [
      'a@b',
      'First.Last+tag@Example.COM',
      "o'neil!#$%&*/=?^_`{|}~-@x-y.example.org",
      'user@sub-domain.example.co.uk',
      `a@${'b'.repeat(63)}.com`,
    ]) {
      expect(validateEmail(ok)).toBe(ok.toLowerCase());
    }
  });

  it('refuses anything else with 400 validation_failed', () => {
    for (const bad of [
      'xx:;x@x.x',
      'plain',
      '@example.com',
      'a@',
      'a@-x.com',
      'a@x-.com',
      'a@x..com',
      ' a@example.com',
      'a@example.com ',
      'a b@example.com',
      'a@exam_ple.com',
      `a@${'b'.repeat(64)}.com`,
      'ä@example.com',
    ]) {
      expect(() => validateEmail(bad)).toThrow(
        expect.objectContaining({
          status: 400,
          code: 'validation_failed',
          message: 'Unable to validate email address: invalid format',
        }),
      );
    }
    expect(() => validateEmail('')).toThrow(
      expect.objectContaining({ message: 'An email address is required' }),
    );
    expect(() => validateEmail(`${'a'.repeat(250)}@b.com`)).toThrow(
      expect.objectContaining({ message: 'An email address is too long' }),
    );
  });
});
