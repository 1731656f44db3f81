import { createHash, randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { api, claimsOf, lastMail, signUp, uniqueEmail } from './support';

let server: RunningServer;

beforeAll(async () => {
  // Reuse interval 0: a replayed refresh token outside the parent rule revokes the family.
  server = await startTestServer({ auth: { refreshTokenReuseInterval: 0, rateLimits: false } });
});
afterAll(() => server?.stop());

const json = async (res: Response) => (await res.json()) as Record<string, unknown>;

async function usersWithEmail(email: string): Promise<number> {
  const { rows } = await server.db.query<{ n: number }>(
    'select count(*)::int as n from auth.users where email = $1',
    [email],
  );
  return rows[0]?.n ?? -1;
}

function sign(
  claims: Record<string, unknown>,
  secret = server.jwtSecret,
  exp: string | number = '1h',
) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(secret));
}

describe(`auth over raw HTTP (${databaseKind()})`, () => {
  it('serves health, settings and an empty JWKS (JWKS on an open path, cacheable)', async () => {
    const health = await api(server, '/health');
    expect(health.status).toBe(200);
    expect(await json(health)).toMatchObject({ name: 'GoTrue' });
    const settings = await json(await api(server, '/settings'));
    expect(settings).toMatchObject({
      disable_signup: false,
      mailer_autoconfirm: true,
      phone_autoconfirm: true,
      external: { email: true, phone: false, anonymous_users: true, github: false },
    });
    // Like the hosted gateway, health needs the key too.
    const keyless = await fetch(`${server.url}/auth/v1/health`);
    expect(keyless.status).toBe(401);
    expect(await keyless.json()).toMatchObject({ message: 'No API key found in request' });
    const jwks = await fetch(`${server.url}/auth/v1/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    expect(jwks.headers.get('cache-control')).toBe('public, max-age=600');
    expect(await jwks.json()).toEqual({ keys: [] });
  });

  it('needs a known apikey, except on the open paths', async () => {
    const none = await fetch(`${server.url}/auth/v1/settings`);
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({
      message: 'No API key found in request',
      hint: 'No `apikey` request header or url param was found.',
    });
    const bad = await fetch(`${server.url}/auth/v1/settings`, { headers: { apikey: 'nope' } });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ message: 'Invalid API key' });
    const verify = await fetch(`${server.url}/auth/v1/verify?type=signup`, { redirect: 'manual' });
    expect(verify.status).toBe(400);
    expect(await verify.json()).toMatchObject({ error_code: 'validation_failed' });
    const authorize = await fetch(`${server.url}/auth/v1/authorize?provider=github`, {
      redirect: 'manual',
    });
    expect(authorize.status).toBe(400);
    expect(await authorize.json()).toEqual({
      code: 400,
      error_code: 'validation_failed',
      msg: 'Unsupported provider: provider is not enabled',
    });
  });

  it('answers CORS preflights for the auth headers', async () => {
    const res = await fetch(`${server.url}/auth/v1/token?grant_type=password`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://app.test',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'apikey, authorization, x-supabase-api-version',
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-headers')).toContain('x-supabase-api-version');
    const health = await api(server, '/health', { headers: { origin: 'http://app.test' } });
    expect(health.headers.get('access-control-expose-headers')).toContain('X-Supabase-Api-Version');
  });

  it('reports errors in the 2024-01-01 shape with the echoed version, else the legacy shape', async () => {
    const body = { email: uniqueEmail(), password: 'whatever-pw' };
    const modern = await api(server, '/token?grant_type=password', { method: 'POST', json: body });
    expect(modern.status).toBe(400);
    expect(modern.headers.get('x-supabase-api-version')).toBe('2024-01-01');
    expect(modern.headers.get('x-sb-error-code')).toBe('invalid_credentials');
    expect(await modern.json()).toEqual({
      code: 'invalid_credentials',
      message: 'Invalid login credentials',
    });
    const legacy = await api(server, '/token?grant_type=password', {
      method: 'POST',
      json: body,
      legacy: true,
    });
    expect(legacy.status).toBe(400);
    expect(legacy.headers.get('x-supabase-api-version')).toBeNull();
    expect(legacy.headers.get('x-sb-error-code')).toBe('invalid_credentials');
    expect(await legacy.json()).toEqual({
      code: 400,
      error_code: 'invalid_credentials',
      msg: 'Invalid login credentials',
    });
  });

  it('refuses bad input with the hosted codes and writes nothing', async () => {
    const email = uniqueEmail('bad');
    const malformed = await api(server, '/signup', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"email":"${email}","password":`,
    });
    expect(malformed.status).toBe(400);
    expect(await json(malformed)).toMatchObject({ code: 'bad_json' });

    const wrongType = await api(server, '/signup', {
      method: 'POST',
      json: { email, password: 123456789 },
    });
    expect(wrongType.status).toBe(400);
    expect(await json(wrongType)).toMatchObject({ code: 'bad_json' });

    const notObject = await api(server, '/signup', { method: 'POST', json: [email] });
    expect(notObject.status).toBe(400);

    const huge = await api(server, '/signup', {
      method: 'POST',
      json: { email, password: 'secret-password', data: { blob: 'x'.repeat(1024 * 1024) } },
    });
    expect(huge.status).toBe(413);
    expect(await json(huge)).toMatchObject({ code: 'request_entity_too_large' });

    const grant = await api(server, '/token?grant_type=magic', { method: 'POST', json: {} });
    expect(grant.status).toBe(400);
    expect(await json(grant)).toEqual({
      code: 'invalid_credentials',
      message: 'unsupported_grant_type',
    });

    const noToken = await api(server, '/token?grant_type=refresh_token', {
      method: 'POST',
      json: {},
    });
    expect(noToken.status).toBe(400);
    expect(await json(noToken)).toEqual({
      error: 'invalid_request',
      error_description: 'refresh_token required',
    });
    expect(await usersWithEmail(email)).toBe(0);
  });

  it('validates sign-ups: password, strength, email format, duplicates', async () => {
    const email = uniqueEmail('signup');
    const noPassword = await api(server, '/signup', { method: 'POST', json: { email } });
    expect(noPassword.status).toBe(400);
    expect(await json(noPassword)).toEqual({
      code: 'validation_failed',
      message: 'Signup requires a valid password',
    });
    const weak = await api(server, '/signup', { method: 'POST', json: { email, password: '123' } });
    expect(weak.status).toBe(422);
    expect(await json(weak)).toEqual({
      code: 'weak_password',
      message: 'Password should be at least 6 characters.',
      weak_password: { reasons: ['length'] },
    });
    const badEmail = await api(server, '/signup', {
      method: 'POST',
      json: { email: 'not-an-email', password: 'secret-password' },
    });
    expect(badEmail.status).toBe(400);
    expect(await json(badEmail)).toMatchObject({ code: 'validation_failed' });
    expect(await usersWithEmail(email)).toBe(0);

    await signUp(server, email);
    const again = await api(server, '/signup', {
      method: 'POST',
      json: { email: email.toUpperCase(), password: 'secret-password' },
    });
    expect(again.status).toBe(422);
    expect(await json(again)).toEqual({
      code: 'user_already_exists',
      message: 'User already registered',
    });
    expect(await usersWithEmail(email)).toBe(1);
  });

  it('issues access tokens with the hosted claims, signed HS256 with the project secret', async () => {
    const email = uniqueEmail('claims');
    const res = await api(server, '/signup', {
      method: 'POST',
      json: { email, password: 'secret-password', data: { display_name: 'Ada' } },
    });
    const session = await json(res);
    expect(session).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
    expect(typeof session.refresh_token).toBe('string');
    const user = session.user as Record<string, unknown>;
    expect(user).toMatchObject({
      email,
      phone: '',
      aud: 'authenticated',
      role: 'authenticated',
      is_anonymous: false,
      user_metadata: { display_name: 'Ada' },
      app_metadata: { provider: 'email', providers: ['email'] },
    });
    expect(user.email_confirmed_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(user).not.toHaveProperty('phone_confirmed_at');
    const { payload, protectedHeader } = await jwtVerify(
      String(session.access_token),
      new TextEncoder().encode(server.jwtSecret),
    );
    expect(protectedHeader.alg).toBe('HS256');
    expect(payload).toMatchObject({
      sub: user.id,
      aud: 'authenticated',
      role: 'authenticated',
      email,
      phone: '',
      iss: `${server.url}/auth/v1`,
      aal: 'aal1',
      is_anonymous: false,
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: { display_name: 'Ada' },
    });
    expect(payload.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(payload.amr).toEqual([{ method: 'password', timestamp: expect.any(Number) }]);
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600);
    expect(session.expires_at).toBe(payload.exp);
  });

  it('signs in anonymously', async () => {
    const res = await api(server, '/signup', { method: 'POST', json: { data: { theme: 'dark' } } });
    expect(res.status).toBe(200);
    const session = await json(res);
    expect(session.user).toMatchObject({
      is_anonymous: true,
      email: '',
      phone: '',
      identities: [],
    });
    const claims = claimsOf(String(session.access_token));
    expect(claims).toMatchObject({
      is_anonymous: true,
      role: 'authenticated',
      user_metadata: { theme: 'dark' },
    });
    expect(claims.amr).toEqual([{ method: 'anonymous', timestamp: expect.any(Number) }]);
  });

  it('checks passwords on the password grant', async () => {
    const email = uniqueEmail('login');
    await signUp(server, email, 'right-password');
    const wrong = await api(server, '/token?grant_type=password', {
      method: 'POST',
      json: { email, password: 'wrong-password' },
    });
    expect(wrong.status).toBe(400);
    expect(await json(wrong)).toMatchObject({ code: 'invalid_credentials' });
    const missing = await api(server, '/token?grant_type=password', {
      method: 'POST',
      json: { password: 'x' },
    });
    expect(await json(missing)).toEqual({
      code: 'validation_failed',
      message: 'missing email or phone',
    });
    const ok = await api(server, '/token?grant_type=password', {
      method: 'POST',
      json: { email: email.toUpperCase(), password: 'right-password' },
    });
    expect(ok.status).toBe(200);
    expect(await json(ok)).toMatchObject({
      token_type: 'bearer',
      weak_password: null,
      user: { email },
    });
  });

  it('rejects expired, forged, unsigned and foreign tokens on /user with 403 bad_jwt', async () => {
    const { access_token, user } = await signUp(server);
    const claims = claimsOf(access_token);
    const expired = await sign(claims, server.jwtSecret, Math.floor(Date.now() / 1000) - 60);
    const foreign = await sign(claims, 'another-secret-that-is-at-least-32-characters');
    const [header, , signature] = access_token.split('.');
    const payload = Buffer.from(JSON.stringify({ ...claims, role: 'service_role' })).toString(
      'base64url',
    );
    const forged = `${header}.${payload}.${signature}`;
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
    for (const token of [expired, foreign, forged, none, 'not-a-jwt']) {
      const res = await api(server, '/user', { token });
      expect(res.status).toBe(403);
      const body = await json(res);
      expect(body.code).toBe('bad_jwt');
      expect(String(body.message)).toMatch(/^invalid JWT: unable to parse or verify signature, /);
    }
    // No Authorization with a legacy key: the hosted gateway passes no bearer token on.
    const keyOnly = await api(server, '/user');
    expect(keyOnly.status).toBe(401);
    expect(await json(keyOnly)).toEqual({
      code: 'no_authorization',
      message: 'This endpoint requires a valid Bearer token',
    });
    const anon = await api(server, '/user', { token: server.anonKey });
    expect(anon.status).toBe(403);
    expect(await json(anon)).toEqual({
      code: 'bad_jwt',
      message: 'invalid claim: missing sub claim',
    });
    const ok = await api(server, '/user', { token: access_token });
    expect(await json(ok)).toMatchObject({ id: user.id });
  });

  it('rotates refresh tokens: parent returns the active child, other reuse revokes the family', async () => {
    const first = await signUp(server);
    const refresh = (token: string) =>
      api(server, '/token?grant_type=refresh_token', {
        method: 'POST',
        json: { refresh_token: token },
      });
    const r1 = await json(await refresh(first.refresh_token));
    expect(r1.refresh_token).not.toBe(first.refresh_token);
    expect(claimsOf(String(r1.access_token)).session_id).toBe(
      claimsOf(first.access_token).session_id,
    );
    // The client lost the answer: the parent of the active token gets the active token again.
    const replay = await json(await refresh(first.refresh_token));
    expect(replay.refresh_token).toBe(r1.refresh_token);
    const r2 = await json(await refresh(String(r1.refresh_token)));
    // An older token now is neither the parent of the active one nor inside the reuse interval.
    const reuse = await refresh(first.refresh_token);
    expect(reuse.status).toBe(400);
    expect(await json(reuse)).toEqual({
      code: 'refresh_token_already_used',
      message: 'Invalid Refresh Token: Already Used',
    });
    const family = await refresh(String(r2.refresh_token));
    expect(family.status).toBe(400);
    expect(await json(family)).toMatchObject({ code: 'refresh_token_already_used' });
    const unknown = await refresh('no-such-token');
    expect(await json(unknown)).toEqual({
      code: 'refresh_token_not_found',
      message: 'Invalid Refresh Token: Refresh Token Not Found',
    });
  });

  it('logs out by scope; a logged-out session’s token gets session_not_found', async () => {
    const email = uniqueEmail('logout');
    const a = await signUp(server, email);
    const login = async () =>
      (await json(
        await api(server, '/token?grant_type=password', {
          method: 'POST',
          json: { email, password: 'secret-password' },
        }),
      )) as { access_token: string; refresh_token: string };
    const [b, c] = [await login(), await login()];
    const status = async (token: string) => (await api(server, '/user', { token })).status;

    const bad = await api(server, '/logout?scope=everything', {
      method: 'POST',
      token: a.access_token,
    });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ code: 'validation_failed' });

    const others = await api(server, '/logout?scope=others', {
      method: 'POST',
      token: a.access_token,
    });
    expect(others.status).toBe(204);
    expect(await others.text()).toBe('');
    expect([
      await status(a.access_token),
      await status(b.access_token),
      await status(c.access_token),
    ]).toEqual([200, 403, 403]);
    const gone = await api(server, '/user', { token: b.access_token });
    expect(await json(gone)).toEqual({
      code: 'session_not_found',
      message: 'Session from session_id claim in JWT does not exist',
    });

    const d = await login();
    expect(
      (await api(server, '/logout?scope=local', { method: 'POST', token: a.access_token })).status,
    ).toBe(204);
    expect([await status(a.access_token), await status(d.access_token)]).toEqual([403, 200]);
    const refreshDead = await api(server, '/token?grant_type=refresh_token', {
      method: 'POST',
      json: { refresh_token: a.refresh_token },
    });
    expect(refreshDead.status).toBe(400);

    const e = await login();
    expect((await api(server, '/logout', { method: 'POST', token: d.access_token })).status).toBe(
      204,
    );
    expect([await status(d.access_token), await status(e.access_token)]).toEqual([403, 403]);
  });

  it('updates the user: metadata merge, password, and the hosted refusals', async () => {
    const email = uniqueEmail('update');
    const session = await signUp(server, email, 'old-password');
    const put = (json: unknown) =>
      api(server, '/user', { method: 'PUT', token: session.access_token, json });
    await put({ data: { a: 1, b: 2 } });
    const merged = await json(await put({ data: { b: null, c: 3 } }));
    expect(merged.user_metadata).toEqual({ a: 1, c: 3 });

    const same = await put({ password: 'old-password' });
    expect(same.status).toBe(422);
    expect(await json(same)).toMatchObject({ code: 'same_password' });
    const weak = await put({ password: 'x' });
    expect(weak.status).toBe(422);
    const admin = await put({ app_metadata: { plan: 'pro' } });
    expect(admin.status).toBe(403);
    expect(await json(admin)).toMatchObject({ code: 'not_admin' });
    const other = await signUp(server);
    const taken = await api(server, '/user', {
      method: 'PUT',
      token: other.access_token,
      json: { email },
    });
    expect(taken.status).toBe(422);
    expect(await json(taken)).toMatchObject({ code: 'email_exists' });

    expect((await put({ password: 'new-password' })).status).toBe(200);
    const login = (password: string) =>
      api(server, '/token?grant_type=password', { method: 'POST', json: { email, password } });
    expect((await login('old-password')).status).toBe(400);
    expect((await login('new-password')).status).toBe(200);
  });

  it('runs the PKCE flow: code_challenge → link with ?code= → token exchange with the verifier', async () => {
    const email = uniqueEmail('pkce');
    await signUp(server, email);
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const otp = await api(server, '/otp?redirect_to=http://127.0.0.1:5173/cb', {
      method: 'POST',
      json: { email, create_user: false, code_challenge: challenge, code_challenge_method: 's256' },
    });
    expect(otp.status).toBe(200);
    const link = (await lastMail(server, email)).links[0] ?? '';
    expect(new URL(link).searchParams.get('token')).toMatch(/^pkce_/);
    const follow = await fetch(link, { redirect: 'manual' });
    expect(follow.status).toBe(303);
    const location = new URL(follow.headers.get('location') ?? '');
    // Same host as the site URL (any port) is an allowed redirect.
    expect(location.origin + location.pathname).toBe('http://127.0.0.1:5173/cb');
    const code = location.searchParams.get('code') ?? '';
    expect(code).not.toBe('');
    const exchange = (code_verifier: string) =>
      api(server, '/token?grant_type=pkce', {
        method: 'POST',
        json: { auth_code: code, code_verifier },
      });
    const wrong = await exchange(randomBytes(32).toString('base64url'));
    expect(wrong.status).toBe(400);
    expect(await json(wrong)).toMatchObject({ code: 'bad_code_verifier' });
    const ok = await exchange(verifier);
    expect(ok.status).toBe(200);
    expect(await json(ok)).toMatchObject({ token_type: 'bearer', user: { email } });
    const again = await exchange(verifier);
    expect(again.status).toBe(404);
    expect(await json(again)).toMatchObject({ code: 'flow_state_not_found' });
  });

  it('refuses links and codes past their lifetime with otp_expired', async () => {
    const email = uniqueEmail('expired');
    await signUp(server, email);
    expect((await api(server, '/otp', { method: 'POST', json: { email } })).status).toBe(200);
    const mail = await lastMail(server, email);
    await server.db.query(
      `update auth.users set recovery_sent_at = now() - interval '2 hours' where email = $1`,
      [email],
    );
    const code = await api(server, '/verify', {
      method: 'POST',
      json: { type: 'magiclink', email, token: mail.otp },
    });
    expect(code.status).toBe(403);
    expect(await code.json()).toEqual({
      code: 'otp_expired',
      message: 'Token has expired or is invalid',
    });
    const link = await fetch(mail.links[0] ?? '', { redirect: 'manual' });
    expect(link.status).toBe(303);
    const fragment = new URLSearchParams(new URL(link.headers.get('location') ?? '').hash.slice(1));
    expect(fragment.get('error_code')).toBe('otp_expired');
  });
});
