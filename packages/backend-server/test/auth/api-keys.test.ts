import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { resolveConfig } from '../../src/config/index';
import {
  DEFAULT_PUBLISHABLE_KEY,
  DEFAULT_SECRET_KEY,
  generateOpaqueKey,
  generateSigningKey,
} from '../../src/config/keys';
import type { RunningServer } from '../../src/server';
import { realtimeClient, subscribed, uniqueTopic } from '../realtime/support';
import { startTestServer } from '../support/server';
import { echoFunctionDir } from './keys-support';
import { claimsOf, client, uniqueEmail } from './support';

const MIGRATION = /* sql */ `
create table public.items (id int primary key, public boolean not null, body text not null);
insert into public.items values (1, true, 'for everyone'), (2, false, 'for the service');
alter table public.items enable row level security;
create policy "public items" on public.items for select to anon, authenticated using (public);
create function public.whoami() returns jsonb language sql stable as $$ select auth.jwt() $$;
`;

const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';
const SECRET_IN_BROWSER = {
  message: 'Forbidden use of secret API key in browser',
  hint: 'Secret API keys can only be used in a protected environment and should never be used in a browser. Delete this secret API key immediately!',
};

let server: RunningServer;
const signingKey = generateSigningKey('ES256');

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'api-keys-'));
  await writeFile(join(dir, '0001_items.sql'), MIGRATION);
  server = await startTestServer({
    migrationsDir: dir,
    functionsDir: await echoFunctionDir(),
    signingKeys: [signingKey],
  });
});
afterAll(() => server?.stop());

const rest = (path: string, headers: Record<string, string>) =>
  fetch(`${server.url}/rest/v1${path}`, { headers });

describe('publishable and secret keys at the gateway', () => {
  it('are the local tooling keys by default, returned by startServer', () => {
    expect(server.publishableKey).toBe(DEFAULT_PUBLISHABLE_KEY);
    expect(server.secretKey).toBe(DEFAULT_SECRET_KEY);
  });

  it('map a publishable key to anon and a secret key to service_role, with no Authorization', async () => {
    const asPublishable = await rest('/items?select=body&order=id', {
      apikey: server.publishableKey,
    });
    expect(asPublishable.status).toBe(200);
    expect(await asPublishable.json()).toEqual([{ body: 'for everyone' }]);
    const asSecret = await rest('/items?select=body&order=id', { apikey: server.secretKey });
    expect(await asSecret.json()).toEqual([{ body: 'for everyone' }, { body: 'for the service' }]);
  });

  it('hand the services a short-lived JWT of that role', async () => {
    for (const [key, role] of [
      [server.publishableKey, 'anon'],
      [server.secretKey, 'service_role'],
    ] as const) {
      const res = await fetch(`${server.url}/rest/v1/rpc/whoami`, {
        method: 'POST',
        headers: { apikey: key, 'content-type': 'application/json' },
        body: '{}',
      });
      const claims = (await res.json()) as { role: string; iat: number; exp: number };
      expect(claims).toMatchObject({ role, iss: 'supabase' });
      expect(claims.exp - claims.iat).toBeLessThanOrEqual(3600);
    }
  });

  it('accept Authorization: Bearer <the same key>, as supabase-js 2.109 sends it', async () => {
    const res = await rest('/items?select=id', {
      apikey: server.publishableKey,
      authorization: `Bearer ${server.publishableKey}`,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ id: 1 }]);
  });

  it('refuse another sb_ key in Authorization (not a JWT) and unknown sb_ keys', async () => {
    const mixed = await rest('/items', {
      apikey: server.publishableKey,
      authorization: `Bearer ${server.secretKey}`,
    });
    expect(mixed.status).toBe(401);
    expect(await mixed.json()).toMatchObject({ code: 'PGRST301' });
    for (const path of ['/rest/v1/items', '/auth/v1/settings']) {
      const res = await fetch(`${server.url}${path}`, {
        headers: { apikey: generateOpaqueKey('secret') },
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('sb-error-code')).toBe('UNAUTHORIZED_INVALID_API_KEY');
      expect(await res.json()).toEqual({ message: 'Invalid API key' });
    }
  });

  it('refuse a secret key from a browser (User-Agent) on every service, with the hosted body', async () => {
    const headers = { apikey: server.secretKey, 'user-agent': BROWSER_UA };
    for (const path of ['/rest/v1/items', '/auth/v1/admin/users', '/storage/v1/bucket']) {
      const res = await fetch(`${server.url}${path}`, { headers });
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
      expect(res.headers.get('sb-error-code')).toBe('UNAUTHORIZED_INVALID_API_KEY_TYPE');
      expect(await res.json()).toEqual(SECRET_IN_BROWSER);
    }
    // The same browser with the publishable key is fine, and so is the secret key from a server.
    expect(
      (await rest('/items', { apikey: server.publishableKey, 'user-agent': BROWSER_UA })).status,
    ).toBe(200);
    expect((await rest('/items', { apikey: server.secretKey, 'user-agent': 'node' })).status).toBe(
      200,
    );
    const socket = new WebSocket(
      `${server.url.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${server.secretKey}&vsn=2.0.0`,
      { headers: { 'user-agent': BROWSER_UA } },
    );
    // Refused before the upgrade: ws then reports an 'error' on terminate, which is expected.
    socket.on('error', () => {});
    const status = await new Promise<number>((resolve) => {
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.on('open', () => resolve(101));
    });
    socket.terminate();
    expect(status).toBe(401);
  });

  it('let the secret key use the admin API and the publishable key not', async () => {
    const admin = await fetch(`${server.url}/auth/v1/admin/users`, {
      headers: { apikey: server.secretKey },
    });
    expect(admin.status).toBe(200);
    const denied = await fetch(`${server.url}/auth/v1/admin/users`, {
      headers: { apikey: server.publishableKey },
    });
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({ msg: 'User not allowed' });
  });

  it('are not JWTs for functions with verify_jwt (as hosted: use verify_jwt = false)', async () => {
    const withoutBearer = await fetch(`${server.url}/functions/v1/echo`, {
      method: 'POST',
      headers: { apikey: server.publishableKey },
    });
    expect(withoutBearer.status).toBe(401);
    const withKeyBearer = await fetch(`${server.url}/functions/v1/echo`, {
      method: 'POST',
      headers: { apikey: server.publishableKey, authorization: `Bearer ${server.publishableKey}` },
    });
    expect(withKeyBearer.status).toBe(401);
  });
});

describe('supabase-js 2.109 with the new keys, unchanged', () => {
  it('signs up and in with a publishable key; the session then rides on the user token', async () => {
    const c = client(server, { key: server.publishableKey });
    const email = uniqueEmail('pub');
    const up = await c.auth.signUp({ email, password: 'password-1' });
    expect(up.error).toBeNull();
    const token = up.data.session?.access_token ?? '';
    expect(decodeProtectedHeader(token).kid).toBe(signingKey.kid);
    const who = await c.rpc('whoami');
    expect((who.data as { sub: string }).sub).toBe(up.data.user?.id);
    const items = await c.from('items').select('id');
    expect(items.data).toEqual([{ id: 1 }]);
    await c.auth.signOut();
    const signedIn = await c.auth.signInWithPassword({ email, password: 'password-1' });
    expect(claimsOf(signedIn.data.session?.access_token ?? '').email).toBe(email);
    const buckets = await c.storage.listBuckets();
    expect(buckets.error).toBeNull();
  });

  it('runs the admin API and bypasses RLS with a secret key', async () => {
    const c = client(server, { key: server.secretKey });
    const created = await c.auth.admin.createUser({
      email: uniqueEmail('sec'),
      password: 'password-1',
    });
    expect(created.error).toBeNull();
    const items = await c.from('items').select('id').order('id');
    expect(items.data).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('joins realtime channels with a publishable key', async () => {
    const c = realtimeClient(server, { key: server.publishableKey });
    const channel = await subscribed(c.channel(uniqueTopic('pub')));
    expect(channel.state).toBe('joined');
    await c.removeAllChannels();
  });
});

describe('key configuration', () => {
  it('takes custom keys and refuses malformed ones', async () => {
    const publishable = generateOpaqueKey('publishable');
    const secret = generateOpaqueKey('secret');
    expect(publishable).toMatch(/^sb_publishable_[A-Za-z0-9_-]{22}_[A-Za-z0-9_-]{8}$/);
    const config = await resolveConfig({ publishableKeys: [publishable], secretKeys: [secret] });
    expect(config.publishableKeys).toEqual([publishable]);
    await expect(resolveConfig({ secretKeys: [publishable] })).rejects.toThrow(/not a secret key/);
    await expect(resolveConfig({ publishableKeys: ['sb_publishable_x'] })).rejects.toThrow(
      /not a publishable key/,
    );
  });
});
