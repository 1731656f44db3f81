import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import {
  followToApp,
  fragmentOf,
  hashedNonce,
  type OpAccount,
  startOpenIdProvider,
  type TestOpenIdProvider,
} from './oauth-support';
import { api, claimsOf, client, signUp, uniqueEmail } from './support';

// A real OpenID provider (oidc-provider) as `custom:acme`: discovery, keys, code flow with
// PKCE and nonce, ID tokens for signInWithIdToken.
let op: TestOpenIdProvider;
let server: RunningServer;
const APP = 'app.test';
const NATIVE_REDIRECT = 'http://app.test/native';

beforeAll(async () => {
  op = await startOpenIdProvider();
  server = await startTestServer({
    auth: {
      rateLimits: false,
      siteUrl: `http://${APP}`,
      redirectUrls: [`http://${APP}/**`],
      manualLinking: true,
      external: {
        'custom:acme': {
          issuer: op.issuer,
          clientId: ['drive', 'mobile'],
          secret: 'drive-secret',
          displayName: 'Acme',
        },
      },
    },
  });
  op.configure([
    {
      client_id: 'drive',
      client_secret: 'drive-secret',
      redirect_uris: [`${server.url}/auth/v1/callback`],
      response_types: ['code'],
      grant_types: ['authorization_code'],
    },
    {
      // The app's own client (a mobile app's), for ID tokens it hands to signInWithIdToken.
      client_id: 'mobile',
      token_endpoint_auth_method: 'none',
      redirect_uris: [NATIVE_REDIRECT],
      response_types: ['code'],
      grant_types: ['authorization_code'],
    },
    {
      client_id: 'stranger',
      token_endpoint_auth_method: 'none',
      redirect_uris: [NATIVE_REDIRECT],
      response_types: ['code'],
      grant_types: ['authorization_code'],
    },
  ]);
});
afterAll(async () => {
  await server?.stop();
  await op?.close();
});

function account(overrides: Partial<OpAccount> = {}): OpAccount {
  const a: OpAccount = {
    sub: `acme-${randomBytes(4).toString('hex')}`,
    email: uniqueEmail('acme'),
    email_verified: true,
    name: 'Ada Lovelace',
    picture: 'https://pics.acme.test/ada.png',
    ...overrides,
  };
  op.accounts.set(a.sub, a);
  return a;
}

/** An ID token of the provider for `clientId`, as an app signing in on its own gets one. */
async function idTokenFor(who: OpAccount, clientId = 'mobile', nonce?: string): Promise<string> {
  op.signInAs(who.sub);
  const auth = new URL(`${op.issuer}/auth`);
  auth.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    scope: 'openid email profile',
    redirect_uri: NATIVE_REDIRECT,
    state: 'x',
    ...(nonce ? { nonce } : {}),
  }).toString();
  const back = await followToApp(auth.href, APP);
  const code = back.searchParams.get('code');
  expect(code).toBeTruthy();
  const res = await fetch(`${op.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: code ?? '',
      redirect_uri: NATIVE_REDIRECT,
      client_id: clientId,
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id_token: string }).id_token;
}

describe(`OpenID Connect provider (custom:acme) through oidc-provider (${databaseKind()})`, () => {
  it('signs in with signInWithOAuth (PKCE): provider login, callback, code exchange', async () => {
    const who = account();
    op.signInAs(who.sub);
    const supabase = client(server, { flowType: 'pkce' });
    const { data, error } = await supabase.auth.signInWithOAuth({
      provider: 'custom:acme',
      options: { redirectTo: `http://${APP}/welcome`, skipBrowserRedirect: true },
    });
    expect(error).toBeNull();
    const back = await followToApp(data.url ?? '', APP);
    expect(back.pathname).toBe('/welcome');
    const code = back.searchParams.get('code') ?? '';
    expect(code).toMatch(/^[0-9a-f-]{36}$/);

    // What the provider was asked: our client, scopes, PKCE and a nonce.
    const asked = op.authorizeRequests.at(-1);
    expect(asked?.get('client_id')).toBe('drive');
    expect(asked?.get('scope')).toBe('openid email profile');
    expect(asked?.get('redirect_uri')).toBe(`${server.url}/auth/v1/callback`);
    expect(asked?.get('code_challenge_method')).toBe('S256');
    expect(asked?.get('nonce')?.length).toBeGreaterThan(20);

    const exchanged = await supabase.auth.exchangeCodeForSession(code);
    expect(exchanged.error).toBeNull();
    const session = exchanged.data.session;
    expect(session?.provider_token).toEqual(expect.any(String));
    const user = session?.user;
    expect(user).toMatchObject({
      email: who.email,
      app_metadata: { provider: 'custom:acme', providers: ['custom:acme'] },
      user_metadata: {
        iss: op.issuer,
        sub: who.sub,
        email: who.email,
        email_verified: true,
        phone_verified: false,
        name: 'Ada Lovelace',
        picture: 'https://pics.acme.test/ada.png',
      },
    });
    expect(user?.email_confirmed_at).toEqual(expect.any(String));
    expect(user?.identities).toHaveLength(1);
    const [identity] = user?.identities ?? [];
    expect(Object.keys(identity ?? {})).toEqual([
      'identity_id',
      'id',
      'user_id',
      'identity_data',
      'provider',
      'last_sign_in_at',
      'created_at',
      'updated_at',
      'email',
    ]);
    expect(identity).toMatchObject({
      id: who.sub,
      user_id: user?.id,
      provider: 'custom:acme',
      email: who.email,
      identity_data: { sub: who.sub, iss: op.issuer, email: who.email, email_verified: true },
    });
    const claims = claimsOf(session?.access_token ?? '');
    expect(claims.amr).toEqual([{ method: 'oauth', timestamp: expect.any(Number) }]);

    // The code is used up; the state too.
    const again = await supabase.auth.exchangeCodeForSession(code);
    expect(again.error?.message).toMatch(/code verifier|flow state/);
  });

  it('signs in with the implicit flow: the session and the provider token in the fragment', async () => {
    const who = account();
    op.signInAs(who.sub);
    const res = await api(
      server,
      `/authorize?provider=custom:acme&redirect_to=${encodeURIComponent(`http://${APP}/in`)}`,
    );
    expect(res.status).toBe(302);
    const back = await followToApp(res.headers.get('location') ?? '', APP);
    expect(`${back.origin}${back.pathname}`).toBe(`http://${APP}/in`);
    const params = fragmentOf(back);
    expect([...params.keys()]).toEqual([
      'access_token',
      'expires_at',
      'expires_in',
      'provider_token',
      'refresh_token',
      'sb',
      'token_type',
    ]);
    expect(params.get('token_type')).toBe('bearer');
    const claims = claimsOf(params.get('access_token') ?? '');
    expect(claims).toMatchObject({ email: who.email, app_metadata: { provider: 'custom:acme' } });
    // The same account again: the same user, its identity refreshed.
    op.accounts.set(who.sub, { ...who, name: 'Ada King' });
    const second = await followToApp(
      (await api(server, '/authorize?provider=custom:acme')).headers.get('location') ?? '',
      APP,
    );
    const again = claimsOf(fragmentOf(second).get('access_token') ?? '');
    expect(again.sub).toBe(claims.sub);
    expect(again.user_metadata).toMatchObject({ name: 'Ada King' });
  });

  it('links automatically to the user who has the same verified email', async () => {
    const email = uniqueEmail('linked');
    const existing = await signUp(server, email);
    const who = account({ email });
    op.signInAs(who.sub);
    const back = await followToApp(
      (await api(server, '/authorize?provider=custom:acme')).headers.get('location') ?? '',
      APP,
    );
    const token = fragmentOf(back).get('access_token') ?? '';
    expect(claimsOf(token).sub).toBe(existing.user.id);
    const user = (await (await api(server, '/user', { token })).json()) as {
      identities: { provider: string }[];
      app_metadata: { providers: string[] };
    };
    expect(user.identities.map((i) => i.provider)).toEqual(['email', 'custom:acme']);
    expect(user.app_metadata.providers).toEqual(['email', 'custom:acme']);
  });

  it('with autoconfirm on, links an unverified email too (GoTrue counts it as verified)', async () => {
    const email = uniqueEmail('unverified');
    const existing = await signUp(server, email);
    const who = account({ email, email_verified: false });
    op.signInAs(who.sub);
    // Autoconfirm is on here (as the local default), so GoTrue treats the email as verified
    // for linking: the identity joins the existing user.
    const back = await followToApp(
      (await api(server, '/authorize?provider=custom:acme')).headers.get('location') ?? '',
      APP,
    );
    expect(claimsOf(fragmentOf(back).get('access_token') ?? '').sub).toBe(existing.user.id);
  });

  it('signs in with an ID token (nonce hashed as GoTrue checks it)', async () => {
    const who = account();
    const nonce = randomBytes(16).toString('hex');
    const token = await idTokenFor(who, 'mobile', hashedNonce(nonce));
    const supabase = client(server);
    const { data, error } = await supabase.auth.signInWithIdToken({
      provider: 'custom:acme',
      token,
      nonce,
    });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({
      email: who.email,
      app_metadata: { provider: 'custom:acme' },
      identities: [{ provider: 'custom:acme', id: who.sub }],
    });
    expect(claimsOf(data.session?.access_token ?? '').amr).toEqual([
      { method: 'oauth', timestamp: expect.any(Number) },
    ]);
  });

  it('refuses ID tokens with GoTrue’s errors', async () => {
    const who = account();
    const supabase = client(server);
    const nonce = 'the-nonce';
    const good = await idTokenFor(who, 'mobile', hashedNonce(nonce));

    const wrongNonce = await supabase.auth.signInWithIdToken({
      provider: 'custom:acme',
      token: good,
      nonce: 'another',
    });
    expect(wrongNonce.error).toMatchObject({ status: 400, message: 'Nonces mismatch' });

    const noNonce = await supabase.auth.signInWithIdToken({ provider: 'custom:acme', token: good });
    expect(noNonce.error?.message).toBe(
      'Passed nonce and nonce in id_token should either both exist or not.',
    );

    const [h, p, sig = ''] = good.split('.');
    const tampered = `${h}.${p}.${sig.slice(0, -4)}AAAA`;
    const bad = await supabase.auth.signInWithIdToken({
      provider: 'custom:acme',
      token: tampered,
      nonce,
    });
    expect(bad.error).toMatchObject({ status: 400, message: 'Bad ID token' });

    const stranger = await idTokenFor(who, 'stranger');
    const audience = await supabase.auth.signInWithIdToken({
      provider: 'custom:acme',
      token: stranger,
    });
    expect(audience.error?.message).toBe('Unacceptable audience in id_token: [stranger]');

    const unknown = await supabase.auth.signInWithIdToken({ provider: 'custom:nope', token: good });
    expect(unknown.error).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(unknown.error?.message).toBe('Custom provider "custom:nope" not found');

    const google = await supabase.auth.signInWithIdToken({ provider: 'google', token: good });
    expect(google.error).toMatchObject({ status: 400, code: 'provider_disabled' });
    expect(google.error?.message).toBe(
      'Provider (issuer "https://accounts.google.com") is not enabled',
    );

    const raw = await api(server, '/token?grant_type=id_token', {
      method: 'POST',
      json: { provider: 'custom:acme' },
    });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toEqual({
      error: 'invalid request',
      error_description: 'id_token required',
    });
  });

  it('links an ID token to the signed-in user (link_identity) and lists, then unlinks it', async () => {
    const supabase = client(server);
    const email = uniqueEmail('owner');
    await supabase.auth.signUp({ email, password: 'secret-password' });
    const who = account({ email: uniqueEmail('other') });
    const linked = await supabase.auth.linkIdentity({
      provider: 'custom:acme',
      token: await idTokenFor(who),
    });
    expect(linked.error).toBeNull();
    const { data } = await supabase.auth.getUserIdentities();
    expect(data?.identities.map((i) => i.provider)).toEqual(['email', 'custom:acme']);
    const acme = data?.identities.find((i) => i.provider === 'custom:acme');
    expect(acme).toMatchObject({ id: who.sub, identity_data: { email: who.email } });

    // The same provider account cannot be linked twice.
    const twice = await supabase.auth.linkIdentity({
      provider: 'custom:acme',
      token: await idTokenFor(who),
    });
    expect(twice.error).toMatchObject({ status: 422, code: 'identity_already_exists' });
    expect(twice.error?.message).toBe('Identity is already linked');

    const unlinked = await supabase.auth.unlinkIdentity(acme as never);
    expect(unlinked.error).toBeNull();
    const after = await supabase.auth.getUserIdentities();
    expect(after.data?.identities.map((i) => i.provider)).toEqual(['email']);
    const last = await supabase.auth.unlinkIdentity(after.data?.identities[0] as never);
    expect(last.error).toMatchObject({ status: 422, code: 'single_identity_not_deletable' });
    expect(last.error?.message).toBe('User must have at least 1 identity after unlinking');
  });

  it('links an OAuth identity to the signed-in user through linkIdentity (redirect flow)', async () => {
    const supabase = client(server, { flowType: 'pkce' });
    await supabase.auth.signUp({ email: uniqueEmail('redirect'), password: 'secret-password' });
    const who = account();
    op.signInAs(who.sub);
    const { data, error } = await supabase.auth.linkIdentity({
      provider: 'custom:acme',
      options: { redirectTo: `http://${APP}/linked`, skipBrowserRedirect: true },
    });
    expect(error).toBeNull();
    expect(data.url).toContain(`${op.issuer}/auth?`);
    const back = await followToApp(data.url ?? '', APP);
    const exchanged = await supabase.auth.exchangeCodeForSession(
      back.searchParams.get('code') ?? '',
    );
    expect(exchanged.error).toBeNull();
    expect(exchanged.data.user?.identities?.map((i) => i.provider)).toEqual([
      'email',
      'custom:acme',
    ]);
  });

  it('reports a provider refusal to the app: error in the query and the fragment', async () => {
    const start = await api(
      server,
      `/authorize?provider=custom:acme&redirect_to=${encodeURIComponent(`http://${APP}/x?keep=1`)}`,
    );
    const state = new URL(start.headers.get('location') ?? '').searchParams.get('state') ?? '';
    const denied = await fetch(
      `${server.url}/auth/v1/callback?state=${state}&error=access_denied&error_description=${encodeURIComponent('The user said no')}`,
      { redirect: 'manual' },
    );
    expect(denied.status).toBe(302);
    const url = new URL(denied.headers.get('location') ?? '');
    expect(`${url.origin}${url.pathname}`).toBe(`http://${APP}/x`);
    expect(url.search).toBe('?error=access_denied&error_description=The+user+said+no&keep=1');
    expect(url.hash).toBe('#error=access_denied&error_description=The+user+said+no&sb=');

    // A state that is unknown, or not a UUID, goes back to the site URL (303, query only).
    const unknown = await fetch(
      `${server.url}/auth/v1/callback?state=${crypto.randomUUID()}&code=x`,
      {
        redirect: 'manual',
      },
    );
    expect(unknown.status).toBe(303);
    expect(unknown.headers.get('location')).toBe(
      `http://${APP}/?error=invalid_request&error_code=bad_oauth_state&error_description=OAuth+state+not+found+or+expired`,
    );
    const missing = await fetch(`${server.url}/auth/v1/callback`, { redirect: 'manual' });
    expect(new URL(missing.headers.get('location') ?? '').searchParams.get('error_code')).toBe(
      'bad_oauth_callback',
    );
  });
});
