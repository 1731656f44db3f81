import { describe, expect, it } from 'vitest';
import { readRecoveryHash } from './recovery';

describe('readRecoveryHash', () => {
  it('reads the session of a recovery redirect', () => {
    expect(
      readRecoveryHash(
        '#access_token=a.b.c&expires_at=1&expires_in=3600&refresh_token=r1&sb=&token_type=bearer&type=recovery',
      ),
    ).toEqual({ kind: 'session', access_token: 'a.b.c', refresh_token: 'r1' });
  });

  it('ignores a session handed over for another purpose', () => {
    expect(readRecoveryHash('#access_token=a.b.c&refresh_token=r1&type=signup')).toBeNull();
  });

  it('reads the error of a link that is expired or already used', () => {
    expect(
      readRecoveryHash(
        '#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb=',
      ),
    ).toEqual({ kind: 'error', code: 'otp_expired' });
  });

  it('finds nothing in an empty fragment', () => {
    expect(readRecoveryHash('')).toBeNull();
    expect(readRecoveryHash('#')).toBeNull();
  });
});
