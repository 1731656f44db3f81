import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKind } from '../support/server';
import { json, type RestFixture, startRestFixture, USER_A } from './fixture';

let f: RestFixture;
beforeAll(async () => {
  f = await startRestFixture();
});
afterAll(() => f?.server.stop());

describe(`rpc (${databaseKind()})`, () => {
  it('calls with named arguments and defaults, by POST and GET', async () => {
    expect(await f.anon.rpc('add', { a: 2, b: 3 })).toMatchObject({ data: 5, status: 200 });
    expect((await f.anon.rpc('add', { a: 2, b: 3 }, { get: true })).data).toBe(5);
    expect((await f.anon.rpc('hello')).data).toBe('Hello guest!');
    expect((await f.anon.rpc('hello', { name: 'Ann' }, { get: true })).data).toBe('Hello Ann!');
    const head = await f.anon.rpc('add', { a: 1, b: 1 }, { head: true });
    expect(head).toMatchObject({ status: 200, data: null });
  });

  it('returns full rows of a row type from a schema that is not exposed', async () => {
    // PostgREST answers with the rows' columns; a cache of exposed schemas only gave [{}].
    const { data: pairs } = await f.anon.rpc('pairs');
    expect(pairs).toEqual([
      { k: 'a', v: 1 },
      { k: 'b', v: 2 },
    ]);
    const { data: filtered } = await f.anon.rpc('pairs').select('v').eq('k', 'b');
    expect(filtered).toEqual([{ v: 2 }]);
    expect((await f.anon.rpc('one_pair')).data).toEqual({ k: 'c', v: 3 });
    const { data: rows } = await f.anon.rpc('secret_rows');
    expect(rows).toEqual([
      { id: 1, label: 'one' },
      { id: 2, label: 'two' },
    ]);
  });

  it('passes a whole JSON body to a single unnamed json parameter', async () => {
    const { data } = await f.anon.rpc('whole', { any: ['thing', 1] });
    expect(data).toEqual({ any: ['thing', 1] });
    const { data: named } = await f.anon.rpc('echo', { payload: { x: 1 } });
    expect(named).toEqual({ x: 1 });
  });

  it('returns SETOF rows with filters, select, order, range and counts', async () => {
    const { data, count } = await f.anon
      .rpc('country_stats', { min_pop: 30000000 }, { count: 'exact' })
      .select('code')
      .order('population', { ascending: false })
      .range(0, 1);
    expect(data).toEqual([{ code: 'JP' }, { code: 'DE' }]);
    expect(count).toBe(3);
    const { data: filtered } = await f.anon.rpc('country_stats').eq('code', 'FR');
    expect(filtered).toEqual([{ code: 'FR', population: 68000000 }]);
    const { data: nums } = await f.anon.rpc('numbers', { n: 3 });
    expect(nums).toEqual([1, 2, 3]);
    const single = await f.anon.rpc('country_stats').eq('code', 'DE').single();
    expect(single.data).toEqual({ code: 'DE', population: 84000000 });
  });

  it('runs as the caller: RLS inside functions returning table rows, embeds on them', async () => {
    await f.server.db.query(
      `insert into public.projects (owner_id, name) values ($1, 'rpc-proj')`,
      [USER_A],
    );
    const { data } = await f.alice.rpc('my_projects').select('name, profiles(username)');
    expect(data).toEqual([{ name: 'rpc-proj', profiles: { username: 'alice' } }]);
    expect((await f.anon.rpc('my_projects')).data).toEqual([]);
    const who = await f.alice.rpc('whoami');
    expect(who.data).toEqual({ uid: USER_A, role: 'authenticated', method: 'POST' });
  });

  it('answers void with 204 and variadic arrays', async () => {
    const res = await f.rest('/rpc/noop', { method: 'POST' });
    expect(res.status).toBe(204);
    expect((await f.anon.rpc('sum_all', { nums: [1, 2, 3] })).data).toBe(6);
    const label = await f.service.rpc('new_label', { name: `rpc-${Date.now()}` });
    expect(label.data).toMatchObject({ name: expect.stringMatching(/^rpc-/) });
  });

  it('reports missing and ambiguous functions', async () => {
    let res = await f.rest('/rpc/nope', {
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({
      code: 'PGRST202',
      message: 'Could not find the function public.nope(a) in the schema cache',
    });
    res = await f.rest('/rpc/add?a=1');
    expect(res.status).toBe(404);
    expect((await json(res)).code).toBe('PGRST202');
    res = await f.rest('/rpc/pick?a=1');
    expect(res.status).toBe(300);
    expect((await json(res)).code).toBe('PGRST203');
    res = await f.rest('/rpc/add', { method: 'PATCH' });
    expect(res.status).toBe(405);
    expect((await json(res)).code).toBe('PGRST101');
  });

  it('runs GET in a read-only transaction (writes are 405)', async () => {
    const res = await f.rest('/rpc/write_in_get', { token: f.tokenA });
    expect(res.status).toBe(405);
    expect((await json(res)).code).toBe('25006');
    const post = await f.rest('/rpc/write_in_get', {
      method: 'POST',
      apikey: f.server.serviceRoleKey,
    } as RequestInit);
    expect(post.status).toBe(200);
    const options = await f.rest('/rpc/write_in_get', { method: 'OPTIONS' });
    expect(options.headers.get('allow')).toBe('OPTIONS,POST');
  });
});

describe(`errors (${databaseKind()})`, () => {
  it('turns RAISE SQLSTATE PGRST into the custom status, body and headers', async () => {
    const res = await f.rest('/rpc/fail_custom', { method: 'POST' });
    expect(res.status).toBe(402);
    expect(res.headers.get('x-powered-by')).toBe('Nerd Rage');
    expect(await json(res)).toEqual({
      code: '123',
      message: 'Payment Required',
      details: 'Quota exceeded',
      hint: 'Upgrade your plan',
    });
  });

  it('maps a plain RAISE to 400 with all four keys and Proxy-Status', async () => {
    const res = await f.rest('/rpc/fail_plain', { method: 'POST' });
    expect(res.status).toBe(400);
    expect(res.headers.get('proxy-status')).toBe('PostgREST; error=P0001');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await json(res)).toEqual({
      code: 'P0001',
      message: 'plain failure',
      details: null,
      hint: 'a hint',
    });
  });

  it('applies response.status and response.headers, PGRST112 on a bad status', async () => {
    const res = await f.rest('/rpc/teapot', { method: 'POST' });
    expect(res.status).toBe(418);
    expect(res.headers.get('x-tea')).toBe('earl grey');
    expect(await json(res)).toBe('short and stout');
    const bad = await f.rest('/rpc/bad_status', { method: 'POST' });
    expect(bad.status).toBe(500);
    expect((await json(bad)).code).toBe('PGRST112');
  });

  it('answers bad paths, verbs and preferences', async () => {
    let res = await f.rest('/a/b/c');
    expect(res.status).toBe(404);
    expect((await json(res)).code).toBe('PGRST125');
    res = await f.rest('/countries', { headers: { prefer: 'handling=strict, foo=bar' } });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      code: 'PGRST122',
      details: 'Invalid preferences: foo=bar',
    });
    res = await f.rest('/countries', { method: 'OPTIONS' });
    expect(res.headers.get('allow')).toContain('PATCH');
    res = await f.rest('/countries');
    expect(res.status).toBe(200);
    const noKey = await fetch(`${f.server.url}/rest/v1/countries`);
    expect(noKey.status).toBe(401);
  });

  it('reloads the schema cache on NOTIFY pgrst', async () => {
    // Replica mode keeps the DDL watch quiet, so only the explicit NOTIFY reloads.
    await f.server.db.exec(`set session_replication_role = replica;
      create table public.late_table (id int primary key);
      grant all on public.late_table to anon;
      insert into public.late_table values (1);
      reset session_replication_role;`);
    let res = await f.rest('/late_table');
    expect(res.status).toBe(404);
    await f.server.db.exec(`notify pgrst, 'reload schema'`);
    for (let i = 0; i < 100 && res.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      res = await f.rest('/late_table');
    }
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual([{ id: 1 }]);
  });

  it('builds a repeated read afresh after a schema reload (no stale cached SQL)', async () => {
    // The filter's cast follows the column's type in the schema cache.
    await f.server.db.exec(`create table public.growing (id int primary key, code int);
      grant all on public.growing to anon;
      insert into public.growing values (3, 7);`);
    const url = '/growing?select=id,code&code=eq.7';
    let res = await f.rest(url);
    for (let i = 0; i < 100 && res.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      res = await f.rest(url);
    }
    expect(await json(res)).toEqual([{ id: 3, code: 7 }]);
    await f.server.db.exec(`alter table public.growing alter column code type text`);
    let body: unknown = null;
    for (let i = 0; i < 100; i++) {
      res = await f.rest(url);
      body = await json(res);
      if (res.status === 200 && JSON.stringify(body).includes('"7"')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(body).toEqual([{ id: 3, code: '7' }]);
  });

  it('reloads the schema cache by itself after DDL', async () => {
    await f.server.db.exec(`create table public.later_table (id int primary key);
      grant all on public.later_table to anon;
      insert into public.later_table values (2);`);
    let res = await f.rest('/later_table');
    for (let i = 0; i < 100 && res.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      res = await f.rest('/later_table');
    }
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual([{ id: 2 }]);
  });
});
