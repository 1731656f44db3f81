import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asRequest } from '../../src/db/index';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';

const USER_A = '00000000-0000-4000-a000-00000000000a';
const USER_B = '00000000-0000-4000-a000-00000000000b';

async function dirWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'migrations-'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

const as = (role: string, sub?: string) => ({
  role,
  claims: sub ? { sub, role, email: `${sub.slice(-1)}@example.com` } : { role },
  method: 'GET',
  path: '/notes',
  headers: { 'x-test': 'yes' },
});

describe(`platform schema and request context (${databaseKind()})`, () => {
  let server: RunningServer;

  beforeAll(async () => {
    const migrationsDir = await dirWith({
      '0001_notes.sql': `
        create table public.notes (
          id bigint generated always as identity primary key,
          owner_id uuid not null default auth.uid(),
          body text not null
        );
        alter table public.notes enable row level security;
        create policy "owner reads" on public.notes for select using (owner_id = auth.uid());
        create policy "owner writes" on public.notes for insert with check (owner_id = auth.uid());`,
      '0002_more.sql': 'alter table public.notes add column pinned boolean not null default false;',
    });
    const seedFile = join(migrationsDir, 'seed.sql.txt');
    await writeFile(
      seedFile,
      `insert into public.notes (owner_id, body) values ('${USER_A}', 'seeded');`,
    );
    server = await startTestServer({ migrationsDir, seedFile });
  });
  afterAll(() => server?.stop());

  it('has the API roles, service_role bypassing RLS', async () => {
    const { rows } = await server.db.query<{ rolname: string; rolbypassrls: boolean }>(
      `select rolname, rolbypassrls from pg_roles
       where rolname in ('anon', 'authenticated', 'service_role') order by rolname`,
    );
    expect(rows).toEqual([
      { rolname: 'anon', rolbypassrls: false },
      { rolname: 'authenticated', rolbypassrls: false },
      { rolname: 'service_role', rolbypassrls: true },
    ]);
  });

  it('grants the API roles privileges on tables a migration creates', async () => {
    const { rows } = await server.db.query<{ role: string; ok: boolean }>(
      `select r as role, has_table_privilege(r, 'public.notes', 'select,insert,update,delete') as ok
       from unnest(array['anon', 'authenticated', 'service_role']) r`,
    );
    expect(rows.every((r) => r.ok)).toBe(true);
  });

  it('applies migrations once, in order, and records them; the seed ran once', async () => {
    const { rows } = await server.db.query<{ version: string }>(
      'select version from supabase_migrations.schema_migrations order by version',
    );
    expect(rows.map((r) => r.version)).toEqual(['0001_notes', '0002_more']);
    const seeded = await server.db.query("select body from public.notes where body = 'seeded'");
    expect(seeded.rows).toHaveLength(1);
  });

  it('sets role, claims and request settings per transaction, like the hosted services', async () => {
    const row = await asRequest(server.db, as('authenticated', USER_A), async (tx) => {
      const { rows } = await tx.query<Record<string, unknown>>(
        `select current_user as "user", auth.uid() as uid, auth.role() as role,
                auth.email() as email, auth.jwt() ->> 'sub' as sub,
                current_setting('request.method') as method,
                current_setting('request.path') as path,
                current_setting('request.headers')::jsonb ->> 'x-test' as header`,
      );
      return rows[0];
    });
    expect(row).toEqual({
      user: 'authenticated',
      uid: USER_A,
      role: 'authenticated',
      email: 'a@example.com',
      sub: USER_A,
      method: 'GET',
      path: '/notes',
      header: 'yes',
    });
    // Nothing leaks out of the transaction.
    const after = await server.db.query<{ user: string; claims: string | null }>(
      `select current_user as "user", nullif(current_setting('request.jwt.claims', true), '') as claims`,
    );
    expect(after.rows[0]).toEqual({
      user: databaseKind() === 'pglite' ? 'postgres' : 'postgres',
      claims: null,
    });
  });

  it('reports a failing context (unknown role) rather than the aborted statements behind it', async () => {
    await expect(
      asRequest(server.db, as('no_such_role', USER_A), (tx) => tx.query('select 1')),
    ).rejects.toMatchObject({ code: '22023', message: 'role "no_such_role" does not exist' });
  });

  it('runs read-only requests in a read-only transaction', async () => {
    await expect(
      asRequest(
        server.db,
        as('service_role'),
        (tx) => tx.query("insert into public.notes (owner_id, body) values ($1, 'x')", [USER_A]),
        { readOnly: true },
      ),
    ).rejects.toMatchObject({ code: '25006' });
    const read = await asRequest(
      server.db,
      as('service_role'),
      async (tx) =>
        (await tx.query<{ ro: string }>("select current_setting('transaction_read_only') as ro"))
          .rows[0],
      { readOnly: true },
    );
    expect(read).toEqual({ ro: 'on' });
  });

  it('lets row level security decide: each user sees only their rows', async () => {
    for (const [user, body] of [
      [USER_A, 'a1'],
      [USER_B, 'b1'],
      [USER_B, 'b2'],
    ] as const) {
      await asRequest(server.db, as('authenticated', user), (tx) =>
        tx.query('insert into public.notes (body) values ($1)', [body]),
      );
    }
    const read = (role: string, sub?: string) =>
      asRequest(server.db, as(role, sub), async (tx) =>
        (await tx.query<{ body: string }>('select body from public.notes order by id')).rows.map(
          (r) => r.body,
        ),
      );
    expect(await read('authenticated', USER_A)).toEqual(['seeded', 'a1']);
    expect(await read('authenticated', USER_B)).toEqual(['b1', 'b2']);
    expect(await read('anon')).toEqual([]);
    expect(await read('service_role')).toEqual(['seeded', 'a1', 'b1', 'b2']);
    // A user cannot write a row for someone else.
    await expect(
      asRequest(server.db, as('authenticated', USER_A), (tx) =>
        tx.query('insert into public.notes (owner_id, body) values ($1, $2)', [USER_B, 'forged']),
      ),
    ).rejects.toMatchObject({ code: '42501' });
  });

  it('answers unknown paths with the gateway 404', async () => {
    const res = await fetch(`${server.url}/nowhere`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: 'no Route matched with those values' });
  });
});

describe(`failing migrations (${databaseKind()})`, () => {
  it('stop startup naming the file and the Postgres error, with nothing half-applied', async () => {
    const migrationsDir = await dirWith({
      '0001_ok.sql': 'create table public.first_ok (id int);',
      '0002_bad.sql': 'create table public.half (id int);\nselect * from public.no_such_table;',
    });
    const attempt = startTestServer({ migrationsDir });
    await expect(attempt).rejects.toThrow(
      /Migration 0002_bad\.sql failed: relation "public\.no_such_table" does not exist \(SQLSTATE 42P01\)/,
    );
  });

  // A data dir is a PGlite notion.
  it.skipIf(databaseKind() === 'postgres')(
    'keep the earlier migrations and none of the failing one (persistent data dir)',
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'data-'));
      const migrationsDir = await dirWith({
        '0001_ok.sql': 'create table public.first_ok (id int);',
        '0002_bad.sql': 'create table public.half (id int);\nselect 1/0;',
      });
      await expect(startTestServer({ migrationsDir, dataDir })).rejects.toThrow(
        /0002_bad\.sql.*22012/,
      );
      await writeFile(join(migrationsDir, '0002_bad.sql'), 'create table public.fixed (id int);');
      const server = await startTestServer({ migrationsDir, dataDir });
      try {
        const { rows } = await server.db.query<{
          t: string | null;
          half: string | null;
          fixed: string | null;
        }>(
          `select to_regclass('public.first_ok')::text as t, to_regclass('public.half')::text as half,
                to_regclass('public.fixed')::text as fixed`,
        );
        expect(rows[0]).toEqual({ t: 'first_ok', half: null, fixed: 'fixed' });
      } finally {
        await server.stop();
      }
    },
    // Three starts on one data directory: each a PGlite open from disk, slow on a busy machine.
    90_000,
  );
});
