import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { RunningServer } from '../../src/server';

export const DRIVE = {
  migrationsDir: fileURLToPath(new URL('../../../../apps/web/backend/migrations', import.meta.url)),
  seedFile: fileURLToPath(new URL('../../../../apps/web/backend/seed.sql', import.meta.url)),
};

/** Values that are easy to get wrong in a dump: every type class, NULLs, escapes. */
export const TRICKY_SQL = `
create schema extra;
create type extra.mood as enum ('happy', 'it''s complicated');
create domain extra.positive as integer check (value > 0);
create sequence extra.counter start with 100;
create table extra.samples (
  id bigint generated always as identity primary key,
  label text not null default 'x',
  mood extra.mood,
  score numeric(12, 4),
  ratio double precision,
  tags text[],
  doc jsonb,
  raw bytea,
  at timestamptz,
  day date,
  span interval,
  amount extra.positive,
  n bigint default nextval('extra.counter'),
  doubled bigint generated always as (id * 2) stored
);
alter sequence extra.counter owned by extra.samples.n;
create view extra.happy as select id, label from extra.samples where mood = 'happy';
create function extra.label_of(s extra.samples) returns text language sql stable as $$ select s.label $$;
comment on table extra.samples is 'Samples: it''s for the dump test';
insert into extra.samples (label, mood, score, ratio, tags, doc, raw, at, day, span, amount) values
  (E'tab\\there\\nnew line \\\\ backslash', 'happy', 12345678.1234, 1e-300, '{a,"b c",NULL}',
   '{"k": [1, 2.5, null, "é"]}', '\\x00ff10', '2026-01-02 03:04:05.123456+00', '2028-02-29', '1 day 02:03:04', 7),
  ('second', 'it''s complicated', null, 'NaN', '{}', 'null', '', 'infinity', null, null, 1),
  ('third', null, -0.5, -0.0, null, null, null, null, '1999-12-31', '-1 mon', null);
-- Rows past the drivers' stream buffers (a COPY of several hundred KB).
create table extra.bulk (id int primary key, body text);
insert into extra.bulk select g, repeat('row ', 25) || g from generate_series(1, 6000) g;
`;

/** The tables whose rows must survive a round trip. */
const TABLES = [
  'auth.users',
  'auth.identities',
  'storage.buckets',
  'storage.objects',
  'supabase_migrations.schema_migrations',
  'supabase_migrations.seeds',
  'public.profiles',
  'public.folders',
  'public.files',
  'public.shares',
  'extra.samples',
  'extra.bulk',
];

/** What the app's schema is made of, by name (deparsed expressions differ across versions). */
const CATALOG = {
  'catalog: relations': `select n.nspname || '.' || c.relname || ' ' || c.relkind::text || ' rls=' || c.relrowsecurity
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname in ('public', 'extra') and c.relkind in ('r', 'p', 'v', 'm', 'S', 'i')`,
  'catalog: policies': `select schemaname || '.' || tablename || ' ' || policyname || ' ' || cmd || ' ' || array_to_string(roles, ',')
     from pg_policies`,
  'catalog: triggers': `select tgrelid::regclass::text || ' ' || tgname || ' ' || tgenabled::text
     from pg_trigger where not tgisinternal`,
  'catalog: functions': `select p.oid::regprocedure::text from pg_proc p
     join pg_namespace n on n.oid = p.pronamespace where n.nspname in ('public', 'extra')`,
  'catalog: publication': `select schemaname || '.' || tablename from pg_publication_tables`,
};

/** Every row of every table above, as text, in a stable order; and the app's catalog by name. */
export async function snapshotRows(server: RunningServer): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [name, sql] of Object.entries(CATALOG)) {
    const { rows } = await server.db.query<{ v: string }>(`select v from (${sql}) t(v) order by 1`);
    out[name] = rows.map((r) => r.v);
  }
  for (const table of TABLES) {
    const { rows } = await server.db.query<{ row: string }>(
      `select t::text as row from ${table} t order by 1`,
    );
    out[table] = rows.map((r) => r.row);
  }
  return out;
}

const encodePath = (name: string) => name.split('/').map(encodeURIComponent).join('/');

/** Stores objects in Drive's `files` bucket through the storage API; returns name → sha256. */
export async function storeObjects(
  server: RunningServer,
  objects: Record<string, Uint8Array>,
): Promise<Record<string, string>> {
  const sums: Record<string, string> = {};
  for (const [name, bytes] of Object.entries(objects)) {
    const res = await fetch(`${server.url}/storage/v1/object/files/${encodePath(name)}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${server.serviceRoleKey}`,
        'content-type': 'application/octet-stream',
      },
      body: bytes,
    });
    if (!res.ok) throw new Error(`upload of ${name}: ${res.status} ${await res.text()}`);
    sums[name] = createHash('sha256').update(bytes).digest('hex');
  }
  return sums;
}

/** Removes objects from Drive's `files` bucket through the storage API; returns what went. */
export async function removeObjects(server: RunningServer, names: string[]): Promise<string[]> {
  const res = await fetch(`${server.url}/storage/v1/object/files`, {
    method: 'DELETE',
    headers: {
      authorization: `Bearer ${server.serviceRoleKey}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ prefixes: names }),
  });
  if (!res.ok) throw new Error(`removal of ${names.join(', ')}: ${res.status}`);
  return ((await res.json()) as { name: string }[]).map((o) => o.name);
}

/** Downloads objects through the storage API; returns name → sha256. */
export async function objectSums(
  server: RunningServer,
  names: string[],
): Promise<Record<string, string>> {
  const sums: Record<string, string> = {};
  for (const name of names) {
    const res = await fetch(`${server.url}/storage/v1/object/files/${encodePath(name)}`, {
      headers: { authorization: `Bearer ${server.serviceRoleKey}` },
    });
    if (!res.ok) throw new Error(`download of ${name}: ${res.status}`);
    sums[name] = createHash('sha256')
      .update(new Uint8Array(await res.arrayBuffer()))
      .digest('hex');
  }
  return sums;
}

export const SAMPLE_OBJECTS = () => ({
  'd0d0d0d0-0000-4000-8000-00000000d3e0/one/random.bin': randomBytes(3 * 1024 * 1024 + 17),
  'd0d0d0d0-0000-4000-8000-00000000d3e0/two/empty.txt': new Uint8Array(0),
  'd0d0d0d0-0000-4000-8000-00000000d3e0/three/a name (1) with spaces.txt': Buffer.from('héllo\n'),
});
