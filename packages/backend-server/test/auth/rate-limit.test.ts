import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { api, mailsTo, uniqueEmail } from './support';

let server: RunningServer;

beforeAll(async () => {
  server = await startTestServer({
    auth: {
      rateLimits: { signupPerIp: 2, emailPerAddress: 2, otpPerIp: 4, tokenPerIp: 3 },
      anonymousSignIns: false,
    },
  });
});
afterAll(() => server?.stop());

const post = (path: string, json: unknown) => api(server, path, { method: 'POST', json });

describe(`auth rate limits (${databaseKind()})`, () => {
  it('limits sign-ups per IP (429 over_request_rate_limit, nothing written)', async () => {
    const email = uniqueEmail('limited');
    expect(
      (await post('/signup', { email: uniqueEmail(), password: 'rate-password' })).status,
    ).toBe(200);
    expect(
      (await post('/signup', { email: uniqueEmail(), password: 'rate-password' })).status,
    ).toBe(200);
    const third = await post('/signup', { email, password: 'rate-password' });
    expect(third.status).toBe(429);
    expect(third.headers.get('x-sb-error-code')).toBe('over_request_rate_limit');
    expect(await third.json()).toEqual({
      code: 'over_request_rate_limit',
      message: 'Request rate limit reached',
    });
    const { rows } = await server.db.query('select 1 from auth.users where email = $1', [email]);
    expect(rows).toHaveLength(0);
  });

  it('limits mails per address and otp/recover requests per IP', async () => {
    const { rows } = await server.db.query<{ email: string }>(
      'select email from auth.users order by created_at limit 1',
    );
    const email = rows[0]?.email ?? '';
    expect((await post('/recover', { email })).status).toBe(200);
    expect((await post('/recover', { email })).status).toBe(200);
    const third = await post('/recover', { email });
    expect(third.status).toBe(429);
    expect(await third.json()).toEqual({
      code: 'over_email_send_rate_limit',
      message: 'Email rate limit exceeded',
    });
    expect(await mailsTo(server, email)).toHaveLength(2);
    // Fourth otp/recover request from this IP is still allowed, the fifth is not.
    expect((await post('/otp', { email: uniqueEmail('otp') })).status).toBe(200);
    const fifth = await post('/otp', { email: uniqueEmail('otp') });
    expect(fifth.status).toBe(429);
    expect(await fifth.json()).toMatchObject({ code: 'over_request_rate_limit' });
  });

  it('limits token requests per IP', async () => {
    const body = { email: uniqueEmail('nobody'), password: 'whatever-pw' };
    for (let i = 0; i < 3; i++) {
      expect((await post('/token?grant_type=password', body)).status).toBe(400);
    }
    const over = await post('/token?grant_type=password', body);
    expect(over.status).toBe(429);
    expect(await over.json()).toMatchObject({ code: 'over_request_rate_limit' });
  });

  it('refuses anonymous sign-ins when they are turned off, and says so in /settings', async () => {
    const res = await post('/signup', { data: {} });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      code: 'anonymous_provider_disabled',
      message: 'Anonymous sign-ins are disabled',
    });
    const settings = (await (await api(server, '/settings')).json()) as {
      external: { anonymous_users: boolean };
    };
    expect(settings.external.anonymous_users).toBe(false);
  });
});
