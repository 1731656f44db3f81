import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { adminClient, api, signUp } from './support';

let server: RunningServer;
let noRegistration: RunningServer;

beforeAll(async () => {
  server = await startTestServer({
    auth: { rateLimits: false, oauthServer: { enabled: true, allowDynamicRegistration: true } },
  });
  noRegistration = await startTestServer({ auth: { oauthServer: { enabled: true } } });
});
afterAll(async () => {
  await server?.stop();
  await noRegistration?.stop();
});

const admin = () => adminClient(server).auth.admin.oauth;
const APP = 'https://app.example.com/callback';

describe(`OAuth server: clients (${databaseKind()})`, () => {
  it('creates a confidential client by default, its secret shown once', async () => {
    const { data, error } = await admin().createClient({
      client_name: 'Notes',
      redirect_uris: [APP, 'http://localhost:3000/cb'],
      client_uri: 'https://app.example.com',
    });
    expect(error).toBeNull();
    expect(data).toMatchObject({
      client_name: 'Notes',
      client_type: 'confidential',
      token_endpoint_auth_method: 'client_secret_basic',
      redirect_uris: [APP, 'http://localhost:3000/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      registration_type: 'manual',
      client_uri: 'https://app.example.com',
    });
    expect(data?.client_secret).toMatch(/^[\w-]{43}$/);
    expect(Date.parse(data?.created_at ?? '')).not.toBeNaN();
    const got = await admin().getClient(data?.client_id ?? '');
    expect(got.error).toBeNull();
    expect(got.data).not.toHaveProperty('client_secret');
    expect(got.data?.client_name).toBe('Notes');
    // The secret is stored only as its hash.
    const stored = await server.db.query<{ client_secret_hash: string }>(
      'select client_secret_hash from auth.oauth_clients where id = $1',
      [data?.client_id],
    );
    expect(stored.rows[0]?.client_secret_hash).not.toBe(data?.client_secret);
  });

  it('a public client (token_endpoint_auth_method none) has no secret', async () => {
    const { data, error } = await admin().createClient({
      client_name: 'CLI',
      redirect_uris: ['http://127.0.0.1:8976/cb'],
      token_endpoint_auth_method: 'none',
    } as never);
    expect(error).toBeNull();
    expect(data).toMatchObject({ client_type: 'public', token_endpoint_auth_method: 'none' });
    expect(data).not.toHaveProperty('client_secret');
    const regen = await admin().regenerateClientSecret(data?.client_id ?? '');
    expect(regen.error).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(regen.error?.message).toBe('Cannot regenerate secret for public client');
  });

  it('refuses bad registrations with 400 validation_failed', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ client_name: 'x', redirect_uris: [] }, 'redirect_uris is required'],
      [{ client_name: 'x' }, 'redirect_uris is required'],
      [{ redirect_uris: ['http://evil.example.com/cb'] }, 'HTTP scheme only allowed for localhost'],
      [{ redirect_uris: ['https://a.example.com/cb#x'] }, 'fragment not allowed'],
      [{ redirect_uris: ['javascript://x/alert(1)'] }, "scheme 'javascript' is not allowed"],
      [{ redirect_uris: [APP], grant_types: ['password'] }, 'grant_types must only contain'],
      [
        {
          redirect_uris: [APP],
          client_type: 'public',
          token_endpoint_auth_method: 'client_secret_post',
        },
        'is inconsistent with token_endpoint_auth_method',
      ],
      [{ redirect_uris: [APP], token_endpoint_auth_method: 'private_key_jwt' }, 'must be one of'],
      [{ redirect_uris: [APP], logo_uri: 'not a url' }, 'logo_uri must be a valid URL'],
    ];
    for (const [json, message] of cases) {
      const res = await api(server, '/admin/oauth/clients', {
        method: 'POST',
        json,
        token: server.serviceRoleKey,
      });
      expect(res.status, message).toBe(400);
      const body = (await res.json()) as { code: string; message: string };
      expect(body.code).toBe('validation_failed');
      expect(body.message).toContain(message);
    }
  });

  it('needs the service role', async () => {
    expect((await api(server, '/admin/oauth/clients')).status).toBe(401);
    const user = await signUp(server);
    const res = await api(server, '/admin/oauth/clients', { token: user.access_token });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'not_admin' });
  });

  it('lists page by page with X-Total-Count and Link, as the users list does', async () => {
    for (let i = 0; i < 3; i++) {
      const { error } = await admin().createClient({
        client_name: `page ${i}`,
        redirect_uris: [APP],
      });
      expect(error).toBeNull();
    }
    const total =
      (
        await server.db.query<{ n: number }>(
          'select count(*)::int as n from auth.oauth_clients where deleted_at is null',
        )
      ).rows[0]?.n ?? 0;
    const res = await api(server, '/admin/oauth/clients?page=1&per_page=2', {
      token: server.serviceRoleKey,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBe(String(total));
    const base = `${server.url}/auth/v1/admin/oauth/clients`;
    expect(res.headers.get('link')).toBe(
      `<${base}?page=2&per_page=2>; rel="next", <${base}?page=${Math.ceil(total / 2)}&per_page=2>; rel="last"`,
    );
    const body = (await res.json()) as { clients: { client_name: string }[] };
    expect(body.clients.map((c) => c.client_name)).toEqual(['page 2', 'page 1']);
    const { data, error } = await admin().listClients({ page: 2, perPage: 2 });
    expect(error).toBeNull();
    expect(data.clients[0]?.client_name).toBe('page 0');
    const bad = await api(server, '/admin/oauth/clients?page=x', { token: server.serviceRoleKey });
    expect(bad.status).toBe(400);
  });

  it('updates given fields only, regenerates the secret, deletes', async () => {
    const { data } = await admin().createClient({ client_name: 'Before', redirect_uris: [APP] });
    const id = data?.client_id ?? '';
    const updated = await admin().updateClient(id, { logo_uri: 'https://cdn.example.com/l.png' });
    expect(updated.error).toBeNull();
    expect(updated.data).toMatchObject({
      client_name: 'Before',
      logo_uri: 'https://cdn.example.com/l.png',
    });
    const empty = await admin().updateClient(id, {});
    expect(empty.error?.message).toBe('No fields provided for update');
    const regen = await admin().regenerateClientSecret(id);
    expect(regen.error).toBeNull();
    expect(regen.data?.client_secret).toMatch(/^[\w-]{43}$/);
    expect(regen.data?.client_secret).not.toBe(data?.client_secret);
    const deleted = await api(server, `/admin/oauth/clients/${id}`, {
      method: 'DELETE',
      token: server.serviceRoleKey,
    });
    expect(deleted.status).toBe(204);
    const gone = await admin().getClient(id);
    expect(gone.data).toBeNull();
    expect(gone.error).toMatchObject({ status: 404, code: 'oauth_client_not_found' });
    const notUuid = await admin().getClient('nope');
    expect(notUuid.error).toMatchObject({ status: 400, code: 'validation_failed' });
  });
});

describe(`OAuth server: dynamic client registration (${databaseKind()})`, () => {
  it('registers a client without a key (RFC 7591), typed dynamic', async () => {
    const res = await fetch(`${server.url}/auth/v1/oauth/clients/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'MCP tool',
        redirect_uris: ['http://localhost:7777/cb'],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({
      client_name: 'MCP tool',
      client_type: 'public',
      registration_type: 'dynamic',
    });
  });

  it('is refused (403) while allowDynamicRegistration is off; discovery leaves it out', async () => {
    const res = await api(noRegistration, '/oauth/clients/register', {
      method: 'POST',
      json: { redirect_uris: [APP] },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      code: 'oauth_dynamic_client_registration_disabled',
      message: 'Dynamic client registration is not enabled',
    });
    const meta = await (
      await api(noRegistration, '/.well-known/oauth-authorization-server')
    ).json();
    expect(meta).not.toHaveProperty('registration_endpoint');
    const on = (await (await api(server, '/.well-known/oauth-authorization-server')).json()) as {
      registration_endpoint?: string;
    };
    expect(on.registration_endpoint).toBe(`${server.url}/auth/v1/oauth/clients/register`);
  });
});
