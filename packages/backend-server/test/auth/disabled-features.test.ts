import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { adminClient, api, client, signUp, uniqueEmail } from './support';

// Features this server does not offer answer as on a hosted project where they are off:
// GoTrue's "… is disabled" errors with its status and codes, never a bare 404.
let server: RunningServer;

beforeAll(async () => {
  server = await startTestServer({ auth: { rateLimits: false } });
});
afterAll(() => server?.stop());

const body = async (res: Response) => (await res.json()) as Record<string, unknown>;

describe(`features that are off (${databaseKind()})`, () => {
  it('SSO with SAML 2.0: every /sso route says "SAML 2.0 is disabled" (404)', async () => {
    for (const [method, path] of [
      ['POST', '/sso'],
      ['GET', '/sso/saml/metadata'],
      ['POST', '/sso/saml/acs'],
      ['GET', '/sso/anything'],
    ] as const) {
      const res = await api(server, path, { method, ...(method === 'POST' ? { json: {} } : {}) });
      expect(res.status).toBe(404);
      expect(res.headers.get('x-sb-error-code')).toBe('saml_provider_disabled');
      expect(await body(res)).toEqual({
        code: 'saml_provider_disabled',
        message: 'SAML 2.0 is disabled',
      });
    }
    const pkce = client(server, { flowType: 'pkce' });
    const sso = await pkce.auth.signInWithSSO({ domain: 'example.com' });
    expect(sso.error).toMatchObject({ status: 404, code: 'saml_provider_disabled' });
    expect(sso.data).toBeNull();
  });

  it('admin SSO providers: none exist, and none can be made', async () => {
    const token = server.serviceRoleKey;
    const listed = await api(server, '/admin/sso/providers', { token, key: token });
    expect(listed.status).toBe(200);
    expect(await body(listed)).toEqual({ items: [] });
    const one = await api(server, `/admin/sso/providers/${crypto.randomUUID()}`, {
      token,
      key: token,
    });
    expect(one.status).toBe(404);
    expect(await body(one)).toEqual({
      code: 'sso_provider_not_found',
      message: 'SSO Identity Provider not found',
    });
    const create = await api(server, '/admin/sso/providers', {
      method: 'POST',
      token,
      key: token,
      json: { type: 'saml', metadata_url: 'https://idp.example/metadata' },
    });
    expect(create.status).toBe(404);
    expect((await body(create)).code).toBe('saml_provider_disabled');
    // Still admin only.
    const anon = await api(server, '/admin/sso/providers');
    expect(anon.status).toBe(401);
  });

  it('Web3 sign-in: 422 "Web3 provider is disabled"', async () => {
    const res = await api(server, '/token?grant_type=web3', {
      method: 'POST',
      json: { chain: 'ethereum', message: 'm', signature: '0x00' },
    });
    expect(res.status).toBe(422);
    expect(await body(res)).toEqual({
      code: 'web3_provider_disabled',
      message: 'Web3 provider is disabled',
    });
    const { data, error } = await client(server).auth.signInWithWeb3({
      chain: 'solana',
      message: 'test message',
      signature: new Uint8Array([1, 2, 3]),
    });
    expect(data.session).toBeNull();
    expect(error?.message).toBe('Web3 provider is disabled');
  });

  it('the OAuth 2.1 server: "OAuth server is disabled" (404 feature_disabled)', async () => {
    const token = server.serviceRoleKey;
    const paths: [string, string, string | undefined][] = [
      ['GET', '/admin/oauth/clients', token],
      ['POST', '/admin/oauth/clients', token],
      ['DELETE', `/admin/oauth/clients/${crypto.randomUUID()}`, token],
      ['POST', '/oauth/clients/register', undefined],
      ['GET', '/oauth/authorize?client_id=x', undefined],
      ['POST', '/oauth/token', undefined],
      ['GET', '/.well-known/oauth-authorization-server', undefined],
    ];
    for (const [method, path, t] of paths) {
      const res = await api(server, path, {
        method,
        ...(t ? { token: t, key: t } : {}),
        ...(method === 'POST' ? { json: {} } : {}),
      });
      expect(res.status, path).toBe(404);
      expect(await body(res), path).toEqual({
        code: 'feature_disabled',
        message: 'OAuth server is disabled',
      });
    }
    const { data, error } = await adminClient(server).auth.admin.oauth.listClients();
    expect(error).toMatchObject({ status: 404, code: 'feature_disabled' });
    expect(data).toMatchObject({ clients: [] });
    // The user's grants: a signed-in user first, then the same answer.
    const noUser = await api(server, '/user/oauth/grants');
    expect(noUser.status).toBe(401);
    const user = await signUp(server, uniqueEmail());
    const grants = await api(server, '/user/oauth/grants', { token: user.access_token });
    expect(grants.status).toBe(404);
    expect((await body(grants)).message).toBe('OAuth server is disabled');
  });

  it('the admin API of custom providers: "Custom OAuth providers are disabled"', async () => {
    const token = server.serviceRoleKey;
    const res = await api(server, '/admin/custom-providers', { token, key: token });
    expect(res.status).toBe(404);
    expect(await body(res)).toEqual({
      code: 'feature_disabled',
      message: 'Custom OAuth providers are disabled',
    });
  });

  it('manual linking is off by default: 404 "Manual linking is disabled" after the session check', async () => {
    const supabase = client(server);
    await supabase.auth.signUp({ email: uniqueEmail(), password: 'secret-password' });
    const link = await supabase.auth.linkIdentity({ provider: 'google' });
    expect(link.error).toMatchObject({ status: 404, code: 'manual_linking_disabled' });
    expect(link.error?.message).toBe('Manual linking is disabled');
    const { data } = await supabase.auth.getUserIdentities();
    expect(data?.identities).toHaveLength(1);
    const unlink = await supabase.auth.unlinkIdentity(data?.identities[0] as never);
    expect(unlink.error?.message).toBe('Manual linking is disabled');
    const signedOut = await api(server, `/user/identities/${crypto.randomUUID()}`, {
      method: 'DELETE',
    });
    expect(signedOut.status).toBe(401);
  });

  it('OAuth with no provider configured: /authorize says the provider is not there', async () => {
    const res = await api(server, '/authorize?provider=github', { legacy: true });
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({
      code: 400,
      error_code: 'validation_failed',
      msg: 'Unsupported provider: provider is not enabled',
    });
  });
});
