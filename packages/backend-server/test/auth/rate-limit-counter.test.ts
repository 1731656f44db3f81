import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError } from '../../src/auth/errors';
import { authService } from '../../src/auth/index';
import { RateLimiter } from '../../src/auth/rate-limit';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';

const LIMITS = {
  tokenPerIp: 2,
  signupPerIp: 1,
  emailPerAddress: 1,
  otpPerIp: 3,
  smsSent: 1,
  mfaPerIp: 2,
  passkeyPerIp: 1,
};

let server: RunningServer;
let clock = Date.parse('2026-01-01T00:00:00Z');
const now = () => clock;

beforeAll(async () => {
  server = await startTestServer({}, { services: [authService] });
});
afterAll(() => server?.stop());

async function code(hit: Promise<void>): Promise<string | null> {
  try {
    await hit;
    return null;
  } catch (error) {
    return error instanceof AuthError ? `${error.status} ${error.code}` : 'other';
  }
}

async function rows(): Promise<number> {
  const { rows } = await server.db.query<{ n: number }>(
    'select count(*)::int as n from _auth.rate_limits',
  );
  return rows[0]?.n ?? 0;
}

describe(`RateLimiter, counted in the database (${databaseKind()})`, () => {
  it('counts per bucket and key, and refuses past the limit', async () => {
    const limiter = new RateLimiter(LIMITS, server.db, { now });
    expect(await code(limiter.hit('tokenPerIp', 'a'))).toBeNull();
    expect(await code(limiter.hit('tokenPerIp', 'a'))).toBeNull();
    expect(await code(limiter.hit('tokenPerIp', 'a'))).toBe('429 over_request_rate_limit');
    expect(await code(limiter.hit('tokenPerIp', 'b'))).toBeNull();
    expect(await code(limiter.hit('signupPerIp', 'a'))).toBeNull();
    expect(await code(limiter.hit('emailPerAddress', 'x@example.com'))).toBeNull();
    expect(await code(limiter.hit('emailPerAddress', 'x@example.com'))).toBe(
      '429 over_email_send_rate_limit',
    );
    expect(await code(limiter.hit('smsSent', 'all'))).toBeNull();
    expect(await code(limiter.hit('smsSent', 'all'))).toBe('429 over_sms_send_rate_limit');
  });

  it('shares the counts between limiters on one database (as replicas do)', async () => {
    const one = new RateLimiter(LIMITS, server.db, { now });
    const two = new RateLimiter(LIMITS, server.db, { now });
    expect(await code(one.hit('otpPerIp', 'shared'))).toBeNull();
    expect(await code(two.hit('otpPerIp', 'shared'))).toBeNull();
    expect(await code(one.hit('otpPerIp', 'shared'))).toBeNull();
    expect(await code(two.hit('otpPerIp', 'shared'))).toBe('429 over_request_rate_limit');
  });

  it('counts every one of many hits at once', async () => {
    const limiter = new RateLimiter({ ...LIMITS, otpPerIp: 10 }, server.db, { now });
    const results = await Promise.all(
      Array.from({ length: 25 }, () => code(limiter.hit('otpPerIp', 'burst'))),
    );
    expect(results.filter((r) => r === null)).toHaveLength(10);
    expect(results.filter((r) => r === '429 over_request_rate_limit')).toHaveLength(15);
  });

  it('counts MFA challenges and verifications per minute', async () => {
    const limiter = new RateLimiter(LIMITS, server.db, { now });
    await limiter.hit('mfaPerIp', 'verify:a');
    await limiter.hit('mfaPerIp', 'verify:a');
    expect(await code(limiter.hit('mfaPerIp', 'verify:a'))).toBe('429 over_request_rate_limit');
    expect(await code(limiter.hit('mfaPerIp', 'challenge:a'))).toBeNull();
    clock += 60_000;
    expect(await code(limiter.hit('mfaPerIp', 'verify:a'))).toBeNull();
  });

  it('starts a new window when the old one has passed (5 minutes for tokens)', async () => {
    const limiter = new RateLimiter(LIMITS, server.db, { now });
    await limiter.hit('tokenPerIp', 'window');
    await limiter.hit('tokenPerIp', 'window');
    clock += 299_000;
    expect(await code(limiter.hit('tokenPerIp', 'window'))).toBe('429 over_request_rate_limit');
    clock += 2_000;
    expect(await code(limiter.hit('tokenPerIp', 'window'))).toBeNull();
    expect(await code(limiter.hit('tokenPerIp', 'window'))).toBeNull();
    expect(await code(limiter.hit('tokenPerIp', 'window'))).toBe('429 over_request_rate_limit');
  });

  it('deletes ended windows', async () => {
    const limiter = new RateLimiter(LIMITS, server.db, { now });
    await limiter.hit('tokenPerIp', 'sweep');
    expect(await rows()).toBeGreaterThan(1);
    clock += 2 * 3600_000;
    // The first hit of a limiter sweeps; only its own fresh row is left.
    await new RateLimiter(LIMITS, server.db, { now }).hit('tokenPerIp', 'after');
    const { rows: left } = await server.db.query<{ key: string }>(
      'select key from _auth.rate_limits',
    );
    expect(left).toEqual([{ key: 'tokenPerIp:after' }]);
  });

  it('never refuses when limits are off, and writes nothing', async () => {
    await server.db.query('delete from _auth.rate_limits');
    const limiter = new RateLimiter(false, server.db, { now });
    for (let i = 0; i < 20; i++) await limiter.hit('signupPerIp', 'a');
    expect(await code(limiter.hit('signupPerIp', 'a'))).toBeNull();
    expect(await rows()).toBe(0);
  });
});
