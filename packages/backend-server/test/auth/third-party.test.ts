import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { projectOptions } from '../../src/config/project-toml';
import type { RunningServer } from '../../src/server';
import { startOpenIdIssuers, type TestIssuer } from '../../src/testing/index';
import { writeProject } from '../functions/support';
import { RawSocket, socketUrl, subscribed, uniqueTopic } from '../realtime/support';
import { databaseKind, startTestServer } from '../support/server';

// The five hosted integrations as `config.toml` enables them, and the issuers they derive.
const CONFIG = `
[auth.third_party.firebase]
enabled = true
project_id = "drive-firebase"
[auth.third_party.auth0]
enabled = true
tenant = "drive"
tenant_region = "eu"
[auth.third_party.aws_cognito]
enabled = true
user_pool_id = "eu-west-1_Drive"
user_pool_region = "eu-west-1"
[auth.third_party.clerk]
enabled = true
domain = "drive.clerk.accounts.dev"
[auth.third_party.workos]
enabled = true
issuer_url = "https://api.workos.com/user_management/client_drive"
[functions.hello]
verify_jwt = true
`;
const ISSUERS = {
  firebase: 'https://securetoken.google.com/drive-firebase',
  auth0: 'https://drive.eu.auth0.com',
  aws_cognito: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Drive',
  clerk: 'https://drive.clerk.accounts.dev',
  workos: 'https://api.workos.com/user_management/client_drive',
};
const NAMES = Object.keys(ISSUERS) as (keyof typeof ISSUERS)[];

const MIGRATION = `
create table public.notes (
  id bigint generated always as identity primary key,
  owner text not null default (auth.jwt()->>'sub'),
  body text not null
);
alter table public.notes enable row level security;
create policy "own notes" on public.notes for all to authenticated
  using (owner = auth.jwt()->>'sub') with check (owner = auth.jwt()->>'sub');
grant select, insert on public.notes to authenticated;
grant usage on sequence public.notes_id_seq to authenticated;
create function public.whoami() returns jsonb language sql stable as $$
  select jsonb_build_object('role', current_user, 'jwt', auth.jwt(),
    'sub', current_setting('request.jwt.claims', true)::jsonb->>'sub')
$$;
create function public.my_uid() returns uuid language sql stable as $$ select auth.uid() $$;
grant execute on function public.whoami(), public.my_uid() to anon, authenticated;
insert into storage.buckets (id, name) values ('private', 'private');
create policy "own files" on storage.objects for all to authenticated
  using (bucket_id = 'private' and (storage.foldername(name))[1] = auth.jwt()->>'sub')
  with check (bucket_id = 'private' and (storage.foldername(name))[1] = auth.jwt()->>'sub');
`;

describe(`third-party auth: [auth.third_party.*] issuers (${databaseKind()})`, () => {
  let server: RunningServer;
  let issuers: Awaited<ReturnType<typeof startOpenIdIssuers>>;
  let root: string;
  const issuer = (name: keyof typeof ISSUERS) => issuers.issuers.get(ISSUERS[name]) as TestIssuer;
  const token = (name: keyof typeof ISSUERS, sub: string, extra: Record<string, unknown> = {}) =>
    issuer(name).sign({ sub, role: 'authenticated', ...extra });
  const rest = (path: string, jwt: string, init: RequestInit = {}) =>
    fetch(`${server.url}/rest/v1/${path}`, {
      ...init,
      headers: {
        apikey: server.anonKey,
        authorization: `Bearer ${jwt}`,
        'content-type': 'application/json',
        ...init.headers,
      },
    });
  const clientWith = (getToken: () => Promise<string | null>): SupabaseClient =>
    createClient(server.url, server.anonKey, {
      accessToken: getToken,
      realtime: { transport: WebSocket as never },
    });

  beforeAll(async () => {
    issuers = await startOpenIdIssuers(Object.values(ISSUERS));
    ({ root } = await writeProject(
      { 'hello/index.ts': "Deno.serve(() => new Response('hello from a function'));" },
      CONFIG,
    ));
    await mkdir(join(root, 'migrations'));
    await writeFile(join(root, 'migrations', '0001_notes.sql'), MIGRATION);
    server = await startTestServer({
      projectDir: root,
      auth: { thirdParty: { fetch: issuers.fetch } },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await issuers?.close();
  });

  it('reads [auth.third_party.*] from config.toml as the CLI names the keys', async () => {
    const options = await projectOptions(root);
    expect(options.auth?.thirdParty).toEqual({
      firebase: { projectId: 'drive-firebase' },
      auth0: { tenant: 'drive', tenantRegion: 'eu' },
      awsCognito: { userPoolId: 'eu-west-1_Drive', userPoolRegion: 'eu-west-1' },
      clerk: { domain: 'drive.clerk.accounts.dev' },
      workos: { issuerUrl: 'https://api.workos.com/user_management/client_drive' },
    });
    const bad = await writeProject(
      {},
      '[auth.third_party.clerk]\nenabled = true\ndomain = "example.com"\n',
    );
    await expect(projectOptions(bad.root)).rejects.toThrow(
      /clerk.domain must be the Clerk instance domain/,
    );
    const missing = await writeProject({}, '[auth.third_party.firebase]\nenabled = true\n');
    await expect(projectOptions(missing.root)).rejects.toThrow(
      /auth.third_party.firebase is enabled but without a project_id/,
    );
    const off = await writeProject(
      {},
      '[auth.third_party.firebase]\nenabled = false\nproject_id = "x"\n',
    );
    expect((await projectOptions(off.root)).auth?.thirdParty).toBeUndefined();
  });

  it('JWKS down before the first fetch: 401 in each protocol, never 500; then accepted', async () => {
    const cognito = issuer('aws_cognito');
    cognito.down = true;
    const jwt = await token('aws_cognito', 'cognito-user-down');
    const res = await rest('rpc/whoami', jwt, { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'PGRST301' });
    const file = await fetch(`${server.url}/storage/v1/object/list/private`, {
      method: 'POST',
      headers: {
        apikey: server.anonKey,
        authorization: `Bearer ${jwt}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ prefix: '' }),
    });
    expect(file.status).toBe(400);
    expect(await file.json()).toMatchObject({ statusCode: '403', error: 'Unauthorized' });
    const fn = await fetch(`${server.url}/functions/v1/hello`, {
      headers: { apikey: server.anonKey, authorization: `Bearer ${jwt}` },
    });
    expect(fn.status).toBe(401);
    const s = await RawSocket.open(socketUrl(server, `apikey=${server.anonKey}&vsn=2.0.0`));
    const topic = `realtime:${uniqueTopic()}`;
    s.send(['1', '1', topic, 'phx_join', { config: {}, access_token: jwt }]);
    expect((await s.waitFor((f: unknown[]) => f[1] === '1'))[4]).toEqual({
      status: 'error',
      response: { reason: 'JwtSignatureError: Failed to validate JWT signature' },
    });
    s.close();
    cognito.down = false;
    expect((await rest('rpc/whoami', jwt, { method: 'POST', body: '{}' })).status).toBe(200);
  });

  it('fetches an issuer’s keys once for concurrent first requests', async () => {
    const workos = issuer('workos');
    const before = workos.jwksFetches;
    const jwts = await Promise.all(
      Array.from({ length: 8 }, (_, i) => token('workos', `workos-user-${i}`)),
    );
    const answers = await Promise.all(
      jwts.map((jwt) => rest('rpc/whoami', jwt, { method: 'POST', body: '{}' })),
    );
    expect(answers.map((r) => r.status)).toEqual(jwts.map(() => 200));
    expect(workos.jwksFetches - before).toBe(1);
  });

  for (const name of NAMES) {
    it(`${name}: REST through supabase-js's accessToken, RLS on the token's claims`, async () => {
      const sub = `${name}|user-${crypto.randomUUID().slice(0, 8)}`;
      const jwt = await token(name, sub, { email: `${name}@example.com` });
      const supabase = clientWith(async () => jwt);
      const who = await supabase.rpc('whoami');
      expect(who.error).toBeNull();
      expect(who.data).toMatchObject({
        role: 'authenticated',
        sub,
        jwt: {
          iss: expect.stringContaining(ISSUERS[name].slice(8)),
          sub,
          email: `${name}@example.com`,
        },
      });
      const insert = await supabase
        .from('notes')
        .insert({ body: `note of ${name}` })
        .select();
      expect(insert.error).toBeNull();
      expect(insert.data).toEqual([expect.objectContaining({ owner: sub })]);
      // Another user of the same issuer sees none of them.
      const other = clientWith(async () => token(name, `${sub}-other`));
      expect((await other.from('notes').select()).data).toEqual([]);
      expect((await supabase.from('notes').select('owner, body')).data).toEqual([
        { owner: sub, body: `note of ${name}` },
      ]);
    });
  }

  it('auth0 tokens carry the issuer with a trailing slash: accepted', async () => {
    const jwt = await token('auth0', 'auth0|slash', { iss: `${ISSUERS.auth0}/` });
    const res = await rest('rpc/whoami', jwt, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
  });

  it('auth.uid() with a sub that is not a uuid: the database error (400), not a crash', async () => {
    const res = await rest('rpc/my_uid', await token('firebase', 'firebase-uid-abc'), {
      method: 'POST',
      body: '{}',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: '22P02' });
    const uuid = crypto.randomUUID();
    const ok = await rest('rpc/my_uid', await token('firebase', uuid), {
      method: 'POST',
      body: '{}',
    });
    expect(await ok.json()).toBe(uuid);
  });

  it('storage: uploads and lists under the token’s sub (RLS on auth.jwt())', async () => {
    const sub = `clerk_user_${crypto.randomUUID().slice(0, 8)}`;
    const supabase = clientWith(() => token('clerk', sub));
    const up = await supabase.storage.from('private').upload(`${sub}/a.txt`, 'hello', {
      contentType: 'text/plain',
    });
    expect(up.error).toBeNull();
    const denied = await supabase.storage.from('private').upload('someone-else/a.txt', 'x');
    expect(denied.error).not.toBeNull();
    const list = await supabase.storage.from('private').list(sub);
    expect(list.data?.map((f) => f.name)).toEqual(['a.txt']);
    const down = await supabase.storage.from('private').download(`${sub}/a.txt`);
    expect(await down.data?.text()).toBe('hello');
  });

  it('realtime: joins with the token, follows access_token updates, refuses a bad one', async () => {
    const supabase = clientWith(() => token('firebase', 'realtime-user'));
    const channel = await subscribed(supabase.channel(uniqueTopic()));
    expect(channel.state).toBe('joined');
    await supabase.removeAllChannels();

    const s = await RawSocket.open(socketUrl(server, `apikey=${server.anonKey}&vsn=2.0.0`));
    const topic = `realtime:${uniqueTopic()}`;
    s.send(['1', '1', topic, 'phx_join', { config: {}, access_token: await token('auth0', 'rt') }]);
    expect((await s.waitFor((f: unknown[]) => f[1] === '1'))[4]).toMatchObject({ status: 'ok' });
    s.send(['1', '2', topic, 'access_token', { access_token: await token('auth0', 'rt') }]);
    s.send([null, '3', 'phoenix', 'heartbeat', {}]);
    await s.waitFor((f: unknown[]) => f[1] === '3');
    expect(s.frames.some((f) => (f as unknown[])[3] === 'system')).toBe(false);
    const forged = await issuer('auth0').sign(
      { sub: 'rt', role: 'authenticated' },
      { key: 'foreign' },
    );
    s.send(['1', '4', topic, 'access_token', { access_token: forged }]);
    const system = await s.waitFor<unknown[]>((f: unknown[]) => f[3] === 'system');
    expect(system[4]).toMatchObject({
      status: 'error',
      message: 'Failed to validate JWT signature',
    });
    // supabase-js does not send an expired token; the raw protocol does.
    const expired = await issuer('clerk').sign(
      { sub: 'x', role: 'authenticated' },
      { expiresIn: '-1m' },
    );
    const other = `realtime:${uniqueTopic()}`;
    s.send(['5', '5', other, 'phx_join', { config: {}, access_token: expired }]);
    const reply = await s.waitFor<unknown[]>((f: unknown[]) => f[1] === '5');
    expect((reply[4] as { response: { reason: string } }).response.reason).toMatch(
      /^InvalidJWTToken: Token has expired \d+ seconds ago$/,
    );
    s.close();
  });

  it('functions (verify_jwt): accepted, and a bad token is 401', async () => {
    const supabase = clientWith(() => token('workos', 'fn-user'));
    const { data, error } = await supabase.functions.invoke('hello');
    expect(error).toBeNull();
    expect(data).toBe('hello from a function');
    const forged = await issuer('workos').sign(
      { sub: 'x', role: 'authenticated' },
      { key: 'foreign' },
    );
    const res = await fetch(`${server.url}/functions/v1/hello`, {
      headers: { apikey: server.anonKey, authorization: `Bearer ${forged}` },
    });
    expect(res.status).toBe(401);
  });

  it('refuses an unknown issuer, a bad signature, an expired token and service_role (401)', async () => {
    const unknown = await issuer('firebase').sign({
      iss: 'https://securetoken.google.com/another-project',
      sub: 'x',
      role: 'authenticated',
    });
    const forged = await issuer('firebase').sign(
      { sub: 'x', role: 'authenticated' },
      { key: 'foreign' },
    );
    const expired = await issuer('firebase').sign(
      { sub: 'x', role: 'authenticated' },
      { expiresIn: '-1m' },
    );
    const admin = await issuer('firebase').sign({ sub: 'x', role: 'service_role' });
    const answers = [];
    for (const jwt of [unknown, forged, expired, admin]) {
      const res = await rest('notes', jwt);
      answers.push([res.status, ((await res.json()) as { code: string; message: string }).message]);
    }
    expect(answers).toEqual([
      [401, 'JWT cryptographic operation failed'],
      [401, 'JWT cryptographic operation failed'],
      [401, 'JWT expired'],
      [401, 'JWT cryptographic operation failed'],
    ]);
  });

  it('a token without a role claim runs as anon (the guides add role: authenticated)', async () => {
    const jwt = await issuer('clerk').sign({ sub: 'no-role' });
    const res = await rest('rpc/whoami', jwt, { method: 'POST', body: '{}' });
    expect(await res.json()).toMatchObject({ role: 'anon', sub: 'no-role' });
  });

  it('key rotation: a token with a new kid makes the server fetch the keys again, once', async () => {
    const firebase = issuer('firebase');
    expect((await rest('notes', await token('firebase', 'rot'))).status).toBe(200);
    const before = firebase.jwksFetches;
    await firebase.rotate();
    const fresh = await token('firebase', 'rot');
    expect((await rest('notes', fresh)).status).toBe(200);
    expect((await rest('notes', await token('firebase', 'rot2'))).status).toBe(200);
    expect(firebase.jwksFetches - before).toBe(1);
  });

  it('the auth endpoints refuse third-party tokens; supabase-js refuses client.auth', async () => {
    const jwt = await token('clerk', crypto.randomUUID());
    expect((await rest('notes', jwt)).status).toBe(200); // verified (and remembered) by REST
    const res = await fetch(`${server.url}/auth/v1/user`, {
      headers: { apikey: server.anonKey, authorization: `Bearer ${jwt}` },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error_code: 'bad_jwt' });
    const supabase = clientWith(async () => jwt);
    expect(() => supabase.auth.getUser()).toThrow(
      '@supabase/supabase-js: Supabase Client is configured with the accessToken option, accessing supabase.auth.getUser is not possible',
    );
  });

  it('the project’s own tokens keep working beside the issuers', async () => {
    const own = createClient(server.url, server.anonKey, {
      auth: { persistSession: false },
      realtime: { transport: WebSocket as never },
    });
    const { data, error } = await own.auth.signInAnonymously();
    expect(error).toBeNull();
    const jwt = data.session?.access_token ?? '';
    const who = await rest('rpc/whoami', jwt, { method: 'POST', body: '{}' });
    expect(await who.json()).toMatchObject({ role: 'authenticated', sub: data.user?.id });
    const user = await fetch(`${server.url}/auth/v1/user`, {
      headers: { apikey: server.anonKey, authorization: `Bearer ${jwt}` },
    });
    expect(user.status).toBe(200);
  });
});
