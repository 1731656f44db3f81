import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asRequest } from '../../src/db/index';
import { verifyJwt } from '../../src/http/jwt';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { adminClient, api, client, uniqueEmail } from './support';

let server: RunningServer;

const MIGRATION = /* sql */ `
create table public.profiles (
  id uuid primary key references auth.users (id) on delete cascade,
  display_name text
);
create function public.handle_new_user() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  begin
    if new.raw_user_meta_data ->> 'display_name' = 'forbidden' then
      raise exception 'display name not allowed';
    end if;
    insert into public.profiles (id, display_name)
      values (new.id, new.raw_user_meta_data ->> 'display_name');
    return new;
  end
  $$;
create trigger on_auth_user_created after insert on auth.users
  for each row execute procedure public.handle_new_user();

create table public.notes (
  id bigint generated always as identity primary key,
  owner_id uuid not null default auth.uid() references auth.users (id),
  body text not null
);
alter table public.notes enable row level security;
create policy "own notes" on public.notes for all to authenticated
  using (owner_id = auth.uid()) with check (owner_id = auth.uid());
`;

beforeAll(async () => {
  const migrationsDir = await mkdtemp(join(tmpdir(), 'auth-migrations-'));
  await writeFile(join(migrationsDir, '0001_profiles_notes.sql'), MIGRATION);
  server = await startTestServer({ migrationsDir, auth: { rateLimits: false } });
});
afterAll(() => server?.stop());

const count = async (sql: string, params: unknown[]) =>
  (await server.db.query<{ n: number }>(sql, params)).rows[0]?.n ?? -1;

describe(`auth.users in app migrations (${databaseKind()})`, () => {
  it('fires after-insert triggers on auth.users when users sign up', async () => {
    const { data, error } = await client(server).auth.signUp({
      email: uniqueEmail('profile'),
      password: 'profile-password',
      options: { data: { display_name: 'Linus' } },
    });
    expect(error).toBeNull();
    const { rows } = await server.db.query(
      'select display_name from public.profiles where id = $1',
      [data.user?.id],
    );
    expect(rows).toEqual([{ display_name: 'Linus' }]);
  });

  it('turns a failing trigger into a clean auth error and writes nothing', async () => {
    const email = uniqueEmail('forbidden');
    const body = { email, password: 'forbidden-password', data: { display_name: 'forbidden' } };
    const res = await api(server, '/signup', { method: 'POST', json: body });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-supabase-api-version')).toBe('2024-01-01');
    expect(await res.json()).toEqual({
      code: 'unexpected_failure',
      message: 'Database error saving new user',
    });
    // The legacy shape shows the exception an app trigger raised, as the hosted service does.
    const legacy = await api(server, '/signup', { method: 'POST', json: body, legacy: true });
    expect(legacy.status).toBe(500);
    expect(await legacy.json()).toEqual({ code: 'P0001', message: 'display name not allowed' });
    const viaClient = await client(server).auth.signUp({
      email,
      password: 'forbidden-password',
      options: { data: { display_name: 'forbidden' } },
    });
    // auth-js reads every 500 as retryable and keeps no body.
    expect(viaClient.error?.name).toBe('AuthRetryableFetchError');
    expect(viaClient.error?.status).toBe(500);
    expect(await count('select count(*)::int as n from auth.users where email = $1', [email])).toBe(
      0,
    );
    expect(
      await count(
        'select count(*)::int as n from auth.identities where identity_data ->> $2 = $1',
        [email, 'email'],
      ),
    ).toBe(0);
  });

  it('lets RLS decide with the claims of verified access tokens: each user sees only their rows', async () => {
    const sessions = [];
    for (const name of ['alice', 'bob']) {
      const { data } = await client(server).auth.signUp({
        email: uniqueEmail(name),
        password: `${name}-password`,
      });
      sessions.push(data.session);
    }
    const contexts = [];
    for (const session of sessions) {
      const verified = verifyJwt(session?.access_token ?? '', server.signingKeys);
      if (!verified.ok) throw new Error(verified.message);
      contexts.push({
        role: String(verified.claims.role),
        claims: verified.claims,
        method: 'POST',
        path: '/notes',
        headers: {},
      });
    }
    const [alice, bob] = contexts as [(typeof contexts)[0], (typeof contexts)[0]];
    await asRequest(server.db, alice, (tx) =>
      tx.query('insert into public.notes (body) values ($1)', ['a1']),
    );
    await asRequest(server.db, bob, (tx) =>
      tx.query('insert into public.notes (body) values ($1), ($2)', ['b1', 'b2']),
    );
    const read = (ctx: typeof alice) =>
      asRequest(server.db, { ...ctx, method: 'GET' }, async (tx) =>
        (await tx.query<{ body: string }>('select body from public.notes order by id')).rows.map(
          (r) => r.body,
        ),
      );
    expect(await read(alice)).toEqual(['a1']);
    expect(await read(bob)).toEqual(['b1', 'b2']);
    expect(await read({ ...alice, role: 'anon', claims: { role: 'anon' } })).toEqual([]);
    // Nobody writes rows in someone else's name.
    await expect(
      asRequest(server.db, alice, (tx) =>
        tx.query('insert into public.notes (owner_id, body) values ($1, $2)', [
          bob.claims.sub,
          'forged',
        ]),
      ),
    ).rejects.toMatchObject({ code: '42501' });
  });

  it('deletes users with their profile (cascade); a restricting foreign key gives a clean 500', async () => {
    const admin = adminClient(server);
    const { data } = await admin.auth.admin.createUser({
      email: uniqueEmail('delete'),
      password: 'delete-password',
      email_confirm: true,
      user_metadata: { display_name: 'Temp' },
    });
    const id = data.user?.id ?? '';
    expect(await count('select count(*)::int as n from public.profiles where id = $1', [id])).toBe(
      1,
    );
    await server.db.query('insert into public.notes (owner_id, body) values ($1, $2)', [
      id,
      'keeps me',
    ]);
    const blocked = await api(server, `/admin/users/${id}`, {
      method: 'DELETE',
      key: server.serviceRoleKey,
      token: server.serviceRoleKey,
    });
    expect(blocked.status).toBe(500);
    expect(await blocked.json()).toEqual({
      code: 'unexpected_failure',
      message: 'Database error deleting user',
    });
    expect(await count('select count(*)::int as n from auth.users where id = $1', [id])).toBe(1);
    await server.db.query('delete from public.notes where owner_id = $1', [id]);
    expect((await admin.auth.admin.deleteUser(id)).error).toBeNull();
    expect(await count('select count(*)::int as n from public.profiles where id = $1', [id])).toBe(
      0,
    );
  });
});
