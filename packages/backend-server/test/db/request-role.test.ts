/**
 * The security bar of every service that runs requests as a JWT's role: the hosted API logs
 * in as `authenticator`, which may only become `anon`, `authenticated`, `service_role` and
 * the roles granted to it. A validly signed JWT naming any other role (`postgres`, a role
 * nobody granted) gets no data: REST answers Postgres' refusal, storage its AccessDenied,
 * realtime neither joins private channels nor delivers changes.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import {
  joinError,
  RawSocket,
  realtimeClient,
  socketUrl,
  uniqueTopic,
  userToken,
} from '../realtime/support';
import { databaseKind, startTestServer } from '../support/server';

const SCHEMA = `
create table public.secrets (id int primary key, owner uuid, body text);
alter table public.secrets enable row level security;
create policy own on public.secrets for all to authenticated
  using (owner = auth.uid()) with check (owner = auth.uid());
insert into public.secrets values (1, '${randomUUID()}', 'top secret');
alter publication supabase_realtime add table public.secrets;

-- A project role the API may become (granted to authenticator), and one it may not.
create role reporter nologin noinherit;
grant reporter to authenticator;
grant usage on schema public to reporter;
grant select on public.secrets to reporter;
create policy reporters on public.secrets for select to reporter using (true);
create role outsider nologin noinherit;
grant usage on schema public to outsider;
grant select on public.secrets to outsider;
create policy outsiders on public.secrets for select to outsider using (true);

create function public.count_secrets() returns bigint language sql stable
  as $$ select count(*) from public.secrets $$;

insert into storage.buckets (id, name) values ('vault', 'vault');
grant usage on schema storage to reporter;
grant select on storage.objects, storage.buckets to reporter;
create policy "vault readers" on storage.objects for select to reporter using (bucket_id = 'vault');
create policy "vault visible" on storage.buckets for select to reporter using (true);
create policy "outsider reads" on storage.objects for select to outsider using (true);
create policy "outsider writes" on storage.objects for insert to outsider with check (true);
create policy "room" on realtime.messages for select to outsider using (true);
`;

describe(`request roles the API role may not become (${databaseKind()})`, () => {
  let server: RunningServer;
  const clients: SupabaseClient[] = [];
  const sockets: RawSocket[] = [];
  const token = (role: string) => userToken(server, randomUUID(), { role });
  const rest = async (path: string, role: string, init: RequestInit = {}) => {
    const res = await fetch(`${server.url}/rest/v1${path}`, {
      ...init,
      headers: {
        apikey: server.anonKey,
        authorization: `Bearer ${await token(role)}`,
        'content-type': 'application/json',
        ...(init.headers as Record<string, string>),
      },
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as unknown };
  };
  const storage = async (path: string, role: string, init: RequestInit = {}) => {
    const res = await fetch(`${server.url}/storage/v1${path}`, {
      ...init,
      headers: {
        apikey: server.anonKey,
        authorization: `Bearer ${await token(role)}`,
        ...(init.headers as Record<string, string>),
      },
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as unknown };
  };
  const refused = (role: string) => ({
    code: '42501',
    message: `permission denied to set role "${role}"`,
    details: null,
    hint: null,
  });

  beforeAll(async () => {
    const migrationsDir = await mkdtemp(join(tmpdir(), 'request-role-'));
    await writeFile(join(migrationsDir, '0001_schema.sql'), SCHEMA);
    server = await startTestServer({ migrationsDir });
    await server.db.query(
      `insert into storage.objects (bucket_id, name, metadata) values ('vault', 'plan.txt', '{"size": 4, "mimetype": "text/plain"}')`,
    );
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.removeAllChannels()));
    for (const s of sockets.splice(0)) s.close();
  });
  afterAll(() => server?.stop());

  it('REST: reads, writes and rpc as postgres are refused with 403 42501, nothing changes', async () => {
    // GET goes through the pipelined read path on PostgreSQL; the others through the pool.
    expect(await rest('/secrets?select=body', 'postgres')).toEqual({
      status: 403,
      body: refused('postgres'),
    });
    expect(await rest('/secrets?select=body', 'postgres', { method: 'HEAD' })).toMatchObject({
      status: 403,
    });
    expect(
      await rest('/secrets', 'postgres', {
        method: 'POST',
        body: JSON.stringify({ id: 2, body: 'planted' }),
      }),
    ).toEqual({ status: 403, body: refused('postgres') });
    expect(
      await rest('/secrets?id=eq.1', 'postgres', {
        method: 'PATCH',
        body: JSON.stringify({ body: 'changed' }),
      }),
    ).toEqual({ status: 403, body: refused('postgres') });
    expect(await rest('/secrets?id=eq.1', 'postgres', { method: 'DELETE' })).toEqual({
      status: 403,
      body: refused('postgres'),
    });
    expect(await rest('/rpc/count_secrets', 'postgres', { method: 'POST', body: '{}' })).toEqual({
      status: 403,
      body: refused('postgres'),
    });
    expect(await rest('/rpc/count_secrets', 'postgres')).toEqual({
      status: 403,
      body: refused('postgres'),
    });
    const { rows } = await server.db.query('select id, body from public.secrets order by id');
    expect(rows).toEqual([{ id: 1, body: 'top secret' }]);
  });

  it('REST: a role not granted to authenticator is refused; a granted one works', async () => {
    expect(await rest('/secrets?select=body', 'outsider')).toEqual({
      status: 403,
      body: refused('outsider'),
    });
    expect(await rest('/secrets?select=body', 'reporter')).toEqual({
      status: 200,
      body: [{ body: 'top secret' }],
    });
    // authenticator itself is a role it may "become", with no privileges of its own.
    expect(await rest('/secrets?select=body', 'authenticator')).toEqual({
      status: 403,
      body: {
        code: '42501',
        message: 'permission denied for table secrets',
        details: null,
        hint: null,
      },
    });
    // The usual roles are unaffected (RLS hides the row from a stranger).
    expect(await rest('/secrets?select=body', 'authenticated')).toEqual({ status: 200, body: [] });
    expect(await rest('/secrets?select=body', 'service_role')).toEqual({
      status: 200,
      body: [{ body: 'top secret' }],
    });
  });

  it('REST: after a refused request the connection is back to normal', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await rest('/secrets?select=body', 'postgres')).status).toBe(403);
      expect((await rest('/secrets?select=body', 'service_role')).status).toBe(200);
    }
    const { rows } = await server.db.query<{ u: string; s: string }>(
      'select current_user as u, session_user as s',
    );
    expect(rows[0]?.u).toBe(rows[0]?.s);
    expect(rows[0]?.u).not.toBe('authenticator');
  });

  it('storage: listing, downloading and uploading as postgres or outsider are AccessDenied', async () => {
    for (const role of ['postgres', 'outsider']) {
      const denied = {
        status: 400,
        body: {
          statusCode: '403',
          code: 'AccessDenied',
          error: 'Unauthorized',
          message: `permission denied to set role "${role}"`,
        },
      };
      expect(
        await storage('/object/list/vault', role, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ prefix: '' }),
        }),
      ).toEqual(denied);
      expect(await storage('/object/authenticated/vault/plan.txt', role)).toEqual(denied);
      expect(
        await storage('/object/vault/planted.txt', role, {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: 'x',
        }),
      ).toEqual(denied);
    }
    const { rows } = await server.db.query(
      "select name from storage.objects where bucket_id = 'vault' order by name",
    );
    expect(rows).toEqual([{ name: 'plan.txt' }]);
    // A role granted to authenticator reads through its policy.
    const ok = await storage('/object/list/vault', 'reporter', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prefix: '' }),
    });
    expect(ok).toMatchObject({ status: 200 });
    expect((ok.body as { name: string }[]).map((o) => o.name)).toEqual(['plan.txt']);
  });

  it('realtime: private channels refuse the join', async () => {
    for (const role of ['postgres', 'outsider']) {
      const c = realtimeClient(server, { token: await token(role) });
      clients.push(c);
      const reason = await joinError(c.channel(uniqueTopic(), { config: { private: true } }));
      expect(reason).toMatch(/^Unauthorized: You do not have permissions to read/);
    }
  });

  it('realtime: postgres_changes deliver no row to postgres or outsider', async () => {
    // One raw socket, three channels joined with their own tokens: frames on a socket keep
    // their order, so once the service_role channel has the second change, anything sent
    // to the other channels for either change has arrived too.
    const s = await RawSocket.open(socketUrl(server, `apikey=${server.anonKey}&vsn=2.0.0`));
    sockets.push(s);
    const changes = [{ event: 'INSERT', schema: 'public', table: 'secrets' }];
    const topics: Record<string, string> = {};
    for (const [i, role] of ['postgres', 'outsider', 'service_role'].entries()) {
      const topic = `realtime:${uniqueTopic()}`;
      topics[role] = topic;
      const ref = String(i + 1);
      s.send([
        ref,
        ref,
        topic,
        'phx_join',
        { config: { postgres_changes: changes }, access_token: await token(role) },
      ]);
      await s.waitFor((f: unknown[]) => f[1] === ref && f[3] === 'phx_reply');
    }
    const isChange = (topic: string) => (f: unknown[]) =>
      Array.isArray(f) && f[2] === topic && f[3] === 'postgres_changes';
    await server.db.query("insert into public.secrets values (10, null, 'new secret')");
    await server.db.query("insert into public.secrets values (11, null, 'newer secret')");
    const control = topics.service_role as string;
    await s.waitFor(
      (f: unknown[]) =>
        s.frames.filter((x) => isChange(control)(x as never)).length >= 2 &&
        isChange(control)(f as never),
    );
    const bodies = s.frames
      .filter((f) => isChange(control)(f as never))
      .map((f) => ((f as unknown[])[4] as { data: { record: { body: string } } }).data.record.body);
    expect(bodies).toEqual(['new secret', 'newer secret']);
    for (const role of ['postgres', 'outsider']) {
      const frames = s.frames.filter((f) => isChange(topics[role] as string)(f as never));
      for (const f of frames) {
        const data = ((f as unknown[])[4] as { data: Record<string, unknown> }).data;
        expect(data.record ?? {}).toEqual({});
      }
    }
  });
});
