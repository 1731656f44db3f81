import { describe, expect, it } from 'vitest';
import { readRecoveryError } from '../../../src/lib/recovery';

describe('readRecoveryError', () => {
  it('reads the error of a link that is expired or already used', () => {
    expect(
      readRecoveryError(
        '#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb=',
      ),
    ).toBe('otp_expired');
    expect(readRecoveryError('#error=server_error')).toBe('server_error');
  });

  it('finds nothing in a fragment without an error', () => {
    expect(readRecoveryError('')).toBeNull();
    expect(readRecoveryError('#')).toBeNull();
    expect(readRecoveryError('#access_token=a.b.c&refresh_token=r1&type=recovery')).toBeNull();
  });
});
