import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKind } from '../support/server';
import { json, type RestFixture, setDbConfig, startRestFixture, USER_A, USER_B } from './fixture';

let f: RestFixture;
beforeAll(async () => {
  f = await startRestFixture({ rest: { aggregatesEnabled: true } });
  // Alice has a private and a public project with tasks; Bob has one private project.
  await f.server.db.exec(`
    insert into public.projects (id, owner_id, name, is_public, budget, tags, meta) values
      (101, '${USER_A}', 'alpha', false, 100.5, '{red,blue}', '{"level":1,"owner":{"city":"Paris"}}'),
      (102, '${USER_A}', 'beta', true, null, '{green}', '{"level":2}'),
      (103, '${USER_B}', 'gamma', false, 50, '{}', '{}');
    insert into public.tasks (id, project_id, title, status, priority, assignee_id, reviewer_id) values
      (1001, 101, 'write spec', 'done', 1, '${USER_A}', '${USER_B}'),
      (1002, 101, 'build it', 'doing', 2, '${USER_B}', null),
      (1003, 102, 'ship', 'todo', null, null, null),
      (1004, 103, 'secret', 'todo', 3, '${USER_B}', null);
    insert into public.task_labels values (1001, 1), (1001, 3), (1002, 2);`);
});
afterAll(() => f?.server.stop());

describe(`select grammar (${databaseKind()})`, () => {
  it('selects columns with aliases, casts and JSON paths', async () => {
    const { data, error } = await f.anon
      .from('countries')
      .select(
        'id, label:name, pop:population::text, continent:info->>continent, info->languages, gdp:info->gdp',
      )
      .eq('id', 1);
    expect(error).toBeNull();
    expect(data).toEqual([
      { id: 1, label: 'France', pop: '68000000', continent: 'Europe', languages: ['fr'], gdp: 2.9 },
    ]);
  });

  it('embeds many-to-one as an object and one-to-many as an array', async () => {
    const { data } = await f.anon
      .from('cities')
      .select('name, countries(name)')
      .in('id', [1, 3])
      .order('id');
    expect(data).toEqual([
      { name: 'Paris', countries: { name: 'France' } },
      { name: 'Berlin', countries: { name: 'Germany' } },
    ]);
    const { data: many } = await f.anon
      .from('countries')
      .select('name, cities(name)')
      .eq('id', 2)
      .order('name', { referencedTable: 'cities', ascending: false });
    expect(many).toEqual([{ name: 'Germany', cities: [{ name: 'Munich' }, { name: 'Berlin' }] }]);
  });

  it('embeds many-to-many through a junction table, and one-to-one', async () => {
    const { data } = await f.alice.from('tasks').select('id, labels(name)').eq('id', 1001);
    expect(data?.[0]?.labels).toEqual(
      expect.arrayContaining([{ name: 'urgent' }, { name: 'bug' }]),
    );
    const { data: cap } = await f.anon
      .from('countries')
      .select('name, capitals(city_id)')
      .eq('id', 1);
    expect(cap).toEqual([{ name: 'France', capitals: { city_id: 1 } }]);
  });

  it('disambiguates with !hint and reports ambiguity as PGRST201', async () => {
    const res = await f.rest('/tasks?select=id,profiles(username)', { token: f.tokenA });
    expect(res.status).toBe(300);
    const body = await json(res);
    expect(body.code).toBe('PGRST201');
    expect(body.details).toHaveLength(2);
    expect(body.hint).toContain("'profiles!tasks_assignee_id_fkey'");
    const { data, error } = await f.alice
      .from('tasks')
      .select(
        'id, assignee:profiles!assignee_id(username), reviewer:profiles!tasks_reviewer_id_fkey(username)',
      )
      .eq('id', 1001);
    expect(error).toBeNull();
    expect(data).toEqual([
      { id: 1001, assignee: { username: 'alice' }, reviewer: { username: 'bob' } },
    ]);
  });

  it('filters parents with !inner and embedded filters; anti-join with is.null', async () => {
    const { data } = await f.anon
      .from('countries')
      .select('name, cities!inner(name)')
      .gt('cities.population', 3000000)
      .order('id');
    expect(data).toEqual([
      { name: 'Germany', cities: [{ name: 'Berlin' }] },
      { name: 'Japan', cities: [{ name: 'Tokyo' }] },
      { name: "Côte d'Ivoire", cities: [{ name: 'Abidjan' }] },
    ]);
    const { data: left } = await f.anon
      .from('countries')
      .select('name, cities(name)')
      .eq('cities.name', 'Lyon')
      .lte('id', 2)
      .order('id');
    expect(left).toEqual([
      { name: 'France', cities: [{ name: 'Lyon' }] },
      { name: 'Germany', cities: [] },
    ]);
    const { data: none } = await f.anon
      .from('countries')
      .select('name, cities()')
      .is('cities', null);
    expect(none).toEqual([{ name: 'Nowhere, Land' }]);
  });

  it("embeds through views using their base tables' foreign keys", async () => {
    const { data, error } = await f.anon
      .from('city_names')
      .select('name, countries(code)')
      .eq('id', 4);
    expect(error).toBeNull();
    expect(data).toEqual([{ name: 'Munich', countries: { code: 'DE' } }]);
    const { data: back } = await f.anon
      .from('countries')
      .select('code, city_names(name)')
      .eq('id', 3);
    expect(back).toEqual([{ code: 'JP', city_names: [{ name: 'Tokyo' }] }]);
  });

  it('spreads to-one columns into the parent', async () => {
    const { data } = await f.anon
      .from('cities')
      .select('name, ...countries(country:name, code)')
      .eq('id', 3);
    expect(data).toEqual([{ name: 'Berlin', country: 'Germany', code: 'DE' }]);
  });

  it('spreads to-many columns into correlated arrays, and filters nested embeds', async () => {
    const { data } = await f.anon
      .from('countries')
      .select('name, ...cities(city:name)')
      .eq('id', 2)
      .order('name', { referencedTable: 'cities' });
    expect(data).toEqual([{ name: 'Germany', city: ['Berlin', 'Munich'] }]);
    const res = await f.rest(
      '/countries?select=name,cities!inner(name,capitals(country_id))&cities.capitals.country_id=eq.2&cities.name=eq.Berlin',
    );
    expect(await json(res)).toEqual([
      { name: 'Germany', cities: [{ name: 'Berlin', capitals: [{ country_id: 2 }] }] },
    ]);
  });

  it('applies Prefer: timezone to timestamps', async () => {
    const res = await f.rest('/projects?select=created_at&id=eq.102', {
      headers: { prefer: 'timezone=Asia/Tokyo' },
    });
    const [row] = await json(res);
    expect(row.created_at).toMatch(/\+09:00$/);
    const bad = await f.rest('/projects?select=created_at', {
      headers: { prefer: 'timezone=Mars/Base' },
    });
    expect(bad.status).toBe(400);
  });

  it('limits, offsets and orders embedded resources', async () => {
    const { data } = await f.anon
      .from('countries')
      .select('name, cities(name)')
      .eq('id', 1)
      .order('population', { referencedTable: 'cities', ascending: true })
      .limit(1, { referencedTable: 'cities' });
    expect(data).toEqual([{ name: 'France', cities: [{ name: 'Lyon' }] }]);
    const res = await f.rest(
      '/countries?select=name,cities(name)&id=eq.1&cities.order=name&cities.offset=1',
    );
    expect(await json(res)).toEqual([{ name: 'France', cities: [{ name: 'Paris' }] }]);
  });

  it('aggregates with implicit group by, and the legacy count', async () => {
    const { data } = await f.anon
      .from('cities')
      .select('country_id, count(), total:population.sum(), population.max()')
      .in('country_id', [1, 2])
      .order('country_id');
    expect(data).toEqual([
      { country_id: 1, count: 2, total: 2620000, max: 2100000 },
      { country_id: 2, count: 2, total: 5100000, max: 3600000 },
    ]);
    const res = await f.rest('/countries?select=name,cities(count)&id=eq.1');
    expect(await json(res)).toEqual([{ name: 'France', cities: [{ count: 2 }] }]);
  });

  it('answers unknown columns and relations with PostgREST errors, never SQL', async () => {
    let res = await f.rest('/countries?select=nope');
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      code: '42703',
      message: 'column countries.nope does not exist',
      details: null,
      hint: null,
    });
    res = await f.rest('/countries?select=name,planets(name)');
    expect(res.status).toBe(400);
    expect((await json(res)).code).toBe('PGRST200');
    res = await f.rest('/countries?select=name&cities.name=eq.Paris');
    expect(res.status).toBe(400);
    expect((await json(res)).code).toBe('PGRST108');
    res = await f.rest('/countrys');
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({
      code: 'PGRST205',
      message: "Could not find the table 'public.countrys' in the schema cache",
      details: null,
      hint: "Perhaps you meant the table 'public.countries'",
    });
    // Only names at least 75% alike are hinted (no leaking of merely similar names).
    res = await f.rest('/cntrs');
    expect((await json(res)).hint).toBeNull();
    res = await f.rest('/countries?select=name,cities(name)&cities=eq.1');
    expect((await json(res)).code).toBe('PGRST120');
  });
});

describe(`horizontal filters (${databaseKind()})`, () => {
  const names = async (query: string) => {
    const res = await f.rest(`/countries?select=name&order=id&${query}`);
    const body = await json(res);
    if (!Array.isArray(body)) throw new Error(`${res.status} ${JSON.stringify(body)}`);
    return body.map((r: { name: string }) => r.name);
  };

  it('supports the comparison operators and not.', async () => {
    expect(await names('id=eq.2')).toEqual(['Germany']);
    expect(await names('id=neq.2&id=lt.4')).toEqual(['France', 'Japan']);
    expect(await names('population=gte.84000000')).toEqual(['Germany', 'Japan']);
    expect(await names('population=gt.84000000')).toEqual(['Japan']);
    expect(await names('population=lte.28000000')).toEqual(["Côte d'Ivoire"]);
    expect(await names('id=not.lt.4')).toEqual(["Côte d'Ivoire", 'Nowhere, Land']);
    expect(await names('code=isdistinct.FR')).toEqual([
      'Germany',
      'Japan',
      "Côte d'Ivoire",
      'Nowhere, Land',
    ]);
  });

  it('supports like/ilike with *, match/imatch, in with quoting, is', async () => {
    expect(await names('name=like.*an*')).toEqual(['France', 'Germany', 'Japan', 'Nowhere, Land']);
    expect(await names('name=ilike.F*')).toEqual(['France']);
    expect(await names('name=match.^[FG]')).toEqual(['France', 'Germany']);
    expect(await names('name=imatch.^j')).toEqual(['Japan']);
    expect(await names('name=in.(Japan,"Nowhere, Land")')).toEqual(['Japan', 'Nowhere, Land']);
    expect(await names('id=not.in.(1,2,3)')).toEqual(["Côte d'Ivoire", 'Nowhere, Land']);
    expect(await names('code=is.null')).toEqual(['Nowhere, Land']);
    expect(await names('code=not.is.null&id=lt.3')).toEqual(['France', 'Germany']);
    expect(await names('code=is.not_null&id=lt.2')).toEqual(['France']);
    const { data } = await f.anon
      .from('countries')
      .select('name')
      .in('name', ['France', 'Nowhere, Land']);
    expect(data?.map((r) => r.name).sort()).toEqual(['France', 'Nowhere, Land']);
  });

  it('supports (any)/(all) quantifiers', async () => {
    expect(await names('name=like(any).{F*,J*}')).toEqual(['France', 'Japan']);
    expect(await names('id=gt(all).{1,2}&id=lt.4')).toEqual(['Japan']);
    expect(await names('id=eq(any).{2,3}')).toEqual(['Germany', 'Japan']);
  });

  it('filters on JSON paths, arrays and ranges', async () => {
    expect(await names('info->>continent=eq.Europe')).toEqual(['France', 'Germany']);
    expect(await names('info->gdp=gt.4')).toEqual(['Germany', 'Japan']);
    expect(await names('info=cs.{"languages":["fr"]}')).toEqual(['France', "Côte d'Ivoire"]);
    const { data } = await f.alice.from('projects').select('name').contains('tags', ['red']);
    expect(data).toEqual([{ name: 'alpha' }]);
    const { data: ov } = await f.alice
      .from('projects')
      .select('name')
      .overlaps('tags', ['green', 'blue'])
      .order('id');
    expect(ov).toEqual([{ name: 'alpha' }, { name: 'beta' }]);
    const { data: cd } = await f.alice
      .from('projects')
      .select('name')
      .containedBy('tags', ['green', 'x'])
      .order('id');
    expect(cd).toEqual([{ name: 'beta' }]);
  });

  it('supports full-text search with configs, on tsvector and text columns', async () => {
    const { data } = await f.anon
      .from('cities')
      .select('name')
      .textSearch('fts', 'city', { config: 'english' })
      .order('id');
    expect(data?.map((r) => r.name)).toEqual(['Paris', 'Lyon', 'Tokyo']);
    const { data: web } = await f.anon
      .from('cities')
      .select('name')
      .textSearch('fts', 'capital germany', { type: 'websearch' });
    expect(web).toEqual([{ name: 'Berlin' }]);
    const { data: phrase } = await f.anon
      .from('cities')
      .select('name')
      .textSearch('fts', 'largest city', { type: 'phrase', config: 'english' });
    expect(phrase).toEqual([{ name: 'Tokyo' }]);
    const { data: text } = await f.anon
      .from('countries')
      .select('name')
      .textSearch('name', 'japan', { type: 'plain' });
    expect(text).toEqual([{ name: 'Japan' }]);
    expect(await names('name=not.fts(simple).france&id=lt.3')).toEqual(['Germany']);
  });

  it('combines or/and trees, nested and negated, also on embedded resources', async () => {
    expect(await names('or=(id.eq.1,id.eq.3)')).toEqual(['France', 'Japan']);
    expect(await names('or=(id.eq.5,and(population.gt.80000000,population.lt.100000000))')).toEqual(
      ['Germany', 'Nowhere, Land'],
    );
    expect(await names('not.or=(id.lt.3,id.gt.4)')).toEqual(['Japan', "Côte d'Ivoire"]);
    expect(await names('or=(name.eq."Nowhere, Land",code.in.(FR,DE))')).toEqual([
      'France',
      'Germany',
      'Nowhere, Land',
    ]);
    const { data } = await f.anon
      .from('countries')
      .select('name, cities(name)')
      .or('name.eq.Paris,population.lt.600000', { referencedTable: 'cities' })
      .eq('id', 1);
    expect(data).toEqual([{ name: 'France', cities: [{ name: 'Paris' }, { name: 'Lyon' }] }]);
  });

  it('rejects bad operators with PGRST100', async () => {
    const res = await f.rest('/countries?id=foo.1');
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.code).toBe('PGRST100');
    expect(Object.keys(body).sort()).toEqual(['code', 'details', 'hint', 'message']);
  });
});

describe(`ordering, paging and counts (${databaseKind()})`, () => {
  it('orders with nulls first/last and on a to-one relation', async () => {
    const { data } = await f.anon
      .from('countries')
      .select('code')
      .order('code', { ascending: true, nullsFirst: true })
      .limit(2);
    expect(data).toEqual([{ code: null }, { code: 'CI' }]);
    // A related order names an embedded to-one resource (PostgREST 13).
    const res = await f.rest(
      '/cities?select=name,countries(name)&order=countries(name).desc,name&limit=3',
    );
    expect((await json(res)).map((r: { name: string }) => r.name)).toEqual([
      'Tokyo',
      'Berlin',
      'Munich',
    ]);
    const notEmbedded = await f.rest('/cities?select=name&order=countries(name)');
    expect(notEmbedded.status).toBe(400);
    expect(await json(notEmbedded)).toEqual({
      code: 'PGRST108',
      message: "'countries' is not an embedded resource in this request",
      details: null,
      hint: "Verify that 'countries' is included in the 'select' query parameter.",
    });
    const bad = await f.rest('/countries?select=name,cities(name)&order=cities(name)');
    expect(bad.status).toBe(400);
    expect(await json(bad)).toEqual({
      code: 'PGRST118',
      message: "A related order on 'cities' is not possible",
      details: "'countries' and 'cities' do not form a many-to-one or one-to-one relationship",
      hint: null,
    });
  });

  it('pages with range/limit/offset and the Range header; Content-Range with counts', async () => {
    const { data, count, status } = await f.anon
      .from('cities')
      .select('id', { count: 'exact' })
      .order('id')
      .range(1, 2);
    expect(data).toEqual([{ id: 2 }, { id: 3 }]);
    expect(count).toBe(6);
    expect(status).toBe(206);
    let res = await f.rest('/cities?select=id&order=id', {
      headers: { range: '4-', prefer: 'count=exact' },
    });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe('4-5/6');
    res = await f.rest('/cities?select=id&order=id');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-range')).toBe('0-5/*');
    res = await f.rest('/cities?select=id&offset=10', { headers: { prefer: 'count=exact' } });
    expect(res.status).toBe(416);
    expect(await json(res)).toMatchObject({
      code: 'PGRST103',
      details: 'An offset of 10 was requested, but there are only 6 rows.',
    });
    res = await f.rest('/cities?select=id&id=eq.999', { headers: { prefer: 'count=exact' } });
    expect(res.headers.get('content-range')).toBe('*/0');
    res = await f.rest('/cities?limit=-1');
    expect(res.status).toBe(416);
    const head = await f.anon.from('cities').select('*', { count: 'exact', head: true });
    expect(head).toMatchObject({ data: null, count: 6, status: 200 });
    const planned = await f.anon.from('cities').select('*', { count: 'planned', head: true });
    expect(planned.count).toBeGreaterThan(0);
    const estimated = await f.anon.from('cities').select('*', { count: 'estimated' });
    expect(estimated.count).toBe(6);
  });

  it('caps responses at max rows', async () => {
    const res = await f.rest('/cities?select=id&limit=0');
    expect(await json(res)).toEqual([]);
  });
});

describe(`media types and profiles (${databaseKind()})`, () => {
  it('returns a single object or PGRST116', async () => {
    const one = await f.anon.from('countries').select('name').eq('id', 3).single();
    expect(one).toMatchObject({ data: { name: 'Japan' }, error: null });
    const many = await f.anon.from('countries').select('name').single();
    expect(many.status).toBe(406);
    expect(many.error).toMatchObject({
      code: 'PGRST116',
      message: 'Cannot coerce the result to a single JSON object',
      details: 'The result contains 5 rows',
    });
    const maybe = await f.anon.from('countries').select('name').eq('id', 99).maybeSingle();
    expect(maybe).toMatchObject({ data: null, error: null });
  });

  it('strips nulls, answers CSV and explain plans', async () => {
    const res = await f.rest('/countries?select=name,code&id=eq.5', {
      headers: { accept: 'application/vnd.pgrst.array+json;nulls=stripped' },
    });
    expect(await json(res)).toEqual([{ name: 'Nowhere, Land' }]);
    const { data } = await f.anon
      .from('countries')
      .select('name,code')
      .eq('id', 5)
      .single()
      .stripNulls();
    expect(data).toEqual({ name: 'Nowhere, Land' });
    const csv = await f.anon.from('countries').select('id,name').lte('id', 2).order('id').csv();
    expect(csv.data).toBe('id,name\n1,France\n2,Germany');
    // No rows: the header comes from the first row, so there is none (as PostgREST answers).
    const empty = await f.anon.from('countries').select('id,name').eq('id', 99).csv();
    expect(empty.data).toBe('\n');
    // Values in Postgres' record text form: quoted when they hold commas, spaces, quotes.
    const quoted = await f.anon
      .from('countries')
      .select('name,info')
      .in('id', [1, 5])
      .order('id')
      .csv();
    expect(quoted.data).toBe(
      'name,info\nFrance,"{""gdp"": 2.9, ""continent"": ""Europe"", ""languages"": [""fr""]}"\n"Nowhere, Land",',
    );
    // Plans are off by default, as on the hosted backend; the in-database setting turns
    // them on.
    const accept = { accept: 'application/vnd.pgrst.plan+json; for="application/json"' };
    const off = await f.rest('/countries', { headers: accept });
    expect(off.status).toBe(406);
    expect((await json(off)).code).toBe('PGRST107');
    await setDbConfig(
      f,
      { db_plan_enabled: 'true' },
      async () => (await f.rest('/countries', { headers: accept })).status === 200,
    );
    const plan = await f.anon.from('countries').select('*').explain({ format: 'json' });
    expect(plan.error).toBeNull();
    expect(JSON.stringify(plan.data)).toContain('Plan');
    const text = await f.rest('/countries', {
      headers: { accept: 'application/vnd.pgrst.plan+text; for="application/json"; options=;' },
    });
    expect(text.status).toBe(200);
    expect(await text.text()).toMatch(/Scan/);
    const bad = await f.rest('/countries', { headers: { accept: 'image/png' } });
    expect(bad.status).toBe(406);
    expect((await json(bad)).code).toBe('PGRST107');
  });

  it('selects schemas with Accept-Profile and rejects unexposed ones', async () => {
    const res = await f.rest('/countries?select=id&limit=1', {
      headers: { 'accept-profile': 'public' },
    });
    expect(res.headers.get('content-profile')).toBe('public');
    const bad = await f.rest('/countries', { headers: { 'accept-profile': 'auth' } });
    expect(bad.status).toBe(406);
    expect(await json(bad)).toMatchObject({ code: 'PGRST106', message: 'Invalid schema: auth' });
  });

  it('serves the OpenAPI document at the root', async () => {
    const res = await f.rest('/');
    expect(res.headers.get('content-type')).toContain('application/openapi+json');
    const doc = await json(res);
    expect(doc.swagger).toBe('2.0');
    expect(doc.paths['/countries'].get).toBeDefined();
    expect(doc.paths['/rpc/add'].post).toBeDefined();
    expect(doc.definitions.countries.properties.id.format).toBe('integer');
  });
});

describe(`row level security (${databaseKind()})`, () => {
  it('shows each caller only what its policies allow', async () => {
    const ids = async (c: typeof f.anon) =>
      (
        (await c.from('projects').select('id').in('id', [101, 102, 103]).order('id')).data ?? []
      ).map((r) => r.id);
    expect(await ids(f.anon)).toEqual([102]);
    expect(await ids(f.alice)).toEqual([101, 102]);
    expect(await ids(f.bob)).toEqual([102, 103]);
    expect(await ids(f.service)).toEqual([101, 102, 103]);
    const { data } = await f.bob.from('projects').select('name, tasks(title)').eq('id', 101);
    expect(data).toEqual([]);
  });

  it('rejects bad tokens with PGRST301/PGRST303 and WWW-Authenticate', async () => {
    let res = await f.rest('/countries', { token: 'not-a-jwt' });
    expect(res.status).toBe(401);
    expect(await json(res)).toMatchObject({
      code: 'PGRST301',
      message: 'Expected 3 parts in JWT; got 1',
    });
    expect(res.headers.get('www-authenticate')).toContain('invalid_token');
    const { mintToken } = await import('./fixture');
    const expired = await mintToken(
      f.server.jwtSecret,
      USER_A,
      {},
      Math.floor(Date.now() / 1000) - 3600,
    );
    res = await f.rest('/countries', { token: expired });
    expect(res.status).toBe(401);
    expect(await json(res)).toEqual({
      code: 'PGRST303',
      message: 'JWT expired',
      details: null,
      hint: null,
    });
    const forged = await mintToken('x'.repeat(40), USER_A);
    res = await f.rest('/countries', { token: forged });
    expect((await json(res)).code).toBe('PGRST301');
    const future = await mintToken(f.server.jwtSecret, USER_A, {
      nbf: Math.floor(Date.now() / 1000) + 3600,
    });
    res = await f.rest('/countries', { token: future });
    expect(await json(res)).toMatchObject({ code: 'PGRST303', message: 'JWT not yet valid' });
    const badRole = await mintToken(f.server.jwtSecret, USER_A, { role: 'no_such_role' });
    res = await f.rest('/countries', { token: badRole });
    expect(res.status).toBe(401);
  });
});
