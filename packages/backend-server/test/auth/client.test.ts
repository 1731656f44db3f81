import type { AuthChangeEvent } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { adminClient, claimsOf, client, lastMail, uniqueEmail } from './support';

let server: RunningServer;

beforeAll(async () => {
  server = await startTestServer({ auth: { rateLimits: false } });
});
afterAll(() => server?.stop());

describe(`supabase-js auth against the server (${databaseKind()})`, () => {
  it('signs up, signs in, reads and updates the user, with the auth events', async () => {
    const supabase = client(server);
    const events: AuthChangeEvent[] = [];
    const { data: sub } = supabase.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    const email = uniqueEmail('js');
    const signUp = await supabase.auth.signUp({
      email,
      password: 'first-password',
      options: { data: { display_name: 'Grace' } },
    });
    expect(signUp.error).toBeNull();
    expect(signUp.data.session?.access_token).toBeTruthy();
    expect(signUp.data.user).toMatchObject({ email, user_metadata: { display_name: 'Grace' } });

    const { data: got, error: getError } = await supabase.auth.getUser();
    expect(getError).toBeNull();
    expect(got.user?.id).toBe(signUp.data.user?.id);

    const updated = await supabase.auth.updateUser({
      data: { plan: 'free' },
      password: 'second-password',
    });
    expect(updated.error).toBeNull();
    expect(updated.data.user?.user_metadata).toEqual({ display_name: 'Grace', plan: 'free' });

    const refreshed = await supabase.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(refreshed.data.session?.refresh_token).not.toBe(signUp.data.session?.refresh_token);

    expect((await supabase.auth.signOut()).error).toBeNull();
    expect((await supabase.auth.getSession()).data.session).toBeNull();

    const bad = await supabase.auth.signInWithPassword({ email, password: 'first-password' });
    expect(bad.error?.code).toBe('invalid_credentials');
    expect(bad.error?.status).toBe(400);
    const good = await supabase.auth.signInWithPassword({ email, password: 'second-password' });
    expect(good.error).toBeNull();
    expect(good.data.user?.email).toBe(email);
    sub.subscription.unsubscribe();
    expect(events).toEqual([
      'INITIAL_SESSION',
      'SIGNED_IN',
      'USER_UPDATED',
      'TOKEN_REFRESHED',
      'SIGNED_OUT',
      'SIGNED_IN',
    ]);
  });

  it('keeps error codes on the client (the echoed API version)', async () => {
    const supabase = client(server);
    const email = uniqueEmail('codes');
    await supabase.auth.signUp({ email, password: 'some-password' });
    const again = await client(server).auth.signUp({ email, password: 'some-password' });
    expect(again.error?.code).toBe('user_already_exists');
    const weak = await client(server).auth.signUp({ email: uniqueEmail(), password: '1' });
    expect(weak.error?.name).toBe('AuthWeakPasswordError');
    expect(weak.error?.code).toBe('weak_password');
  });

  it('signs out other sessions; the signed-out client sees session_not_found as a missing session', async () => {
    const email = uniqueEmail('scopes');
    const first = client(server);
    await first.auth.signUp({ email, password: 'scope-password' });
    const second = client(server);
    await second.auth.signInWithPassword({ email, password: 'scope-password' });
    expect((await second.auth.signOut({ scope: 'others' })).error).toBeNull();
    const gone = await first.auth.getUser();
    expect(gone.error?.name).toBe('AuthSessionMissingError');
    expect((await second.auth.getUser()).data.user?.email).toBe(email);
    // A stale refresh token of a removed session cannot come back.
    expect((await first.auth.refreshSession()).error).not.toBeNull();
  });

  it('signs in anonymously and converts to a permanent user by adding an email', async () => {
    const supabase = client(server);
    const { data, error } = await supabase.auth.signInAnonymously({ options: { data: { n: 1 } } });
    expect(error).toBeNull();
    expect(data.user?.is_anonymous).toBe(true);
    expect(claimsOf(data.session?.access_token ?? '').is_anonymous).toBe(true);
    const email = uniqueEmail('anon');
    const converted = await supabase.auth.updateUser({ email });
    expect(converted.error).toBeNull();
    expect(converted.data.user).toMatchObject({ email, is_anonymous: false });
    const password = await supabase.auth.updateUser({ password: 'now-permanent' });
    expect(password.error).toBeNull();
    const login = await client(server).auth.signInWithPassword({
      email,
      password: 'now-permanent',
    });
    expect(login.data.user?.id).toBe(data.user?.id);
  });

  it('signs in with an email code (verifyOtp) and a magic link token hash', async () => {
    const email = uniqueEmail('otp');
    const supabase = client(server);
    expect((await supabase.auth.signInWithOtp({ email })).error).toBeNull();
    const mail = await lastMail(server, email);
    expect(mail.otp).toMatch(/^\d{6}$/);
    const wrong = await supabase.auth.verifyOtp({ email, token: '000000', type: 'email' });
    if (mail.otp !== '000000') expect(wrong.error?.code).toBe('otp_expired');
    const { data, error } = await supabase.auth.verifyOtp({
      email,
      token: mail.otp ?? '',
      type: 'email',
    });
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe(email);
    expect(claimsOf(data.session?.access_token ?? '').amr).toEqual([
      { method: 'otp', timestamp: expect.any(Number) },
    ]);
    // A used code is gone.
    const reused = await client(server).auth.verifyOtp({
      email,
      token: mail.otp ?? '',
      type: 'email',
    });
    expect(reused.error?.code).toBe('otp_expired');

    const noSignup = await client(server).auth.signInWithOtp({
      email: uniqueEmail('nobody'),
      options: { shouldCreateUser: false },
    });
    expect(noSignup.error?.code).toBe('otp_disabled');

    await client(server).auth.signInWithOtp({ email });
    const link = new URL((await lastMail(server, email)).links[0] ?? '');
    const hashed = await client(server).auth.verifyOtp({
      token_hash: link.searchParams.get('token') ?? '',
      type: 'magiclink',
    });
    expect(hashed.error).toBeNull();
    expect(hashed.data.user?.email).toBe(email);
  });

  it('recovers a password: reset mail, PASSWORD_RECOVERY, updateUser', async () => {
    const email = uniqueEmail('recover');
    await client(server).auth.signUp({ email, password: 'forgotten-pw' });
    const supabase = client(server);
    const events: AuthChangeEvent[] = [];
    supabase.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    expect((await supabase.auth.resetPasswordForEmail(email)).error).toBeNull();
    const mail = await lastMail(server, email);
    expect(mail.type).toBe('recovery');
    const verified = await supabase.auth.verifyOtp({
      email,
      token: mail.otp ?? '',
      type: 'recovery',
    });
    expect(verified.error).toBeNull();
    expect(events).toContain('PASSWORD_RECOVERY');
    expect((await supabase.auth.updateUser({ password: 'remembered-pw' })).error).toBeNull();
    const login = await client(server).auth.signInWithPassword({
      email,
      password: 'remembered-pw',
    });
    expect(login.error).toBeNull();
    // Unknown addresses get the same answer and no mail.
    expect((await supabase.auth.resetPasswordForEmail(uniqueEmail('ghost'))).error).toBeNull();
  });

  it('exchanges a PKCE code for a session (flowType pkce)', async () => {
    const email = uniqueEmail('pkce-js');
    await client(server).auth.signUp({ email, password: 'pkce-password' });
    const supabase = client(server, { flowType: 'pkce' });
    await supabase.auth.signInWithOtp({
      email,
      options: { emailRedirectTo: 'http://127.0.0.1:3000/done' },
    });
    const follow = await fetch((await lastMail(server, email)).links[0] ?? '', {
      redirect: 'manual',
    });
    expect(follow.status).toBe(303);
    const code = new URL(follow.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const { data, error } = await supabase.auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe(email);
    expect((await supabase.auth.getUser()).data.user?.email).toBe(email);
  });

  it('verifies claims of HS256 tokens through /user (getClaims)', async () => {
    const supabase = client(server);
    const { data } = await supabase.auth.signUp({
      email: uniqueEmail('claims'),
      password: 'pw-123456',
    });
    const claims = await supabase.auth.getClaims();
    expect(claims.error).toBeNull();
    expect(claims.data?.claims.sub).toBe(data.user?.id);
    expect(claims.data?.claims.session_id).toBe(
      claimsOf(data.session?.access_token ?? '').session_id,
    );
  });
});

describe(`supabase-js auth.admin (${databaseKind()})`, () => {
  it('creates, gets, updates, lists and deletes users', async () => {
    const admin = adminClient(server);
    const email = uniqueEmail('admin');
    const created = await admin.auth.admin.createUser({
      email,
      password: 'admin-made-pw',
      email_confirm: true,
      user_metadata: { display_name: 'Made' },
      app_metadata: { plan: 'pro' },
    });
    expect(created.error).toBeNull();
    const id = created.data.user?.id ?? '';
    expect(created.data.user).toMatchObject({
      email,
      user_metadata: { display_name: 'Made' },
      app_metadata: { provider: 'email', providers: ['email'], plan: 'pro' },
    });
    expect(created.data.user?.email_confirmed_at).toBeTruthy();
    const login = await client(server).auth.signInWithPassword({
      email,
      password: 'admin-made-pw',
    });
    expect(claimsOf(login.data.session?.access_token ?? '').app_metadata).toMatchObject({
      plan: 'pro',
    });

    expect((await admin.auth.admin.getUserById(id)).data.user?.email).toBe(email);
    const banned = await admin.auth.admin.updateUserById(id, {
      ban_duration: '24h',
      user_metadata: { x: 1 },
    });
    expect(banned.error).toBeNull();
    expect(banned.data.user?.banned_until).toBeTruthy();
    expect(banned.data.user?.user_metadata).toEqual({ display_name: 'Made', x: 1 });
    const refused = await client(server).auth.signInWithPassword({
      email,
      password: 'admin-made-pw',
    });
    expect(refused.error?.code).toBe('user_banned');
    const bannedToken = await fetch(`${server.url}/auth/v1/user`, {
      headers: {
        apikey: server.anonKey,
        authorization: `Bearer ${login.data.session?.access_token}`,
        'x-supabase-api-version': '2024-01-01',
      },
    });
    expect(bannedToken.status).toBe(403);
    expect(await bannedToken.json()).toEqual({ code: 'user_banned', message: 'User is banned' });
    await admin.auth.admin.updateUserById(id, { ban_duration: 'none' });
    expect(
      (await client(server).auth.signInWithPassword({ email, password: 'admin-made-pw' })).error,
    ).toBeNull();

    const dup = await admin.auth.admin.createUser({ email, password: 'whatever-pw' });
    expect(dup.error?.code).toBe('email_exists');
    const phone = `+1555${String(Date.now()).slice(-7)}`;
    expect((await admin.auth.admin.createUser({ phone, phone_confirm: true })).error).toBeNull();
    const dupPhone = await admin.auth.admin.createUser({ phone });
    expect(dupPhone.error?.code).toBe('phone_exists');

    expect((await admin.auth.admin.deleteUser(id)).error).toBeNull();
    const gone = await admin.auth.admin.getUserById(id);
    expect(gone.error?.status).toBe(404);
    expect(gone.error?.code).toBe('user_not_found');
  });

  it('paginates the user list with X-Total-Count and Link', async () => {
    const admin = adminClient(server);
    for (let i = 0; i < 3; i++) {
      await admin.auth.admin.createUser({ email: uniqueEmail('page'), email_confirm: true });
    }
    const page1 = await admin.auth.admin.listUsers({ page: 1, perPage: 2 });
    expect(page1.error).toBeNull();
    expect(page1.data.users).toHaveLength(2);
    const total = (page1.data as { total: number }).total;
    expect(total).toBeGreaterThanOrEqual(3);
    expect((page1.data as { nextPage: number | null }).nextPage).toBe(2);
    const raw = await fetch(`${server.url}/auth/v1/admin/users?page=1&per_page=2`, {
      headers: { apikey: server.serviceRoleKey, authorization: `Bearer ${server.serviceRoleKey}` },
    });
    expect(raw.headers.get('x-total-count')).toBe(String(total));
    const last = Math.ceil(total / 2);
    expect(raw.headers.get('link')).toBe(
      `<${server.url}/auth/v1/admin/users?page=2&per_page=2>; rel="next", <${server.url}/auth/v1/admin/users?page=${last}&per_page=2>; rel="last"`,
    );
    const body = (await raw.json()) as { users: unknown[]; aud: string };
    expect(body.aud).toBe('authenticated');
  });

  it('soft-deletes users (kept, anonymised, signed out) and filters the list by email', async () => {
    const admin = adminClient(server);
    const email = uniqueEmail('soft');
    const { data } = await admin.auth.admin.createUser({
      email,
      password: 'soft-password',
      email_confirm: true,
    });
    const id = data.user?.id ?? '';
    const filtered = await fetch(
      `${server.url}/auth/v1/admin/users?filter=${encodeURIComponent(email)}`,
      {
        headers: {
          apikey: server.serviceRoleKey,
          authorization: `Bearer ${server.serviceRoleKey}`,
        },
      },
    );
    expect(filtered.headers.get('x-total-count')).toBe('1');
    expect(((await filtered.json()) as { users: { id: string }[] }).users.map((u) => u.id)).toEqual(
      [id],
    );
    const session = await client(server).auth.signInWithPassword({
      email,
      password: 'soft-password',
    });
    expect((await admin.auth.admin.deleteUser(id, true)).error).toBeNull();
    const kept = await admin.auth.admin.getUserById(id);
    expect(kept.data.user?.deleted_at).toBeTruthy();
    expect(kept.data.user?.email).toBe('');
    const login = await client(server).auth.signInWithPassword({
      email,
      password: 'soft-password',
    });
    expect(login.error?.code).toBe('invalid_credentials');
    const me = await fetch(`${server.url}/auth/v1/user`, {
      headers: {
        apikey: server.anonKey,
        authorization: `Bearer ${session.data.session?.access_token}`,
      },
    });
    expect(me.status).toBe(403);
  });

  it('needs the service role: a user or the anon key gets 403 not_admin', async () => {
    const user = client(server);
    const { data } = await user.auth.signUp({
      email: uniqueEmail('notadmin'),
      password: 'pw-123456',
    });
    for (const token of [server.anonKey, data.session?.access_token ?? '']) {
      const res = await fetch(`${server.url}/auth/v1/admin/users`, {
        headers: {
          apikey: server.anonKey,
          authorization: `Bearer ${token}`,
          'x-supabase-api-version': '2024-01-01',
        },
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ code: 'not_admin', message: 'User not allowed' });
    }
  });

  it('generates links without sending mail, usable with verifyOtp', async () => {
    const admin = adminClient(server);
    const email = uniqueEmail('gen');
    const signup = await admin.auth.admin.generateLink({
      type: 'signup',
      email,
      password: 'gen-password',
    });
    expect(signup.error).toBeNull();
    expect(signup.data.properties).toMatchObject({
      verification_type: 'signup',
      email_otp: expect.stringMatching(/^\d{6}$/),
    });
    expect(signup.data.properties?.action_link).toContain('/auth/v1/verify?token=');
    expect(signup.data.user?.email).toBe(email);
    const verified = await client(server).auth.verifyOtp({
      token_hash: signup.data.properties?.hashed_token ?? '',
      type: 'signup',
    });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email_confirmed_at).toBeTruthy();

    const magic = await admin.auth.admin.generateLink({ type: 'magiclink', email });
    const session = await client(server).auth.verifyOtp({
      email,
      token: magic.data.properties?.email_otp ?? '',
      type: 'magiclink',
    });
    expect(session.error).toBeNull();
    const missing = await admin.auth.admin.generateLink({
      type: 'recovery',
      email: uniqueEmail('none'),
    });
    expect(missing.error?.status).toBe(404);
  });

  it('invites a user by email; the invite link signs them in', async () => {
    const admin = adminClient(server);
    const email = uniqueEmail('invite');
    const invited = await admin.auth.admin.inviteUserByEmail(email, { data: { team: 'a' } });
    expect(invited.error).toBeNull();
    expect(invited.data.user?.invited_at).toBeTruthy();
    const mail = await lastMail(server, email);
    expect(mail.type).toBe('invite');
    const follow = await fetch(mail.links[0] ?? '', { redirect: 'manual' });
    expect(follow.status).toBe(303);
    const fragment = new URLSearchParams(
      new URL(follow.headers.get('location') ?? '').hash.slice(1),
    );
    expect(fragment.get('type')).toBe('invite');
    expect(claimsOf(fragment.get('access_token') ?? '').email).toBe(email);
  });
});
