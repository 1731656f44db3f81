import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKind } from '../support/server';
import { json, type RestFixture, setDbConfig, startRestFixture, USER_A } from './fixture';

let f: RestFixture;
beforeAll(async () => {
  f = await startRestFixture({ rest: { schemas: ['public', 'api'] } });
});
afterAll(() => f?.server.stop());

const unique = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;

describe(`inserts (${databaseKind()})`, () => {
  it('inserts an object (201, minimal by default) and an array with representation', async () => {
    const name = unique('item');
    const minimal = await f.service.from('items').insert({ name });
    expect(minimal).toMatchObject({ status: 201, data: null, error: null });
    const { data, status } = await f.service
      .from('items')
      .insert([{ name: `${name}-a`, qty: 1 }, { name: `${name}-b` }])
      .select('name, qty');
    expect(status).toBe(201);
    // Keys missing from some rows become NULL (postgrest-js sends `columns`).
    expect(data).toEqual([
      { name: `${name}-a`, qty: 1 },
      { name: `${name}-b`, qty: null },
    ]);
  });

  it('uses column defaults with missing=default', async () => {
    const name = unique('dflt');
    const { data } = await f.service
      .from('items')
      .insert([{ name, qty: 2 }, { note: 'no name' }], { defaultToNull: false })
      .select('name, qty, note');
    expect(data).toEqual([
      { name, qty: 2, note: null },
      { name: 'unnamed', qty: 7, note: 'no name' },
    ]);
  });

  it('answers headers-only with Location, and Content-Range with counts', async () => {
    const name = unique('loc');
    const res = await f.rest('/items', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        prefer: 'return=headers-only, count=exact',
        apikey: f.server.serviceRoleKey,
      },
      body: JSON.stringify({ name }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toMatch(/^\/items\?id=eq\.\d+$/);
    expect(res.headers.get('content-range')).toBe('*/1');
    expect(res.headers.get('preference-applied')).toContain('return=headers-only');
    expect(await res.text()).toBe('');
  });

  it('rejects non-uniform keys, unknown columns and invalid JSON', async () => {
    const post = (body: string, query = '') =>
      f.rest(`/items${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', apikey: f.server.serviceRoleKey },
        body,
      });
    let res = await post('[{"name":"a"},{"qty":1}]');
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      code: 'PGRST102',
      message: 'All object keys must match',
      details: null,
      hint: null,
    });
    res = await post('{"nope":1}');
    expect(res.status).toBe(400);
    expect((await json(res)).code).toBe('PGRST204');
    res = await post('{not json');
    expect((await json(res)).code).toBe('PGRST102');
    res = await post('[{"qty":1},{"note":"n","extra":"ignored"}]', '?columns=qty,note');
    expect(res.status).toBe(201);
  });

  it('accepts CSV and form bodies', async () => {
    const name = unique('csv');
    let res = await f.rest('/items?select=name,qty,note', {
      method: 'POST',
      headers: {
        'content-type': 'text/csv',
        prefer: 'return=representation',
        apikey: f.server.serviceRoleKey,
      },
      body: `name,qty,note\n${name},3,NULL\n"${name},2",4,""`,
    });
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual([
      { name, qty: 3, note: null },
      { name: `${name},2`, qty: 4, note: '' },
    ]);
    res = await f.rest('/items?select=name', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        prefer: 'return=representation',
        apikey: f.server.serviceRoleKey,
      },
      body: `name=${name}-form`,
    });
    expect(await json(res)).toEqual([{ name: `${name}-form` }]);
  });

  it('upserts with merge and ignore duplicates, and on_conflict', async () => {
    const name = unique('label');
    const first = await f.service.from('labels').insert({ name }).select('id, name').single();
    const id = first.data?.id as number;
    const merged = await f.service
      .from('labels')
      .upsert({ id, name: `${name}-renamed` })
      .select('id, name');
    expect(merged.data).toEqual([{ id, name: `${name}-renamed` }]);
    expect(merged.status).toBe(200);
    const ignored = await f.service
      .from('labels')
      .upsert({ id, name: 'ignored' }, { ignoreDuplicates: true })
      .select('id, name');
    expect(ignored.data).toEqual([]);
    const byName = await f.service
      .from('labels')
      .upsert({ name: `${name}-renamed` }, { onConflict: 'name' })
      .select('id');
    expect(byName.data).toEqual([{ id }]);
    const res = await f.rest('/labels', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        prefer: 'resolution=merge-duplicates',
        apikey: f.server.serviceRoleKey,
      },
      body: JSON.stringify({ name: unique('label') }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('preference-applied')).toBe('resolution=merge-duplicates');
  });

  it('upserts one row with PUT and checks its filters and body', async () => {
    const id = 900000 + Math.floor(Math.random() * 1000);
    const put = (query: string, body: unknown, prefer = 'return=representation') =>
      f.rest(`/labels${query}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', prefer, apikey: f.server.serviceRoleKey },
        body: JSON.stringify(body),
      });
    let res = await put(`?id=eq.${id}`, { id, name: `put-${id}` });
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual([{ id, name: `put-${id}` }]);
    res = await put(`?id=eq.${id}`, { id, name: `put-${id}-2` });
    expect(res.status).toBe(200);
    res = await put(`?id=eq.${id}`, { id, name: `put-${id}-3` }, 'return=minimal');
    expect(res.status).toBe(204);
    res = await put(`?name=eq.x`, { id, name: 'x' });
    expect(res.status).toBe(405);
    expect((await json(res)).code).toBe('PGRST105');
    res = await put(`?id=eq.${id}`, { id: id + 1, name: 'x' });
    expect(res.status).toBe(400);
    expect((await json(res)).code).toBe('PGRST115');
    res = await put(`?id=eq.${id}&limit=1`, { id, name: 'x' });
    expect((await json(res)).code).toBe('PGRST114');
  });
});

describe(`updates and deletes (${databaseKind()})`, () => {
  it('updates with filters: 204 minimal, 200 with representation, Content-Range', async () => {
    const name = unique('upd');
    await f.service.from('items').insert([
      { name, qty: 1 },
      { name, qty: 2 },
    ]);
    const minimal = await f.service.from('items').update({ note: 'x' }).eq('name', name);
    expect(minimal.status).toBe(204);
    const res = await f.rest(`/items?name=eq.${name}&select=qty,note`, {
      method: 'PATCH',
      headers: {
        'content-type': 'application/json',
        prefer: 'return=representation, count=exact',
        apikey: f.server.serviceRoleKey,
      },
      body: JSON.stringify({ note: 'y' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-range')).toBe('0-1/2');
    expect(await json(res)).toEqual(
      expect.arrayContaining([
        { qty: 1, note: 'y' },
        { qty: 2, note: 'y' },
      ]),
    );
  });

  it('enforces max-affected with handling=strict, rolling back', async () => {
    const name = unique('max');
    await f.service.from('items').insert([{ name }, { name }, { name }]);
    // maxAffected is typed for PostgREST 13+ clients only; the untyped client still sends it.
    const query = f.service
      .from('items')
      .update({ note: 'too many' })
      .eq('name', name) as unknown as {
      maxAffected(n: number): PromiseLike<{ status: number; error: unknown }>;
    };
    const res = await query.maxAffected(2);
    expect(res.status).toBe(400);
    expect(res.error).toMatchObject({ code: 'PGRST124', details: 'The query affects 3 rows' });
    const { data } = await f.service.from('items').select('note').eq('name', name);
    expect(data?.every((r) => r.note === null)).toBe(true);
  });

  it('deletes with representation and counts', async () => {
    const name = unique('del');
    await f.service.from('items').insert([{ name }, { name }]);
    const res = await f.rest(`/items?name=eq.${name}`, {
      method: 'DELETE',
      headers: { prefer: 'count=exact', apikey: f.server.serviceRoleKey },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('content-range')).toBe('*/2');
    const gone = await f.service.from('items').select('id').eq('name', name);
    expect(gone.data).toEqual([]);
    const again = await f.service.from('items').insert({ name }).select('name');
    const del = await f.service.from('items').delete().eq('name', name).select('name');
    expect(del).toMatchObject({ status: 200, data: again.data });
  });

  it('limits updates and deletes with order and limit', async () => {
    const name = unique('lim');
    await f.service.from('items').insert([1, 2, 3, 4].map((qty) => ({ name, qty })));
    const upd = await f.rest(`/items?name=eq.${name}&order=qty.desc&limit=2&select=qty`, {
      method: 'PATCH',
      headers: {
        'content-type': 'application/json',
        prefer: 'return=representation',
        apikey: f.server.serviceRoleKey,
      },
      body: JSON.stringify({ note: 'top' }),
    });
    expect((await json(upd)).map((r: { qty: number }) => r.qty).sort()).toEqual([3, 4]);
    const del = await f.rest(`/items?name=eq.${name}&order=qty&limit=1`, {
      method: 'DELETE',
      headers: { prefer: 'count=exact', apikey: f.server.serviceRoleKey },
    });
    expect(del.headers.get('content-range')).toBe('*/1');
    const { data } = await f.service
      .from('items')
      .select('qty, note')
      .eq('name', name)
      .order('qty');
    expect(data).toEqual([
      { qty: 2, note: null },
      { qty: 3, note: 'top' },
      { qty: 4, note: 'top' },
    ]);
  });

  it('honours tx=rollback where db-tx-end allows it (ignored by default)', async () => {
    const post = (name: string) =>
      f.rest('/items?select=name', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          prefer: 'return=representation, tx=rollback',
          apikey: f.server.serviceRoleKey,
        },
        body: JSON.stringify({ name }),
      });
    // The hosted default (db-tx-end = commit): the preference is not applied.
    const kept = unique('kept');
    const committed = await post(kept);
    expect(committed.status).toBe(201);
    expect(committed.headers.get('preference-applied')).toBe('return=representation');
    expect((await f.service.from('items').select('name').eq('name', kept)).data).toEqual([
      { name: kept },
    ]);
    await setDbConfig(f, { db_tx_end: 'commit-allow-override' }, async () => {
      const probe = unique('probe');
      await post(probe);
      return (await f.service.from('items').select('id').eq('name', probe)).data?.length === 0;
    });
    const name = unique('rb');
    const res = await post(name);
    expect(res.status).toBe(201);
    expect(res.headers.get('preference-applied')).toContain('tx=rollback');
    expect(await json(res)).toEqual([{ name }]);
    const { data } = await f.service.from('items').select('id').eq('name', name);
    expect(data).toEqual([]);
  });

  it('rolls back a singular mutation that does not hit exactly one row', async () => {
    const name = unique('single');
    await f.service.from('items').insert([{ name }, { name }]);
    const res = await f.service
      .from('items')
      .update({ note: 'one' })
      .eq('name', name)
      .select()
      .single();
    expect(res.status).toBe(406);
    expect(res.error?.code).toBe('PGRST116');
    const { data } = await f.service.from('items').select('note').eq('name', name);
    expect(data?.every((r) => r.note === null)).toBe(true);
  });

  it('returns embedded resources with the mutated rows', async () => {
    const { data, error } = await f.service
      .from('cities')
      .update({ population: 2100001 })
      .eq('id', 1)
      .select('name, countries(name)');
    expect(error).toBeNull();
    expect(data).toEqual([{ name: 'Paris', countries: { name: 'France' } }]);
  });
});

describe(`row level security on writes (${databaseKind()})`, () => {
  it('lets users write their own rows only; 401 for anon, 403 for a user', async () => {
    const mine = await f.alice
      .from('projects')
      .insert({ name: unique('mine') })
      .select('id, owner_id')
      .single();
    expect(mine.error).toBeNull();
    expect(mine.data?.owner_id).toBe(USER_A);
    const forged = await f.bob.from('projects').insert({ name: 'forged', owner_id: USER_A });
    expect(forged.status).toBe(403);
    expect(forged.error).toMatchObject({ code: '42501' });
    const anon = await f.anon.from('projects').insert({ name: 'anon', owner_id: USER_A });
    expect(anon.status).toBe(401);
    expect(anon.error?.code).toBe('42501');
    // Bob's update of Alice's row matches nothing.
    const upd = await f.bob
      .from('projects')
      .update({ name: 'stolen' })
      .eq('id', mine.data?.id)
      .select();
    expect(upd.data).toEqual([]);
    const del = await f.bob.from('projects').delete().eq('id', mine.data?.id).select();
    expect(del.data).toEqual([]);
    const still = await f.alice.from('projects').select('name').eq('id', mine.data?.id).single();
    expect(still.data?.name).not.toBe('stolen');
  });

  it('maps constraint violations to 409 and bad values to 400', async () => {
    const name = unique('dup');
    await f.service.from('labels').insert({ name });
    const dup = await f.service.from('labels').insert({ name });
    expect(dup.status).toBe(409);
    expect(dup.error?.code).toBe('23505');
    const fk = await f.service.from('cities').insert({ id: 777, name: 'x', country_id: 999 });
    expect(fk.status).toBe(409);
    expect(fk.error?.code).toBe('23503');
    const bad = await f.service.from('items').insert({ name: 'x', qty: 'many' });
    expect(bad.status).toBe(400);
    expect(bad.error?.code).toBe('22P02');
    const notNull = await f.service.from('countries').insert({ id: 99 });
    expect(notNull.status).toBe(400);
    expect(notNull.error?.code).toBe('23502');
  });
});

describe(`schemas (${databaseKind()})`, () => {
  it('reads and writes another exposed schema with Accept-Profile / Content-Profile', async () => {
    const api = f.anon.schema('api');
    const inserted = await api.from('notes').insert({ body: 'in api' }).select('body').single();
    expect(inserted).toMatchObject({ status: 201, data: { body: 'in api' } });
    const { data } = await api.from('notes').select('body').eq('body', 'in api');
    expect(data).toEqual([{ body: 'in api' }]);
    expect((await api.rpc('note_count')).data).toBeGreaterThan(0);
    const res = await f.rest('/notes', { headers: { 'accept-profile': 'api' } });
    expect(res.headers.get('content-profile')).toBe('api');
    const wrong = await f.rest('/notes');
    expect(wrong.status).toBe(404);
    const bad = await f.rest('/notes', {
      method: 'POST',
      headers: { 'content-profile': 'storage', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(await json(bad)).toMatchObject({
      code: 'PGRST106',
      hint: 'Only the following schemas are exposed: public, api',
    });
  });
});
