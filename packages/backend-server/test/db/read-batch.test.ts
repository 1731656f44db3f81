import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAsRequest } from '../../src/db/index';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';

const USER_A = '00000000-0000-4000-a000-0000000000a1';
const USER_B = '00000000-0000-4000-a000-0000000000b1';

const as = (role: string, sub?: string) => ({
  role,
  claims: sub ? { sub, role } : { role },
  method: 'GET',
  path: '/memos',
  headers: { 'x-test': 'yes' },
});

// The same text every time, as REST sends it: fixed result columns around the rows.
const READ = `select count(*) as n, coalesce(json_agg(t order by t.body), '[]')::text as body
  from (select * from public.memos) t`;

describe(`read batches: one round trip per read-only request (${databaseKind()})`, () => {
  let server: RunningServer;

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'migrations-'));
    await writeFile(
      join(dir, '0001_memos.sql'),
      `create table public.memos (owner_id uuid not null, body text not null);
       alter table public.memos enable row level security;
       create policy "owner reads" on public.memos for select using (owner_id = auth.uid());
       insert into public.memos values ('${USER_A}', 'a1'), ('${USER_A}', 'a2'), ('${USER_B}', 'b1');`,
    );
    server = await startTestServer({ migrationsDir: dir });
  });
  afterAll(() => server?.stop());

  const read = async (role: string, sub?: string) => {
    const [r] = await readAsRequest(server.db, as(role, sub), [{ text: READ, params: [] }]);
    return r?.rows[0] as { n: number | string; body: string };
  };

  it('applies RLS per request although the statement text (and its plan) repeats', async () => {
    for (let i = 0; i < 8; i++) {
      expect(Number((await read('authenticated', USER_A)).n)).toBe(2);
      expect(Number((await read('authenticated', USER_B)).n)).toBe(1);
      expect(Number((await read('anon')).n)).toBe(0);
    }
  });

  it('sees a column added after the statement was first run', async () => {
    expect(JSON.parse((await read('authenticated', USER_B)).body)).toEqual([
      { owner_id: USER_B, body: 'b1' },
    ]);
    await server.db.exec(`alter table public.memos add column pinned boolean default true`);
    expect(JSON.parse((await read('authenticated', USER_B)).body)).toEqual([
      { owner_id: USER_B, body: 'b1', pinned: true },
    ]);
  });

  it('is read-only, reports the context error first, and recovers after errors', async () => {
    await expect(
      readAsRequest(server.db, as('service_role'), [
        { text: `insert into public.memos values ($1, 'x')`, params: [USER_A] },
      ]),
    ).rejects.toMatchObject({ code: '25006' });
    await expect(
      readAsRequest(server.db, as('no_such_role'), [{ text: READ, params: [] }]),
    ).rejects.toMatchObject({ code: '22023' });
    await expect(
      readAsRequest(server.db, as('anon'), [{ text: 'select $1::int as v', params: ['nope'] }]),
    ).rejects.toMatchObject({ code: '22P02' });
    const [ok] = await readAsRequest(server.db, as('anon'), [
      { text: 'select $1::int as v, current_user as u', params: ['7'] },
    ]);
    expect(ok?.rows).toEqual([{ v: 7, u: 'anon' }]);
    // Nothing of the request's context is left on the connection afterwards.
    const after = await server.db.query<{ u: string; claims: string | null }>(
      `select current_user as u, nullif(current_setting('request.jwt.claims', true), '') as claims`,
    );
    expect(after.rows[0]).toEqual({ u: 'postgres', claims: null });
  });
});
