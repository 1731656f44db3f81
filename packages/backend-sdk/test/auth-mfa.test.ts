import { fileURLToPath } from 'node:url';
import { type RunningServer, startServer } from '@app/backend-server';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthChangeEvent, createAuthClient, memoryStorage } from '../src/auth/index';
import { createClient } from '../src/index';
import { officialClient } from './support/official';
import { type Recorded, recordingFetch } from './support/record';
import { freshEmail } from './support/server';

let server: RunningServer;
const TEST_PHONE = '15550007777';

beforeAll(async () => {
  server = await startServer({
    port: 0,
    migrationsDir: fileURLToPath(new URL('./fixtures/migrations', import.meta.url)),
    auth: {
      rateLimits: false,
      sms: { enabled: true, autoconfirm: false, testOtp: { [TEST_PHONE]: '314159' } },
      mfa: { phone: { enroll: true, verify: true } },
    },
  });
});
afterAll(async () => {
  await server?.stop();
});

const PASSWORD = 'correct horse 1';
const totp = (secret: string) =>
  new TOTP({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  }).generate();
let phones = 0;
const freshPhone = () => `1555${String((Date.now() + phones++) % 10_000_000).padStart(7, '0')}`;

/** The newest SMS code sent to a number (the server's dev outbox). */
async function lastCode(phone: string): Promise<string> {
  const res = await fetch(`${server.url}/_dev/sms?to=${phone}`, {
    headers: { apikey: server.serviceRoleKey },
  });
  const [sms] = (await res.json()) as { otp: string }[];
  if (!sms) throw new Error(`no SMS to ${phone}`);
  return sms.otp;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** Values that differ between two runs of the same flow. */
const VOLATILE =
  /^(id|user_id|identity_id|sub|access_token|refresh_token|expires_at|expires_in|created_at|updated_at|last_sign_in_at|email_confirmed_at|phone_confirmed_at|confirmed_at|confirmation_sent_at|phone_change_sent_at|last_challenged_at|email|phone|new_phone|session_id|timestamp|secret|uri|qr_code|challenge_id|factorId|code|token)$/;
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        VOLATILE.test(k) && v !== null && typeof v !== 'object' ? typeof v : shape(v),
      ]),
    );
  return value;
}
const wire = (r: Recorded) => ({
  method: r.method,
  path: r.path.replace(UUID, '<id>'),
  query: r.query,
  auth: r.headers.authorization === `Bearer ${server.anonKey}` ? 'key' : 'user',
  version: r.headers['x-supabase-api-version'],
  body: r.body ? shape(JSON.parse(r.body)) : null,
});
const errorOf = (e: unknown) => {
  const x = e as { status?: number; code?: string; message?: string } | null;
  return x ? { status: x.status, code: x.code, message: x.message } : null;
};

// biome-ignore lint/suspicious/noExplicitAny: the flows drive both clients' auth untyped
type Any = any;
const signedUp = (auth: Any) => auth.signUp({ email: freshEmail('mfa'), password: PASSWORD });

describe('MFA and phone auth: the same requests and results as the official client', () => {
  const flows: [string, (auth: Any) => Promise<Any>][] = [
    [
      'enroll a TOTP factor',
      async (auth) => {
        await signedUp(auth);
        return auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone app' });
      },
    ],
    [
      'challenge and verify',
      async (auth) => {
        await signedUp(auth);
        const { data } = await auth.mfa.enroll({ factorType: 'totp' });
        const challenge = await auth.mfa.challenge({ factorId: data.id });
        return auth.mfa.verify({
          factorId: data.id,
          challengeId: challenge.data.id,
          code: totp(data.totp.secret),
        });
      },
    ],
    [
      'challengeAndVerify with a wrong code',
      async (auth) => {
        await signedUp(auth);
        const { data } = await auth.mfa.enroll({ factorType: 'totp' });
        const code = totp(data.totp.secret) === '000000' ? '000001' : '000000';
        return auth.mfa.challengeAndVerify({ factorId: data.id, code });
      },
    ],
    [
      'list factors and the assurance level after verifying',
      async (auth) => {
        await signedUp(auth);
        const { data } = await auth.mfa.enroll({ factorType: 'totp', friendlyName: 'A' });
        await auth.mfa.challengeAndVerify({ factorId: data.id, code: totp(data.totp.secret) });
        const list = await auth.mfa.listFactors();
        const aal = await auth.mfa.getAuthenticatorAssuranceLevel();
        return { data: { list: list.data, aal: aal.data }, error: list.error ?? aal.error };
      },
    ],
    [
      'unenroll',
      async (auth) => {
        await signedUp(auth);
        const { data } = await auth.mfa.enroll({ factorType: 'totp' });
        return auth.mfa.unenroll({ factorId: data.id });
      },
    ],
    ['assurance level signed out', (auth) => auth.mfa.getAuthenticatorAssuranceLevel()],
    [
      'phone factor',
      async (auth) => {
        await signedUp(auth);
        const phone = freshPhone();
        const { data } = await auth.mfa.enroll({ factorType: 'phone', phone });
        const challenge = await auth.mfa.challenge({ factorId: data.id });
        return auth.mfa.verify({
          factorId: data.id,
          challengeId: challenge.data.id,
          code: await lastCode(phone),
        });
      },
    ],
    ['phone sign-up', (auth) => auth.signUp({ phone: freshPhone(), password: PASSWORD })],
    [
      'phone sign-up confirmed by SMS code, then password sign-in',
      async (auth) => {
        const phone = freshPhone();
        await auth.signUp({ phone, password: PASSWORD });
        await auth.verifyOtp({ phone, token: await lastCode(phone), type: 'sms' });
        await auth.signOut({ scope: 'local' });
        return auth.signInWithPassword({ phone, password: PASSWORD });
      },
    ],
    ['sign in with an SMS code', (auth) => auth.signInWithOtp({ phone: freshPhone() })],
    [
      'test number and its fixed code',
      async (auth) => {
        await auth.signInWithOtp({ phone: TEST_PHONE });
        return auth.verifyOtp({ phone: TEST_PHONE, token: '314159', type: 'sms' });
      },
    ],
    [
      'invalid number',
      (auth) => auth.verifyOtp({ phone: '12-invalid', token: '123456', type: 'sms' }),
    ],
    [
      'phone change',
      async (auth) => {
        await signedUp(auth);
        const phone = freshPhone();
        await auth.updateUser({ phone });
        return auth.verifyOtp({ phone, token: await lastCode(phone), type: 'phone_change' });
      },
    ],
    ['resend an SMS code', (auth) => auth.resend({ type: 'sms', phone: freshPhone() })],
  ];

  it.each(flows)('%s', async (_name, flow) => {
    const ours = recordingFetch();
    const theirs = recordingFetch();
    const a = createAuthClient(server.url, server.anonKey, {
      fetch: ours.fetch,
      storage: memoryStorage(),
      autoRefreshToken: false,
    });
    const b = officialClient(server.url, server.anonKey, { fetch: theirs.fetch }).auth;
    const ra = await flow(a);
    const rb = await flow(b);
    expect(shape(ra.data ?? null)).toEqual(shape(rb.data ?? null));
    const ourError = errorOf(ra.error);
    // A call that needs a session fails on the client with an SDK code the official client lacks.
    if (ourError?.code === 'session_missing' && errorOf(rb.error)?.code === undefined)
      ourError.code = undefined;
    expect(ourError).toEqual(errorOf(rb.error));
    expect(ours.log.map(wire)).toEqual(theirs.log.map(wire));
    a.dispose();
  });
});

describe('MFA in the SDK', () => {
  it('refuses MFA calls without a session on the client (the official client asks the server)', async () => {
    const { fetch, log } = recordingFetch();
    const auth = createAuthClient(server.url, server.anonKey, { fetch, storage: memoryStorage() });
    for (const result of [
      await auth.mfa.enroll({ factorType: 'totp' }),
      await auth.mfa.challenge({ factorId: crypto.randomUUID() }),
      await auth.mfa.unenroll({ factorId: crypto.randomUUID() }),
    ]) {
      expect(result).toMatchObject({ data: null, error: { code: 'session_missing', status: 400 } });
    }
    expect(log).toEqual([]);
    auth.dispose();
  });

  it('verifying saves the aal2 session and emits MFA_CHALLENGE_VERIFIED', async () => {
    const client = createClient(server.url, server.anonKey, {
      auth: { storage: memoryStorage(), autoRefreshToken: false },
    });
    const events: AuthChangeEvent[] = [];
    client.auth.onAuthStateChange((event) => void events.push(event));
    await client.auth.signUp({ email: freshEmail('sdk-mfa'), password: PASSWORD });
    const enrolled = await client.auth.mfa.enroll({ factorType: 'totp' });
    if (enrolled.error) throw enrolled.error;
    expect(enrolled.data.totp.qr_code.startsWith('data:image/svg+xml;utf-8,<svg')).toBe(true);
    const before = await client.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(before.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal1' });
    const verified = await client.auth.mfa.challengeAndVerify({
      factorId: enrolled.data.id,
      code: totp(enrolled.data.totp.secret),
    });
    expect(verified.error).toBeNull();
    expect(events.at(-1)).toBe('MFA_CHALLENGE_VERIFIED');
    const session = (await client.auth.getSession()).data.session;
    expect(session?.access_token).toBe(verified.data?.access_token);
    const after = await client.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(after.data?.currentLevel).toBe('aal2');
    expect(after.data?.currentAuthenticationMethods.map((m) => m.method)).toEqual([
      'totp',
      'password',
    ]);
    // With a token: the level of that token, the next level from the server's user.
    const byToken = await client.auth.mfa.getAuthenticatorAssuranceLevel(session?.access_token);
    expect(byToken.data).toMatchObject({ currentLevel: 'aal2', nextLevel: 'aal2' });
    client.auth.dispose();
  });

  it('lists and deletes a user’s factors with the admin API', async () => {
    const user = createAuthClient(server.url, server.anonKey, { storage: memoryStorage() });
    const signUp = await user.signUp({ email: freshEmail('admin-mfa'), password: PASSWORD });
    const userId = signUp.data.user?.id ?? '';
    const enrolled = await user.mfa.enroll({ factorType: 'totp', friendlyName: 'Key' });
    const admin = createAuthClient(server.url, server.serviceRoleKey, {
      storage: memoryStorage(),
      autoRefreshToken: false,
    });
    const listed = await admin.admin.mfa.listFactors({ userId });
    expect(listed.data?.factors).toMatchObject([
      { id: enrolled.data?.id, friendly_name: 'Key', factor_type: 'totp', status: 'unverified' },
    ]);
    const deleted = await admin.admin.mfa.deleteFactor({ userId, id: enrolled.data?.id ?? '' });
    expect(deleted.data?.id).toBe(enrolled.data?.id);
    expect((await admin.admin.mfa.listFactors({ userId })).data?.factors).toEqual([]);
    const missing = await admin.admin.mfa.listFactors({ userId: crypto.randomUUID() });
    expect(missing).toMatchObject({ data: null, error: { status: 404, code: 'user_not_found' } });
    user.dispose();
    admin.dispose();
  });
});
