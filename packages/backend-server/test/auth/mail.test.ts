import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { api, claimsOf, client, lastMail, mailsTo, uniqueEmail } from './support';

let server: RunningServer;
const APP = 'http://127.0.0.1:3000/welcome';

beforeAll(async () => {
  server = await startTestServer({
    auth: { autoconfirm: false, rateLimits: false, securePasswordChange: true },
  });
});
afterAll(() => server?.stop());

/** Follows a mailed link like a browser and returns where it redirects (303). */
async function follow(link: string): Promise<URL> {
  const res = await fetch(link, { redirect: 'manual' });
  expect(res.status).toBe(303);
  return new URL(res.headers.get('location') ?? '');
}

describe(`mail flows with autoconfirm off (${databaseKind()})`, () => {
  it('keeps an outbox for the service role only, newest first', async () => {
    const email = uniqueEmail('outbox');
    await client(server).auth.signUp({ email, password: 'outbox-password' });
    await client(server).auth.resend({ type: 'signup', email });
    const denied = await fetch(`${server.url}/_dev/mail`, { headers: { apikey: server.anonKey } });
    expect(denied.status).toBe(401);
    const mails = await mailsTo(server, email);
    expect(mails).toHaveLength(2);
    expect(mails[0]).toMatchObject({ to: email, type: 'signup', subject: 'Confirm Your Signup' });
    expect(mails[0]?.otp).toMatch(/^\d{6}$/);
    expect(mails[0]?.otp).not.toBe(mails[1]?.otp);
    expect(mails[0]?.text).toContain(mails[0]?.links[0]);
    expect(mails[0]?.html).toContain('<a href=');
  });

  it('confirms a sign-up through the mailed link; before that there is no session', async () => {
    const email = uniqueEmail('confirm');
    const supabase = client(server);
    const signUp = await supabase.auth.signUp({
      email,
      password: 'confirm-password',
      options: { emailRedirectTo: APP },
    });
    expect(signUp.error).toBeNull();
    expect(signUp.data.session).toBeNull();
    expect(signUp.data.user?.confirmation_sent_at).toBeTruthy();
    expect(signUp.data.user?.email_confirmed_at).toBeUndefined();
    const early = await supabase.auth.signInWithPassword({ email, password: 'confirm-password' });
    expect(early.error?.code).toBe('email_not_confirmed');

    const link = (await lastMail(server, email)).links[0] ?? '';
    const landed = await follow(link);
    expect(landed.origin + landed.pathname).toBe(APP);
    const fragment = new URLSearchParams(landed.hash.slice(1));
    expect(fragment.get('type')).toBe('signup');
    expect(fragment.get('token_type')).toBe('bearer');
    expect(fragment.has('sb')).toBe(true);
    const session = await supabase.auth.setSession({
      access_token: fragment.get('access_token') ?? '',
      refresh_token: fragment.get('refresh_token') ?? '',
    });
    expect(session.error).toBeNull();
    expect(session.data.user?.email_confirmed_at).toBeTruthy();
    expect(claimsOf(fragment.get('access_token') ?? '').email).toBe(email);

    // The link is single use: the second visit lands with the error in the fragment.
    const again = await follow(link);
    const error = new URLSearchParams(again.hash.slice(1));
    expect(error.get('error')).toBe('access_denied');
    expect(error.get('error_code')).toBe('otp_expired');
    expect(error.get('error_description')).toBe('Email link is invalid or has expired');
    expect(
      (await supabase.auth.signInWithPassword({ email, password: 'confirm-password' })).error,
    ).toBeNull();
  });

  it('hides that a confirmed address is taken: a look-alike user without identities', async () => {
    const email = uniqueEmail('taken');
    const first = await client(server).auth.signUp({ email, password: 'taken-password' });
    await client(server).auth.verifyOtp({
      email,
      token: (await lastMail(server, email)).otp ?? '',
      type: 'signup',
    });
    const before = (await mailsTo(server, email)).length;
    const second = await client(server).auth.signUp({ email, password: 'other-password' });
    expect(second.error).toBeNull();
    expect(second.data.user?.identities).toEqual([]);
    expect(second.data.user?.id).not.toBe(first.data.user?.id);
    expect((await mailsTo(server, email)).length).toBe(before);
    const { rows } = await server.db.query<{ n: number }>(
      'select count(*)::int as n from auth.users where email = $1',
      [email],
    );
    expect(rows[0]?.n).toBe(1);
  });

  it('confirms with the code of a resent mail; the earlier code no longer works', async () => {
    const email = uniqueEmail('resend');
    await client(server).auth.signUp({ email, password: 'resend-password' });
    const old = (await lastMail(server, email)).otp ?? '';
    expect((await client(server).auth.resend({ type: 'signup', email })).error).toBeNull();
    const fresh = (await lastMail(server, email)).otp ?? '';
    if (old !== fresh) {
      const stale = await client(server).auth.verifyOtp({ email, token: old, type: 'signup' });
      expect(stale.error?.code).toBe('otp_expired');
    }
    const ok = await client(server).auth.verifyOtp({ email, token: fresh, type: 'signup' });
    expect(ok.error).toBeNull();
    expect(ok.data.session?.user.email).toBe(email);
  });

  it('confirms a PKCE sign-up: the link carries ?code= for exchangeCodeForSession', async () => {
    const email = uniqueEmail('pkce-signup');
    const supabase = client(server, { flowType: 'pkce' });
    await supabase.auth.signUp({
      email,
      password: 'pkce-password',
      options: { emailRedirectTo: APP },
    });
    const landed = await follow((await lastMail(server, email)).links[0] ?? '');
    const code = landed.searchParams.get('code') ?? '';
    expect(code).not.toBe('');
    const { data, error } = await supabase.auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    expect(data.user?.email_confirmed_at).toBeTruthy();
  });

  it('changes the email with confirmation from both addresses (secure email change)', async () => {
    const email = uniqueEmail('old');
    const supabase = client(server);
    await supabase.auth.signUp({ email, password: 'change-password' });
    await supabase.auth.verifyOtp({
      email,
      token: (await lastMail(server, email)).otp ?? '',
      type: 'signup',
    });
    const next = uniqueEmail('new');
    const update = await supabase.auth.updateUser({ email: next });
    expect(update.error).toBeNull();
    expect(update.data.user).toMatchObject({ email, new_email: next });
    const toNew = await lastMail(server, next);
    const toOld = await lastMail(server, email);
    expect(toNew.type).toBe('email_change_new');
    expect(toOld.type).toBe('email_change_current');

    const half = await api(server, '/verify', {
      method: 'POST',
      json: { type: 'email_change', email, token: toOld.otp },
    });
    expect(half.status).toBe(200);
    expect(await half.json()).toEqual({
      msg: 'Confirmation link accepted. Please proceed to confirm link sent to the other email',
      code: '200',
    });
    expect((await supabase.auth.getUser()).data.user?.email).toBe(email);

    const done = await supabase.auth.verifyOtp({
      email: next,
      token: toNew.otp ?? '',
      type: 'email_change',
    });
    expect(done.error).toBeNull();
    expect(done.data.user?.email).toBe(next);
    expect(
      (await client(server).auth.signInWithPassword({ email: next, password: 'change-password' }))
        .error,
    ).toBeNull();
    expect(
      (await client(server).auth.signInWithPassword({ email, password: 'change-password' })).error
        ?.code,
    ).toBe('invalid_credentials');
  });

  it('sends the signup confirmation (not a magic link) to unconfirmed addresses on /otp', async () => {
    const email = uniqueEmail('otp-new');
    expect((await client(server).auth.signInWithOtp({ email })).error).toBeNull();
    const mail = await lastMail(server, email);
    expect(mail.type).toBe('signup');
    const verified = await client(server).auth.verifyOtp({
      email,
      token: mail.otp ?? '',
      type: 'email',
    });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email_confirmed_at).toBeTruthy();
  });

  it('asks for the mailed nonce to change the password on a session older than 24 h', async () => {
    const email = uniqueEmail('reauth');
    const supabase = client(server);
    await supabase.auth.signUp({ email, password: 'reauth-password-1' });
    const confirmed = await supabase.auth.verifyOtp({
      email,
      token: (await lastMail(server, email)).otp ?? '',
      type: 'signup',
    });
    // A fresh session may change the password without a nonce.
    expect((await supabase.auth.updateUser({ password: 'reauth-password-2' })).error).toBeNull();
    await server.db.query(
      `update auth.sessions set created_at = now() - interval '25 hours' where user_id = $1`,
      [confirmed.data.user?.id],
    );
    const needed = await supabase.auth.updateUser({ password: 'reauth-password-3' });
    expect(needed.error?.code).toBe('reauthentication_needed');
    expect((await supabase.auth.reauthenticate()).error).toBeNull();
    const mail = await lastMail(server, email);
    expect(mail).toMatchObject({ type: 'reauthentication', links: [] });
    const nonce = mail.otp ?? '';
    const wrong = await supabase.auth.updateUser({
      password: 'reauth-password-3',
      nonce: `x${nonce}`,
    });
    expect(wrong.error?.code).toBe('reauthentication_not_valid');
    expect(
      (await supabase.auth.updateUser({ password: 'reauth-password-3', nonce })).error,
    ).toBeNull();
    const reused = await supabase.auth.updateUser({ password: 'reauth-password-4', nonce });
    expect(reused.error?.code).toBe('reauthentication_not_valid');
    const login = await client(server).auth.signInWithPassword({
      email,
      password: 'reauth-password-3',
    });
    expect(login.error).toBeNull();
  });

  it('validates /verify, /recover and /resend input', async () => {
    const noType = await api(server, '/verify', {
      method: 'POST',
      json: { token: '123456', email: uniqueEmail() },
    });
    expect(noType.status).toBe(400);
    expect(await noType.json()).toEqual({
      code: 'validation_failed',
      message: 'Verify requires a verification type',
    });
    const noToken = await api(server, '/verify', { method: 'POST', json: { type: 'signup' } });
    expect(await noToken.json()).toMatchObject({ code: 'validation_failed' });
    const badType = await api(server, '/verify', {
      method: 'POST',
      json: { type: 'telepathy', token_hash: 'x' },
    });
    expect(await badType.json()).toEqual({
      code: 'validation_failed',
      message: 'Unsupported verification type',
    });
    const unknown = await api(server, '/verify', {
      method: 'POST',
      json: { type: 'email', token_hash: 'nope' },
    });
    expect(unknown.status).toBe(403);
    expect(await unknown.json()).toEqual({
      code: 'otp_expired',
      message: 'Token has expired or is invalid',
    });
    const recover = await api(server, '/recover', { method: 'POST', json: {} });
    expect(recover.status).toBe(400);
    expect(await recover.json()).toEqual({
      code: 'validation_failed',
      message: 'Password recovery requires an email',
    });
    const resend = await api(server, '/resend', {
      method: 'POST',
      json: { type: 'recovery', email: uniqueEmail() },
    });
    expect(resend.status).toBe(400);
    expect(await resend.json()).toMatchObject({ code: 'validation_failed' });
  });
});
