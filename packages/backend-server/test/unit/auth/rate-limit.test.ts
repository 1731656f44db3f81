import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthError } from '../../../src/auth/errors';
import { RateLimiter } from '../../../src/auth/rate-limit';

const LIMITS = {
  tokenPerIp: 2,
  signupPerIp: 1,
  emailPerAddress: 1,
  otpPerIp: 3,
  smsSent: 1,
  mfaPerIp: 2,
  passkeyPerIp: 1,
};

function code(fn: () => void): string | null {
  try {
    fn();
    return null;
  } catch (error) {
    return error instanceof AuthError ? `${error.status} ${error.code}` : 'other';
  }
}

describe('RateLimiter', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('counts per bucket and key, and refuses past the limit', () => {
    const limiter = new RateLimiter(LIMITS);
    expect(code(() => limiter.hit('tokenPerIp', 'a'))).toBeNull();
    expect(code(() => limiter.hit('tokenPerIp', 'a'))).toBeNull();
    expect(code(() => limiter.hit('tokenPerIp', 'a'))).toBe('429 over_request_rate_limit');
    expect(code(() => limiter.hit('tokenPerIp', 'b'))).toBeNull();
    expect(code(() => limiter.hit('signupPerIp', 'a'))).toBeNull();
    expect(code(() => limiter.hit('emailPerAddress', 'x@example.com'))).toBeNull();
    expect(code(() => limiter.hit('emailPerAddress', 'x@example.com'))).toBe(
      '429 over_email_send_rate_limit',
    );
    expect(code(() => limiter.hit('smsSent', 'all'))).toBeNull();
    expect(code(() => limiter.hit('smsSent', 'all'))).toBe('429 over_sms_send_rate_limit');
  });

  it('counts MFA challenges and verifications per minute', () => {
    vi.useFakeTimers();
    const limiter = new RateLimiter(LIMITS);
    limiter.hit('mfaPerIp', 'verify:a');
    limiter.hit('mfaPerIp', 'verify:a');
    expect(code(() => limiter.hit('mfaPerIp', 'verify:a'))).toBe('429 over_request_rate_limit');
    expect(code(() => limiter.hit('mfaPerIp', 'challenge:a'))).toBeNull();
    vi.advanceTimersByTime(60_000);
    expect(code(() => limiter.hit('mfaPerIp', 'verify:a'))).toBeNull();
  });

  it('starts a new window when the old one has passed (5 minutes for tokens)', () => {
    vi.useFakeTimers();
    const limiter = new RateLimiter(LIMITS);
    limiter.hit('tokenPerIp', 'a');
    limiter.hit('tokenPerIp', 'a');
    vi.advanceTimersByTime(299_000);
    expect(code(() => limiter.hit('tokenPerIp', 'a'))).toBe('429 over_request_rate_limit');
    vi.advanceTimersByTime(2_000);
    expect(code(() => limiter.hit('tokenPerIp', 'a'))).toBeNull();
  });

  it('never refuses when limits are off', () => {
    const limiter = new RateLimiter(false);
    for (let i = 0; i < 100; i++) limiter.hit('signupPerIp', 'a');
    expect(code(() => limiter.hit('signupPerIp', 'a'))).toBeNull();
  });
});
