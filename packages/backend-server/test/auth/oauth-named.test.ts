import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { followToApp, fragmentOf, hashedNonce } from './oauth-support';
import { ACCESS_TOKEN, type ProviderDoubles, startProviderDoubles } from './provider-doubles';
import { api, claimsOf, client, lastMail, uniqueEmail } from './support';

// Each named provider against a small server that plays its documented endpoints (the real
// ones are out of reach here): the authorize URL, the code exchange, the profile requests,
// and the identity GoTrue makes of the answers. Autoconfirm is off here, as on a hosted
// project, so provider email verification matters.
let doubles: ProviderDoubles;
let server: RunningServer;
const APP = 'app.test';
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

beforeAll(async () => {
  doubles = await startProviderDoubles();
  server = await startTestServer({
    auth: {
      autoconfirm: false,
      rateLimits: false,
      siteUrl: `http://${APP}`,
      redirectUrls: [`http://${APP}/**`],
      external: {
        github: { clientId: 'gh-client', secret: 'gh-secret', url: `${doubles.url}/github` },
        google: {
          clientId: ['google-web', 'google-ios'],
          secret: 'google-secret',
          url: `${doubles.url}/google`,
        },
        gitlab: { clientId: 'gl-client', secret: 'gl-secret', url: `${doubles.url}/gitlab` },
        discord: { clientId: 'dc-client', secret: 'dc secret&', url: `${doubles.url}/discord` },
      },
    },
  });
});
afterAll(async () => {
  await server?.stop();
  await doubles?.close();
});

/** Runs the implicit flow for `provider`; returns the app's redirect. */
async function signIn(provider: string, query = '') {
  const res = await api(
    server,
    `/authorize?provider=${provider}&redirect_to=${encodeURIComponent(`http://${APP}/done`)}${query}`,
  );
  expect(res.status).toBe(302);
  const authorizeUrl = new URL(res.headers.get('location') ?? '');
  const back = await followToApp(authorizeUrl.href, APP);
  return { authorizeUrl, back, params: fragmentOf(back) };
}

async function userOf(token: string) {
  return (await (await api(server, '/user', { token })).json()) as Record<string, unknown> & {
    id: string;
    identities: Record<string, unknown>[];
  };
}

const lastSeen = (path: string) => [...doubles.seen].reverse().find((s) => s.path === path);

describe(`named providers against their documented endpoints (${databaseKind()})`, () => {
  it('reports the configured providers in /settings', async () => {
    const settings = (await (await api(server, '/settings')).json()) as {
      external: Record<string, boolean>;
    };
    expect(settings.external).toMatchObject({
      github: true,
      google: true,
      gitlab: true,
      discord: true,
      apple: false,
      email: true,
    });
  });

  it('GitHub: authorize URL, code exchange, /user and /user/emails → identity', async () => {
    const id = randomInt(1_000_000, 9_999_999);
    const email = uniqueEmail('octo');
    doubles.scenario('github', {
      api: {
        '/api/v3/user': {
          id,
          login: 'octocat',
          name: 'The Octocat',
          avatar_url: 'https://avatars.example/octo.png',
          email: null,
        },
        '/api/v3/user/emails': [
          { email: 'old@example.com', primary: false, verified: true },
          { email, primary: true, verified: true },
        ],
      },
    });
    const { authorizeUrl, params } = await signIn('github', '&scopes=repo,gist');
    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(
      `${doubles.url}/github/login/oauth/authorize`,
    );
    expect(Object.fromEntries(authorizeUrl.searchParams)).toEqual({
      client_id: 'gh-client',
      redirect_uri: `${server.url}/auth/v1/callback`,
      response_type: 'code',
      scope: 'user:email repo gist',
      state: expect.stringMatching(/^[0-9a-f-]{36}$/),
      redirect_to: `http://${APP}/done`,
    });
    const tokenRequest = lastSeen('/github/login/oauth/access_token');
    expect(tokenRequest?.authorization).toBe(basic('gh-client', 'gh-secret'));
    expect(Object.fromEntries(tokenRequest?.body ?? [])).toEqual({
      grant_type: 'authorization_code',
      code: expect.stringMatching(/^code-github-/),
      redirect_uri: `${server.url}/auth/v1/callback`,
    });
    expect(lastSeen('/github/api/v3/user/emails')?.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);

    expect(params.get('provider_token')).toBe(ACCESS_TOKEN);
    expect(params.get('provider_refresh_token')).toBe('refresh-github');
    const user = await userOf(params.get('access_token') ?? '');
    const identityData = {
      iss: `${doubles.url}/github/api/v3`,
      sub: String(id),
      name: 'The Octocat',
      preferred_username: 'octocat',
      email,
      email_verified: true,
      phone_verified: false,
      full_name: 'The Octocat',
      avatar_url: 'https://avatars.example/octo.png',
      provider_id: String(id),
      user_name: 'octocat',
    };
    expect(user).toMatchObject({
      email,
      app_metadata: { provider: 'github', providers: ['github'] },
      user_metadata: identityData,
    });
    expect(user.email_confirmed_at).toEqual(expect.any(String));
    expect(user.identities).toEqual([
      {
        identity_id: expect.any(String),
        id: String(id),
        user_id: user.id,
        identity_data: identityData,
        provider: 'github',
        last_sign_in_at: expect.any(String),
        created_at: expect.any(String),
        updated_at: expect.any(String),
        email,
      },
    ]);
  });

  it('GitHub: an unverified email is refused until confirmed; a confirmation mail goes out', async () => {
    const email = uniqueEmail('unverified');
    doubles.scenario('github', {
      api: {
        '/api/v3/user': { id: randomInt(1_000_000, 9_999_999), login: 'newbie', name: 'New' },
        '/api/v3/user/emails': [{ email, primary: true, verified: false }],
      },
    });
    const { back } = await signIn('github');
    expect(`${back.origin}${back.pathname}`).toBe(`http://${APP}/done`);
    const message =
      'Unverified email with github. A confirmation email has been sent to your github email';
    expect(Object.fromEntries(back.searchParams)).toEqual({
      error: 'access_denied',
      error_code: 'provider_email_needs_verification',
      error_description: message,
    });
    expect(back.hash).toBe(
      `#${new URLSearchParams({ error: 'access_denied', error_code: 'provider_email_needs_verification', error_description: message, sb: '' })}`,
    );
    const mail = await lastMail(server, email);
    expect(mail.type).toBe('signup');
  });

  it('GitHub: a failed code exchange reaches the app as server_error', async () => {
    doubles.scenario('github', {
      api: {},
      token: { error: 'bad_verification_code', error_description: 'The code is wrong' },
    });
    const { back } = await signIn('github');
    expect(back.searchParams.get('error')).toBe('server_error');
    expect(back.searchParams.get('error_code')).toBe('unexpected_failure');
    expect(back.searchParams.get('error_description')).toMatch(
      /^Unable to exchange external code: code$/,
    );
  });

  it('Google: discovery, a verified ID token with our nonce → identity (hd kept)', async () => {
    const sub = String(randomInt(100_000_000, 999_999_999));
    const email = uniqueEmail('google');
    doubles.scenario('google', {
      api: {},
      idToken: {
        sub,
        aud: 'google-web',
        email,
        email_verified: true,
        name: 'Grace Hopper',
        picture: 'https://lh3.example/grace.jpg',
        hd: 'example.com',
      },
    });
    const { authorizeUrl, params } = await signIn('google', '&scopes=openid');
    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(
      `${doubles.url}/google/o/oauth2/v2/auth`,
    );
    expect(authorizeUrl.searchParams.get('scope')).toBe('email profile openid');
    expect(authorizeUrl.searchParams.get('client_id')).toBe('google-web');
    expect(authorizeUrl.searchParams.get('nonce')).toBeTruthy();
    const user = await userOf(params.get('access_token') ?? '');
    expect(user.identities[0]).toMatchObject({
      provider: 'google',
      id: sub,
      email,
      identity_data: {
        iss: `${doubles.url}/google`,
        sub,
        name: 'Grace Hopper',
        picture: 'https://lh3.example/grace.jpg',
        avatar_url: 'https://lh3.example/grace.jpg',
        full_name: 'Grace Hopper',
        provider_id: sub,
        custom_claims: { hd: 'example.com' },
        email,
        email_verified: true,
        phone_verified: false,
      },
    });
  });

  it('Google: an ID token for another client is refused at the callback', async () => {
    doubles.scenario('google', {
      api: {},
      idToken: { sub: '1', aud: 'someone-else', email: uniqueEmail(), email_verified: true },
    });
    const { back } = await signIn('google');
    expect(back.searchParams.get('error_description')).toBe(
      'Error getting user profile from external provider',
    );
  });

  it('Google without an ID token: the userinfo v2 endpoint (legacy path)', async () => {
    const email = uniqueEmail('legacy');
    doubles.scenario('google', {
      api: {
        '/userinfo/v2/me': {
          id: '4242',
          email,
          verified_email: true,
          name: 'Legacy User',
          picture: 'https://lh3.example/l.jpg',
        },
      },
    });
    const { params } = await signIn('google');
    const user = await userOf(params.get('access_token') ?? '');
    expect(user.identities[0]?.identity_data).toEqual({
      iss: `${doubles.url}/google/userinfo/v2/me`,
      sub: '4242',
      name: 'Legacy User',
      picture: 'https://lh3.example/l.jpg',
      email,
      email_verified: true,
      phone_verified: false,
      avatar_url: 'https://lh3.example/l.jpg',
      full_name: 'Legacy User',
      provider_id: '4242',
    });
  });

  it('Google: signInWithIdToken checks issuer, audience (any client id) and nonce', async () => {
    const email = uniqueEmail('native');
    const nonce = 'raw-nonce';
    const token = await doubles.googleIdToken({
      sub: '777',
      aud: 'google-ios',
      email,
      email_verified: true,
      nonce: hashedNonce(nonce),
    });
    const supabase = client(server);
    const ok = await supabase.auth.signInWithIdToken({ provider: 'google', token, nonce });
    expect(ok.error).toBeNull();
    expect(ok.data.user?.identities?.[0]).toMatchObject({ provider: 'google', id: '777', email });
    const byIssuer = await api(server, '/token?grant_type=id_token', {
      method: 'POST',
      json: { id_token: token, issuer: `${doubles.url}/google`, client_id: 'x', nonce },
    });
    expect(byIssuer.status).toBe(200);
    const garbage = await supabase.auth.signInWithIdToken({
      provider: 'google',
      token: 'mock-id-token',
    });
    expect(garbage.error?.message).toBe('Bad ID token');
  });

  it('GitLab: /api/v4/user (confirmed_at) and extra emails', async () => {
    const email = uniqueEmail('gitlab');
    doubles.scenario('gitlab', {
      api: {
        '/api/v4/user': {
          id: 31337,
          name: 'Tanuki',
          avatar_url: 'https://gitlab.example/t.png',
          email,
          confirmed_at: '2024-01-01T00:00:00Z',
        },
        '/api/v4/user/emails': [{ id: 1, email: 'second@example.com' }],
      },
    });
    const { authorizeUrl, params } = await signIn('gitlab');
    expect(authorizeUrl.searchParams.get('scope')).toBe('read_user');
    const user = await userOf(params.get('access_token') ?? '');
    expect(user.email).toBe(email);
    expect(user.identities[0]?.identity_data).toEqual({
      iss: `${doubles.url}/gitlab`,
      sub: '31337',
      name: 'Tanuki',
      picture: 'https://gitlab.example/t.png',
      email,
      email_verified: true,
      phone_verified: false,
      avatar_url: 'https://gitlab.example/t.png',
      full_name: 'Tanuki',
      provider_id: '31337',
    });
  });

  it('Discord: /users/@me, avatar URL from the hash, client secret form-encoded', async () => {
    const email = uniqueEmail('discord');
    doubles.scenario('discord', {
      api: {
        '/api/users/@me': {
          id: '80351110224678912',
          username: 'nelly',
          global_name: 'Nelly',
          discriminator: '1337',
          avatar: 'a_8342729096ea3675442027381ff50dfe',
          email,
          verified: true,
        },
      },
    });
    const { authorizeUrl, params } = await signIn('discord');
    expect(authorizeUrl.searchParams.get('scope')).toBe('email identify');
    expect(lastSeen('/discord/api/oauth2/token')?.authorization).toBe(
      basic('dc-client', 'dc+secret%26'),
    );
    const user = await userOf(params.get('access_token') ?? '');
    const avatar =
      'https://cdn.discordapp.com/avatars/80351110224678912/a_8342729096ea3675442027381ff50dfe.gif';
    expect(user.identities[0]?.identity_data).toEqual({
      iss: `${doubles.url}/discord/api`,
      sub: '80351110224678912',
      name: 'nelly#1337',
      picture: avatar,
      email,
      email_verified: true,
      phone_verified: false,
      custom_claims: { global_name: 'Nelly' },
      avatar_url: avatar,
      full_name: 'nelly',
      provider_id: '80351110224678912',
    });
  });

  it('PKCE through a named provider: the code, then the provider tokens with the session', async () => {
    doubles.scenario('github', {
      api: {
        '/api/v3/user': { id: randomInt(1_000_000, 9_999_999), login: 'pkce', name: 'P' },
        '/api/v3/user/emails': [{ email: uniqueEmail('pkce'), primary: true, verified: true }],
      },
    });
    const supabase = client(server, { flowType: 'pkce' });
    const { data } = await supabase.auth.signInWithOAuth({
      provider: 'github',
      options: { redirectTo: `http://${APP}/cb`, skipBrowserRedirect: true },
    });
    const back = await followToApp(data.url ?? '', APP);
    expect(back.hash).toBe('');
    const { data: signedIn, error } = await supabase.auth.exchangeCodeForSession(
      back.searchParams.get('code') ?? '',
    );
    expect(error).toBeNull();
    expect(signedIn.session).toMatchObject({
      provider_token: ACCESS_TOKEN,
      provider_refresh_token: 'refresh-github',
    });
    expect(claimsOf(signedIn.session?.access_token ?? '').app_metadata).toMatchObject({
      provider: 'github',
    });
  });

  it('answers /authorize for unknown or unusable providers as GoTrue', async () => {
    const cases: [string, string][] = [
      ['twitch', 'Unsupported provider: provider is not enabled'],
      ['myspace', 'Unsupported provider: Provider myspace could not be found'],
      ['custom:nope', 'Unsupported provider: custom provider custom:nope not found'],
      ['', 'Unsupported provider: Provider  could not be found'],
    ];
    for (const [provider, msg] of cases) {
      const res = await api(server, `/authorize?provider=${provider}`, { legacy: true });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ code: 400, error_code: 'validation_failed', msg });
    }
    const badPkce = await api(
      server,
      '/authorize?provider=github&code_challenge=short&code_challenge_method=s256',
    );
    expect(badPkce.status).toBe(400);
    expect(((await badPkce.json()) as { message: string }).message).toBe(
      'code challenge has to be between 43 and 128 characters',
    );
  });
});

describe(`providers configured without what they need (${databaseKind()})`, () => {
  it('refuses a provider without a secret, or turned off', async () => {
    const bare = await startTestServer({
      auth: {
        external: { github: { clientId: 'only-id' }, gitlab: { enabled: false } },
      },
    });
    try {
      const noSecret = await api(bare, '/authorize?provider=github');
      expect(((await noSecret.json()) as { message: string }).message).toBe(
        'Unsupported provider: missing OAuth secret',
      );
      const off = await api(bare, '/authorize?provider=gitlab');
      expect(((await off.json()) as { message: string }).message).toBe(
        'Unsupported provider: provider is not enabled',
      );
    } finally {
      await bare.stop();
    }
  });
});
