import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { startTestServer } from '../support/server';
import { adminClient, api, client, uniqueEmail } from './support';

const BAD = 'xx:;x@x.x';
const INVALID_FORMAT = {
  status: 400,
  code: 'validation_failed',
  message: 'Unable to validate email address: invalid format',
};

describe('email addresses (GoTrue rule), through supabase-js', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('refuses xx:;x@x.x on sign-up, createUser, inviteUserByEmail and generateLink', async () => {
    const admin = adminClient(server).auth.admin;
    const results = {
      signUp: await client(server).auth.signUp({ email: BAD, password: 'password-1' }),
      createUser: await admin.createUser({ email: BAD, password: 'password-1' }),
      invite: await admin.inviteUserByEmail(BAD),
      generateLink: await admin.generateLink({ type: 'magiclink', email: BAD }),
      otp: await client(server).auth.signInWithOtp({ email: BAD }),
    };
    for (const [flow, { error }] of Object.entries(results)) {
      expect({ flow, ...error?.toJSON?.() }).toMatchObject({ flow, ...INVALID_FORMAT });
    }
    const { rows } = await server.db.query<{ n: number }>(
      'select count(*)::int as n from auth.users where email = $1',
      [BAD],
    );
    expect(rows[0]?.n).toBe(0);
  });

  it('answers the legacy shape too (error_code validation_failed, msg)', async () => {
    const res = await api(server, '/signup', {
      method: 'POST',
      legacy: true,
      json: { email: BAD, password: 'password-1' },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-sb-error-code')).toBe('validation_failed');
    expect(await res.json()).toEqual({
      code: 400,
      error_code: 'validation_failed',
      msg: 'Unable to validate email address: invalid format',
    });
  });

  it('accepts addresses GoTrue accepts, such as a host without a top-level domain', async () => {
    const email = `Someone+tag.${Date.now()}@localhost`;
    const { data, error } = await client(server).auth.signUp({ email, password: 'password-1' });
    expect(error).toBeNull();
    expect(data.user?.email).toBe(email.toLowerCase());
  });
});

describe('sign-ups disabled (disableSignup)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ auth: { disableSignup: true } });
  });
  afterAll(() => server?.stop());

  const SIGNUP_DISABLED = {
    status: 422,
    code: 'signup_disabled',
    message: 'Signups not allowed for this instance',
  };

  it('refuses sign-up, anonymous sign-in and OTP for a new address with signup_disabled', async () => {
    const auth = client(server).auth;
    const email = uniqueEmail('closed');
    const results = {
      signUp: await auth.signUp({ email, password: 'password-1' }),
      anonymous: await auth.signInAnonymously(),
      otp: await auth.signInWithOtp({ email }),
    };
    for (const [flow, { error }] of Object.entries(results)) {
      expect({ flow, ...error?.toJSON?.() }).toMatchObject({ flow, ...SIGNUP_DISABLED });
    }
    expect(results.signUp.data.user).toBeNull();
    const { rows } = await server.db.query<{ n: number }>(
      'select count(*)::int as n from auth.users where email = $1',
      [email],
    );
    expect(rows[0]?.n).toBe(0);
    // The check comes first: even a sign-up GoTrue would otherwise refuse gets this answer.
    const res = await api(server, '/signup', { method: 'POST', legacy: true, json: {} });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      code: 422,
      error_code: 'signup_disabled',
      msg: 'Signups not allowed for this instance',
    });
  });

  it('still lets the admin API create users, who sign in with password and OTP', async () => {
    const email = uniqueEmail('admin-made');
    const admin = adminClient(server).auth.admin;
    const created = await admin.createUser({ email, password: 'password-1', email_confirm: true });
    expect(created.error).toBeNull();
    const auth = client(server).auth;
    const signIn = await auth.signInWithPassword({ email, password: 'password-1' });
    expect(signIn.error).toBeNull();
    expect(signIn.data.session?.access_token).toBeTruthy();
    expect((await auth.signInWithOtp({ email })).error).toBeNull();
    const invited = await admin.inviteUserByEmail(uniqueEmail('invited'));
    expect(invited.error).toBeNull();
  });

  it('says so in /settings', async () => {
    const res = await api(server, '/settings');
    expect(await res.json()).toMatchObject({ disable_signup: true });
  });
});
