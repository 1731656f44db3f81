import type { SupabaseClient } from '@supabase/supabase-js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningKey } from '../../src/config/keys';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { CALLBACK, discover, HTTP, oauthFlow } from './oauth-flow-support';
import { api, client, uniqueEmail } from './support';

// OpenID Connect on the OAuth 2.1 server: ID tokens, /oauth/userinfo, the token response's
// shape, which refresh endpoint takes which session, and the consent API's Origin check.
const SITE = 'http://drive.localhost:5173';

let server: RunningServer;
let as: oauth.AuthorizationServer;
let user: SupabaseClient;
let userId: string;
let email: string;
let flow: ReturnType<typeof oauthFlow>;

beforeAll(async () => {
  server = await startTestServer({
    signingKeys: [generateSigningKey('ES256')],
    auth: {
      rateLimits: false,
      siteUrl: SITE,
      oauthServer: { enabled: true, allowDynamicRegistration: true },
    },
  });
  as = await discover(server);
  user = client(server);
  email = uniqueEmail('oidc');
  const { data, error } = await user.auth.signUp({
    email,
    password: 'oidc-password',
    options: { data: { name: 'Ada Lovelace', avatar_url: 'https://img.example/ada.png' } },
  });
  expect(error).toBeNull();
  userId = data.user?.id ?? '';
  flow = oauthFlow(server, as, user);
});
afterAll(() => server?.stop());

/** authorize (with `scope` and a nonce) → approve → code exchange, as an OpenID client. */
async function signIn(scope: string) {
  const c = await flow.register('none');
  const nonce = oauth.generateRandomNonce();
  const started = await flow.startAuthorization(c.client.client_id, { scope, nonce });
  await user.auth.oauth.getAuthorizationDetails(started.id);
  const approved = await user.auth.oauth.approveAuthorization(started.id, {
    skipBrowserRedirect: true,
  });
  expect(approved.error).toBeNull();
  const callback = new URL(approved.data?.redirect_url ?? '');
  const params = oauth.validateAuthResponse(as, c.client, callback, started.state);
  const res = await oauth.authorizationCodeGrantRequest(
    as,
    c.client,
    c.auth,
    params,
    CALLBACK,
    started.verifier,
    HTTP,
  );
  const raw = (await res.clone().json()) as Record<string, unknown>;
  const tokens = await oauth.processAuthorizationCodeResponse(as, c.client, res, {
    expectedNonce: scope.includes('openid') ? nonce : undefined,
    requireIdToken: scope.includes('openid'),
  });
  return { c, nonce, raw, tokens };
}

const jwks = () => createRemoteJWKSet(new URL(`${server.url}/auth/v1/.well-known/jwks.json`));

describe(`OpenID Connect on the OAuth server (${databaseKind()})`, () => {
  it('openid: an ID token signed by the project key, for the client, with the nonce and scoped claims', async () => {
    const { c, nonce, raw, tokens } = await signIn('openid email profile');
    // The OAuth response only: no user object, as GoTrue answers OAuth clients.
    expect(Object.keys(raw).sort()).toEqual(
      ['access_token', 'expires_in', 'id_token', 'refresh_token', 'token_type'].sort(),
    );
    const { payload, protectedHeader } = await jwtVerify(tokens.id_token ?? '', jwks(), {
      issuer: `${server.url}/auth/v1`,
      audience: c.client.client_id,
    });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload).toMatchObject({
      sub: userId,
      client_id: c.client.client_id,
      nonce,
      email,
      email_verified: true,
      phone_number_verified: false,
      name: 'Ada Lovelace',
      picture: 'https://img.example/ada.png',
    });
    expect(payload.exp).toBe((payload.iat ?? 0) + 3600);
    expect(typeof payload.auth_time).toBe('number');
    expect(payload).not.toHaveProperty('phone_number');
    // The access token names the scopes it was granted.
    const access = await jwtVerify(tokens.access_token, jwks());
    expect(access.payload).toMatchObject({ scope: 'openid email profile', sub: userId });
  });

  it('without openid: no ID token; with only openid: no email or profile claims', async () => {
    const plain = await signIn('email');
    expect(plain.raw).not.toHaveProperty('id_token');
    const bare = await signIn('openid');
    const { payload } = await jwtVerify(bare.tokens.id_token ?? '', jwks());
    expect(payload).not.toHaveProperty('email');
    expect(payload).not.toHaveProperty('name');
    expect(payload.email_verified).toBe(false);
  });

  it('/oauth/userinfo answers by the granted scopes, checked by oauth4webapi', async () => {
    const full = await signIn('openid email profile');
    const res = await oauth.userInfoRequest(as, full.c.client, full.tokens.access_token, HTTP);
    const info = await oauth.processUserInfoResponse(as, full.c.client, userId, res);
    expect(info).toMatchObject({
      sub: userId,
      email,
      email_verified: true,
      name: 'Ada Lovelace',
      picture: 'https://img.example/ada.png',
      user_metadata: { name: 'Ada Lovelace' },
    });
    const narrow = await signIn('openid');
    const only = await oauth.processUserInfoResponse(
      as,
      narrow.c.client,
      userId,
      await oauth.userInfoRequest(as, narrow.c.client, narrow.tokens.access_token, HTTP),
    );
    expect(only).toEqual({ sub: userId });
    // The user's own session (no OAuth client) has no scopes: sub alone.
    const own = (await user.auth.getSession()).data.session?.access_token ?? '';
    const mine = await api(server, '/oauth/userinfo', { token: own });
    expect(await mine.json()).toEqual({ sub: userId });
    const anonymous = await fetch(`${server.url}/auth/v1/oauth/userinfo`, {
      headers: { apikey: server.anonKey },
    });
    expect(anonymous.status).toBe(401);
  });

  it("an OAuth session refreshes only at /oauth/token, for its client; the user's own only at /token", async () => {
    const { c, tokens } = await signIn('openid email');
    const plain = await fetch(`${server.url}/auth/v1/token?grant_type=refresh_token`, {
      method: 'POST',
      headers: { apikey: server.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: tokens.refresh_token }),
    });
    expect(plain.status).toBe(400);
    expect(await plain.json()).toMatchObject({
      error: 'invalid_client',
      error_description: 'Client authentication required for OAuth session',
    });
    const other = await flow.register('none');
    await expect(
      oauth
        .refreshTokenGrantRequest(as, other.client, other.auth, tokens.refresh_token ?? '', HTTP)
        .then((res) => oauth.processRefreshTokenResponse(as, other.client, res)),
    ).rejects.toMatchObject({
      error: 'invalid_client',
      error_description: "Client does not match the session's OAuth client",
    });
    const own = (await user.auth.getSession()).data.session?.refresh_token ?? '';
    await expect(
      oauth
        .refreshTokenGrantRequest(as, c.client, c.auth, own, HTTP)
        .then((res) => oauth.processRefreshTokenResponse(as, c.client, res)),
    ).rejects.toMatchObject({
      error: 'invalid_client',
      error_description: 'Client authentication not allowed for non-OAuth session',
    });
    // None of the refused attempts spent the token: its own client still refreshes it.
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      c.client,
      await oauth.refreshTokenGrantRequest(as, c.client, c.auth, tokens.refresh_token ?? '', HTTP),
    );
    expect(refreshed.access_token).toBeTruthy();
  });

  it('the consent API refuses a browser request from another origin', async () => {
    const c = await flow.register('none');
    const started = await flow.startAuthorization(c.client.client_id);
    const token = (await user.auth.getSession()).data.session?.access_token ?? '';
    const from = (origin: string, method = 'GET') =>
      api(server, `/oauth/authorizations/${started.id}${method === 'POST' ? '/consent' : ''}`, {
        token,
        method,
        headers: { origin },
        ...(method === 'POST' ? { json: { action: 'approve' } } : {}),
      });
    for (const method of ['GET', 'POST']) {
      const res = await from('http://evil.example', method);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        code: 'validation_failed',
        message: 'unauthorized request origin',
      });
    }
    const ok = await from(SITE);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ authorization_id: started.id });
  });
});
