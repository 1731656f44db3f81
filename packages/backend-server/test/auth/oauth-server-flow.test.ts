import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SupabaseClient } from '@supabase/supabase-js';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { CALLBACK, discover, HTTP, oauthFlow } from './oauth-flow-support';
import { api, claimsOf, client, uniqueEmail } from './support';

// The other side is a certified OAuth client library (oauth4webapi); the user's side is the
// consent API through supabase-js (`auth.oauth`), as an app's consent page calls it.
const SITE = 'http://drive.localhost:5173';

const MIGRATION = /* sql */ `
create table public.client_notes (
  id bigint generated always as identity primary key,
  client_id text not null,
  body text not null
);
alter table public.client_notes enable row level security;
create policy "the calling OAuth client's notes" on public.client_notes for select
  to authenticated using (client_id = auth.jwt() ->> 'client_id');
`;

let server: RunningServer;
let as: oauth.AuthorizationServer;
let user: SupabaseClient;
let userId: string;
let flow: ReturnType<typeof oauthFlow>;

beforeAll(async () => {
  const migrationsDir = await mkdtemp(join(tmpdir(), 'oauth-server-'));
  await writeFile(join(migrationsDir, '0001_client_notes.sql'), MIGRATION);
  server = await startTestServer({
    migrationsDir,
    auth: {
      rateLimits: false,
      siteUrl: SITE,
      oauthServer: { enabled: true, allowDynamicRegistration: true },
    },
  });
  as = await discover(server);
  user = client(server);
  const { data, error } = await user.auth.signUp({
    email: uniqueEmail('oauth'),
    password: 'oauth-password',
  });
  expect(error).toBeNull();
  userId = data.user?.id ?? '';
  flow = oauthFlow(server, as, user);
});
afterAll(() => server?.stop());

describe(`OAuth 2.1 server with oauth4webapi (${databaseKind()})`, () => {
  it('serves discovery under /auth/v1 (OpenID and RFC 8414) with S256 only', async () => {
    expect(as).toMatchObject({
      issuer: `${server.url}/auth/v1`,
      authorization_endpoint: `${server.url}/auth/v1/oauth/authorize`,
      token_endpoint: `${server.url}/auth/v1/oauth/token`,
      jwks_uri: `${server.url}/auth/v1/.well-known/jwks.json`,
      registration_endpoint: `${server.url}/auth/v1/oauth/clients/register`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
    });
    const rfc8414 = await fetch(`${server.url}/auth/v1/.well-known/oauth-authorization-server`);
    expect(await rfc8414.json()).toEqual(as);
  });

  it('public client: authorize → consent → token → refresh → REST under RLS on client_id', async () => {
    const c = await flow.register('none');
    const started = await flow.startAuthorization(c.client.client_id);
    expect(started.res.status).toBe(302);
    expect(`${started.location.origin}${started.location.pathname}`).toBe(`${SITE}/oauth/consent`);
    const details = await user.auth.oauth.getAuthorizationDetails(started.id);
    expect(details.error).toBeNull();
    expect(details.data).toMatchObject({
      authorization_id: started.id,
      redirect_uri: CALLBACK,
      client: { id: c.client.client_id, name: 'Public tool' },
      user: { id: userId },
      scope: 'email profile',
    });
    const consent = await user.auth.oauth.approveAuthorization(started.id, {
      skipBrowserRedirect: true,
    });
    expect(consent.error).toBeNull();
    const tokens = await flow.exchange(
      c,
      new URL(consent.data?.redirect_url ?? ''),
      started.state,
      started.verifier,
    );
    expect(tokens.token_type).toBe('bearer');
    const claims = claimsOf(tokens.access_token);
    expect(claims).toMatchObject({
      sub: userId,
      client_id: c.client.client_id,
      role: 'authenticated',
    });

    await server.db.query(
      `insert into public.client_notes (client_id, body) values ($1, 'mine'), ('someone-else', 'theirs')`,
      [c.client.client_id],
    );
    const rest = (token: string) =>
      fetch(`${server.url}/rest/v1/client_notes?select=body`, {
        headers: { apikey: server.anonKey, authorization: `Bearer ${token}` },
      }).then((r) => r.json());
    expect(await rest(tokens.access_token)).toEqual([{ body: 'mine' }]);
    const own = (await user.auth.getSession()).data.session?.access_token ?? '';
    expect(await rest(own)).toEqual([]);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      c.client,
      await oauth.refreshTokenGrantRequest(as, c.client, c.auth, tokens.refresh_token ?? '', HTTP),
    );
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(claimsOf(refreshed.access_token).client_id).toBe(c.client.client_id);
    expect(await rest(refreshed.access_token)).toEqual([{ body: 'mine' }]);
  });

  it('a code is used once; a second exchange is invalid_grant', async () => {
    const c = await flow.register('none');
    const { callback, state, verifier } = await flow.approved(c.client.client_id);
    await flow.exchange(c, callback, state, verifier);
    await expect(flow.exchange(c, callback, state, verifier)).rejects.toMatchObject({
      error: 'invalid_grant',
      error_description: 'Invalid authorization code',
    });
  });

  it('PKCE: a wrong verifier spends the code; a missing or plain challenge goes back as invalid_request', async () => {
    const c = await flow.register('none');
    const first = await flow.approved(c.client.client_id);
    await expect(
      flow.exchange(c, first.callback, first.state, oauth.generateRandomCodeVerifier()),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(
      flow.exchange(c, first.callback, first.state, first.verifier),
    ).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    for (const extra of <Record<string, string>[]>[
      { code_challenge: '', code_challenge_method: '' },
      { code_challenge_method: 'plain' },
    ]) {
      const { res, location } = await flow.startAuthorization(c.client.client_id, extra);
      expect(res.status).toBe(302);
      expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('state')).toBeTruthy();
    }
  });

  it('openid with the HS256 legacy secret signing goes back as invalid_scope (ID tokens need a key pair)', async () => {
    const c = await flow.register('none');
    const { location } = await flow.startAuthorization(c.client.client_id, {
      scope: 'openid email',
    });
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    expect(location.searchParams.get('error')).toBe('invalid_scope');
    expect(location.searchParams.get('error_description')).toMatch(/HS256/);
  });

  it('a redirect_uri that is not registered (exactly) is refused without a redirect', async () => {
    const c = await flow.register('none');
    const { res } = await flow.startAuthorization(c.client.client_id, {
      redirect_uri: `${CALLBACK}/x`,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ msg: 'invalid redirect_uri' });
    const unknown = await flow.startAuthorization(crypto.randomUUID());
    expect(unknown.res.status).toBe(400);
  });

  it('deny: the client gets access_denied', async () => {
    const c = await flow.register('none');
    const started = await flow.startAuthorization(c.client.client_id);
    await user.auth.oauth.getAuthorizationDetails(started.id);
    const { data, error } = await user.auth.oauth.denyAuthorization(started.id, {
      skipBrowserRedirect: true,
    });
    expect(error).toBeNull();
    expect(() =>
      oauth.validateAuthResponse(as, c.client, new URL(data?.redirect_url ?? ''), started.state),
    ).toThrow(expect.objectContaining({ error: 'access_denied' }));
    const again = await user.auth.oauth.approveAuthorization(started.id, {
      skipBrowserRedirect: true,
    });
    expect(again.error).toMatchObject({ status: 400, code: 'validation_failed' });
  });

  it('consent once: the same scopes later are approved at once', async () => {
    const c = await flow.register('client_secret_basic');
    const first = await flow.approved(c.client.client_id);
    await flow.exchange(c, first.callback, first.state, first.verifier);
    const second = await flow.startAuthorization(c.client.client_id);
    const details = await user.auth.oauth.getAuthorizationDetails(second.id);
    const url = new URL((details.data as { redirect_url: string }).redirect_url);
    const tokens = await flow.exchange(c, url, second.state, second.verifier);
    expect(claimsOf(tokens.access_token).client_id).toBe(c.client.client_id);
  });

  it('confidential clients authenticate as registered (basic or post); a wrong secret is invalid_client', async () => {
    const post = await flow.register('client_secret_post');
    const ok = await flow.approved(post.client.client_id);
    await flow.exchange(post, ok.callback, ok.state, ok.verifier);
    const wrong = { ...post, auth: oauth.ClientSecretPost('not-the-secret') };
    const bad = await flow.approved(post.client.client_id);
    await expect(flow.exchange(wrong, bad.callback, bad.state, bad.verifier)).rejects.toMatchObject(
      {
        error: 'invalid_client',
      },
    );
    const asBasic = { ...post, auth: oauth.ClientSecretBasic('x') };
    const mismatch = await flow.approved(post.client.client_id);
    await expect(
      flow.exchange(asBasic, mismatch.callback, mismatch.state, mismatch.verifier),
    ).rejects.toMatchObject({
      error: 'invalid_client',
    });
  });

  it('another user cannot read or answer an authorization; unknown ids are 404', async () => {
    const c = await flow.register('none');
    const started = await flow.startAuthorization(c.client.client_id);
    await user.auth.oauth.getAuthorizationDetails(started.id);
    const other = client(server);
    await other.auth.signUp({ email: uniqueEmail('other'), password: 'other-password' });
    const seen = await other.auth.oauth.getAuthorizationDetails(started.id);
    expect(seen.error).toMatchObject({ status: 404, code: 'oauth_authorization_not_found' });
    const res = await api(server, '/oauth/authorizations/nope', {
      token: (await user.auth.getSession()).data.session?.access_token ?? '',
    });
    expect(res.status).toBe(404);
  });

  it("the user's grants: listed, and revoking one ends that client's sessions", async () => {
    const c = await flow.register('none');
    const { callback, state, verifier } = await flow.approved(c.client.client_id);
    const tokens = await flow.exchange(c, callback, state, verifier);
    const { data, error } = await user.auth.oauth.listGrants();
    expect(error).toBeNull();
    expect(data?.find((g) => g.client.id === c.client.client_id)).toMatchObject({
      client: { name: 'Public tool' },
      scopes: ['email', 'profile'],
    });
    const revoked = await user.auth.oauth.revokeGrant({ clientId: c.client.client_id });
    expect(revoked.error).toBeNull();
    const after = await user.auth.oauth.listGrants();
    expect(after.data?.some((g) => g.client.id === c.client.client_id)).toBe(false);
    await expect(
      oauth
        .refreshTokenGrantRequest(as, c.client, c.auth, tokens.refresh_token ?? '', HTTP)
        .then((res) => oauth.processRefreshTokenResponse(as, c.client, res)),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    const again = await user.auth.oauth.revokeGrant({ clientId: c.client.client_id });
    expect(again.error).toMatchObject({ status: 404, code: 'oauth_consent_not_found' });
  });
});
