import { createHash, randomBytes } from 'node:crypto';
import { type RunningServer, startServer } from '@app/backend-server';
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStorage } from '../src/auth/index';
import { createClient } from '../src/index';
import { withOAuthServer } from '../src/oauth-server/index';
import { officialClient } from './support/official';
import { freshEmail } from './support/server';

const SITE = 'http://drive.localhost:5173';
const CALLBACK = 'http://localhost:4000/callback';
const PASSWORD = 'correct horse 1';
let server: RunningServer;
let clientId: string;

beforeAll(async () => {
  server = await startServer({
    port: 0,
    auth: { rateLimits: false, siteUrl: SITE, oauthServer: { enabled: true } },
  });
  const res = await fetch(`${server.url}/auth/v1/admin/oauth/clients`, {
    method: 'POST',
    headers: {
      apikey: server.serviceRoleKey,
      authorization: `Bearer ${server.serviceRoleKey}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ client_name: 'Notes', redirect_uris: [CALLBACK] }),
  });
  clientId = ((await res.json()) as { client_id: string }).client_id;
});
afterAll(async () => {
  await server?.stop();
});

/** What a third-party app starts: `/oauth/authorize` → the consent page's authorization_id. */
async function authorizationId(): Promise<string> {
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    client_id: clientId,
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope: 'email',
    state: 'xyz',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const res = await fetch(`${server.url}/auth/v1/oauth/authorize?${query}`, { redirect: 'manual' });
  return new URL(res.headers.get('location') ?? '').searchParams.get('authorization_id') ?? '';
}

/** Ours (withOAuthServer) and the official client, each signed in as a new user. */
async function signedIn() {
  const ours = withOAuthServer(
    createClient(server.url, server.anonKey, {
      auth: { storage: memoryStorage(), autoRefreshToken: false },
    }),
  ).auth;
  const official: SupabaseClient['auth'] = officialClient(server.url, server.anonKey).auth;
  expect((await ours.signUp({ email: freshEmail('ours'), password: PASSWORD })).error).toBeNull();
  expect(
    (await official.signUp({ email: freshEmail('off'), password: PASSWORD })).error,
  ).toBeNull();
  return { ours, official };
}

const masked = (data: unknown) =>
  JSON.parse(
    JSON.stringify(data)
      .replace(/"(authorization_id|email)":"[^"]*"/g, '"$1":"…"')
      .replace(/"id":"[0-9a-f-]{36}"/g, '"id":"…"')
      .replace(/code=[\w-]+/g, 'code=…'),
  );

describe('auth.oauth (withOAuthServer), as the official client', () => {
  it('getAuthorizationDetails, then approve: the same answers', async () => {
    const { ours, official } = await signedIn();
    const [a, b] = [await authorizationId(), await authorizationId()];
    const mine = await ours.oauth.getAuthorizationDetails(a);
    const theirs = await official.oauth.getAuthorizationDetails(b);
    expect(mine.error).toBeNull();
    expect(mine.data).toMatchObject({
      authorization_id: a,
      redirect_uri: CALLBACK,
      client: { id: clientId, name: 'Notes' },
      scope: 'email',
    });
    expect(masked(mine)).toEqual(masked(theirs));
    const approved = await ours.oauth.approveAuthorization(a, { skipBrowserRedirect: true });
    const other = await official.oauth.approveAuthorization(b, { skipBrowserRedirect: true });
    expect(approved.error).toBeNull();
    const url = new URL(approved.data?.redirect_url ?? '');
    expect(url.searchParams.get('state')).toBe('xyz');
    expect(url.searchParams.get('code')).toBeTruthy();
    expect(masked(approved)).toEqual(masked(other));
    // Consented once: the next request for the same scopes comes back approved at once.
    const again = await ours.oauth.getAuthorizationDetails(await authorizationId());
    expect(again.data).toHaveProperty('redirect_url');
  });

  it('deny, a used request, an unknown id and no session: the same errors', async () => {
    const { ours, official } = await signedIn();
    const [a, b] = [await authorizationId(), await authorizationId()];
    await ours.oauth.getAuthorizationDetails(a);
    await official.oauth.getAuthorizationDetails(b);
    const denied = await ours.oauth.denyAuthorization(a, { skipBrowserRedirect: true });
    expect(new URL(denied.data?.redirect_url ?? '').searchParams.get('error')).toBe(
      'access_denied',
    );
    expect(masked(denied)).toEqual(
      masked(await official.oauth.denyAuthorization(b, { skipBrowserRedirect: true })),
    );
    const used = await ours.oauth.approveAuthorization(a, { skipBrowserRedirect: true });
    const usedOfficial = await official.oauth.approveAuthorization(b, {
      skipBrowserRedirect: true,
    });
    expect(used.error).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(used.error?.message).toBe(usedOfficial.error?.message);
    const unknown = await ours.oauth.getAuthorizationDetails('nope');
    expect(unknown.error).toMatchObject({ status: 404, code: 'oauth_authorization_not_found' });
    await ours.signOut();
    const none = await ours.oauth.getAuthorizationDetails(a);
    expect(none).toMatchObject({ data: null, error: { code: 'session_missing' } });
  });
});

describe('auth.admin.oauth (withOAuthServer), as the official client', () => {
  const adminClients = () => ({
    ours: withOAuthServer(
      createClient(server.url, server.serviceRoleKey, {
        auth: { storage: memoryStorage(), autoRefreshToken: false, persistSession: false },
      }),
    ).auth.admin.oauth,
    official: officialClient(server.url, server.serviceRoleKey).auth.admin.oauth,
  });
  /** Ids, secrets and times differ between two clients; everything else must not. */
  const maskedClient = (data: unknown) =>
    JSON.parse(
      JSON.stringify(data)
        .replace(/"(client_id|client_secret|created_at|updated_at)":"[^"]*"/g, '"$1":"…"')
        .replace(/"client_name":"(ours|official) /g, '"client_name":"… '),
    );

  it('create, get, update, regenerate the secret, list and delete: the same answers', async () => {
    const { ours, official } = adminClients();
    const params = (who: string) => ({
      client_name: `${who} tool`,
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: 'client_secret_post' as const,
    });
    const mine = await ours.createClient(params('ours'));
    const theirs = await official.createClient(params('official'));
    expect(mine.error).toBeNull();
    expect(mine.data).toMatchObject({
      client_name: 'ours tool',
      client_type: 'confidential',
      registration_type: 'manual',
      redirect_uris: [CALLBACK],
    });
    expect(mine.data?.client_secret).toBeTruthy();
    expect(maskedClient(mine)).toEqual(maskedClient(theirs));
    const id = mine.data?.client_id ?? '';
    const theirId = theirs.data?.client_id ?? '';

    const got = await ours.getClient(id);
    expect(got.data).not.toHaveProperty('client_secret');
    expect(maskedClient(got)).toEqual(maskedClient(await official.getClient(theirId)));

    const renamed = await ours.updateClient(id, { client_name: 'ours renamed' });
    expect(renamed.data?.client_name).toBe('ours renamed');
    const theirRenamed = await official.updateClient(theirId, { client_name: 'official renamed' });
    expect(maskedClient(renamed)).toEqual(
      JSON.parse(
        JSON.stringify(maskedClient(theirRenamed)).replace('official renamed', 'ours renamed'),
      ),
    );

    const secret = await ours.regenerateClientSecret(id);
    expect(secret.data?.client_secret).toBeTruthy();
    expect(secret.data?.client_secret).not.toBe(mine.data?.client_secret);

    const page = await ours.listClients({ page: 1, perPage: 1 });
    const theirPage = await official.listClients({ page: 1, perPage: 1 });
    expect(page.error).toBeNull();
    expect(page.data.clients).toHaveLength(1);
    expect(page.data).toMatchObject({ nextPage: 2 });
    if (!page.error && !theirPage.error) {
      expect(page.data.total).toBe(theirPage.data.total);
      expect(page.data.total).toBeGreaterThanOrEqual(3);
      expect(page.data.lastPage).toBe(page.data.total);
    }

    expect(await ours.deleteClient(id)).toEqual(await official.deleteClient(theirId));
    const gone = await ours.getClient(id);
    const theirGone = await official.getClient(theirId);
    expect(gone.error).toMatchObject({ status: 404, code: 'oauth_client_not_found' });
    expect(gone.error?.message).toBe(theirGone.error?.message);
  });

  it('with the anon key: the same not_admin refusal, and an empty list', async () => {
    const ours = withOAuthServer(
      createClient(server.url, server.anonKey, {
        auth: { storage: memoryStorage(), autoRefreshToken: false },
      }),
    ).auth.admin.oauth;
    const official = officialClient(server.url, server.anonKey).auth.admin.oauth;
    const mine = await ours.listClients();
    const theirs = await official.listClients();
    expect(mine).toMatchObject({
      data: { clients: [] },
      error: { status: 403, code: 'not_admin' },
    });
    expect(mine.error?.message).toBe(theirs.error?.message);
    expect(mine.data).toEqual(theirs.data);
  });
});
