import { describe, expect, it } from 'vitest';
import { isRestError } from '../../../src/errors';
import { createRestClient } from '../../../src/rest/client';
import { officialClient } from '../../support/official';
import { jsonResponse, type Recorded, recordingFetch } from '../../support/record';

const URL_ = 'http://127.0.0.1:1';
const KEY = 'anon-key';

/** Headers that matter to the protocol (the client-info strings differ by design). */
const relevant = (r: Recorded) => {
  const pick = [
    'accept',
    'accept-profile',
    'content-profile',
    'content-type',
    'apikey',
    'authorization',
  ];
  const h: Record<string, string> = {};
  for (const k of pick) if (r.headers[k] !== undefined) h[k] = r.headers[k];
  if (r.headers.prefer) h.prefer = r.headers.prefer.split(/,\s*/).join(', ');
  return { method: r.method, path: r.path, query: r.query, headers: h, body: r.body };
};

function clients(body: unknown = []) {
  const ours = recordingFetch(jsonResponse(body));
  const theirs = recordingFetch(jsonResponse(body));
  return {
    ours,
    theirs,
    rest: createRestClient(URL_, KEY, { fetch: ours.fetch }),
    official: officialClient(URL_, KEY, { fetch: theirs.fetch }),
  };
}

// biome-ignore lint/suspicious/noExplicitAny: the scenarios drive both untyped clients
type Any = any;
const scenarios: [string, (c: Any) => PromiseLike<unknown>][] = [
  ['select all', (c) => c.from('films').select()],
  [
    'select with embeds, filters, logic tree, order, range',
    (c) =>
      c
        .from('films')
        .select(
          'id, title, director:directors!inner(name), ...studios(studio_name:name), actors(count)',
          {
            count: 'exact',
          },
        )
        .eq('year', 1994)
        .in('genre', ['a,b', 'c'])
        .or('rating.gt.8,and(votes.gte.100,year.lt.2000)')
        .order('title', { ascending: false, nullsFirst: false })
        .order('name', { referencedTable: 'directors' })
        .range(0, 9),
  ],
  [
    'head with array, fts, not, json path',
    (c) =>
      c
        .from('films')
        .select('*', { head: true, count: 'planned' })
        .contains('tags', ['x', 'y'])
        .textSearch('fts', "'fat' & 'cat'", { type: 'websearch', config: 'english' })
        .not('deleted_at', 'is', null)
        .eq('data->>a', 'b'),
  ],
  [
    'every simple filter',
    (c) =>
      c
        .from('t')
        .select()
        .neq('a', 1)
        .gt('b', 2)
        .gte('c', 3)
        .lt('d', 4)
        .lte('e', 5)
        .like('f', '%x%')
        .ilike('g', 'y*')
        .is('h', true)
        .isDistinct('i', 7)
        .regexMatch('j', '^a')
        .regexIMatch('k', '^b')
        .likeAllOf('l', ['a%', '%b'])
        .likeAnyOf('m', ['a%'])
        .ilikeAllOf('n', ['a%'])
        .ilikeAnyOf('o', ['a%'])
        .notIn('p', [1, 2, 2])
        .containedBy('q', { a: 1 })
        .overlaps('r', '[1,2]')
        .rangeGt('s', '[1,2]')
        .rangeGte('t', '[1,2]')
        .rangeLt('u', '[1,2]')
        .rangeLte('v', '[1,2]')
        .rangeAdjacent('w', '[1,2]')
        .match({ x: 1, y: 'z' })
        .filter('z', 'in', '(1,2)')
        .or('a.eq.1', { referencedTable: 'rel' })
        .limit(5, { referencedTable: 'rel' })
        .limit(3),
  ],
  ['single', (c) => c.from('films').select('id').eq('id', 1).single()],
  ['maybeSingle', (c) => c.from('films').select('id').eq('id', 1).maybeSingle()],
  ['csv', (c) => c.from('t').select().csv()],
  ['explain', (c) => c.from('t').select().explain({ analyze: true, format: 'json' })],
  [
    'insert many with select and single',
    (c) =>
      c
        .from('films')
        .insert([{ id: 1, t: 'a' }, { x: 2 }])
        .select()
        .single(),
  ],
  [
    'insert one with count and defaults',
    (c) => c.from('films').insert({ id: 1 }, { count: 'exact', defaultToNull: false }),
  ],
  [
    'upsert ignore duplicates',
    (c) =>
      c
        .from('films')
        .upsert({ sku: 'a' }, { onConflict: 'sku', ignoreDuplicates: true, count: 'exact' }),
  ],
  [
    'upsert merge',
    (c) =>
      c
        .from('films')
        .upsert([{ id: 1 }])
        .select('id'),
  ],
  ['update', (c) => c.from('films').update({ title: 'x' }).eq('id', 1).select('id')],
  ['update max affected', (c) => c.from('t').update({ a: 1 }).eq('id', 1).maxAffected(5)],
  ['delete', (c) => c.from('films').delete().eq('id', 1)],
  ['delete with count', (c) => c.from('films').delete({ count: 'exact' }).in('id', [1, 2])],
  ['rpc post', (c) => c.rpc('add', { a: 1, b: 2 })],
  ['rpc no args', (c) => c.rpc('now')],
  [
    'rpc get with array and filter',
    (c) => c.rpc('list', { ids: [1, 2] }, { get: true, count: 'exact' }).eq('x', 1),
  ],
  ['rpc head', (c) => c.rpc('list', { a: 1 }, { head: true })],
  [
    'rpc head with object arg',
    (c) => c.rpc('list', { a: { b: 1 } }, { head: true, count: 'exact' }),
  ],
  ['other schema', (c) => c.schema('other').from('t').select()],
  ['other schema insert', (c) => c.schema('other').from('t').insert({ a: 1 })],
  ['rollback', (c) => c.from('t').insert({ a: 1 }).rollback()],
  ['strip nulls', (c) => c.from('t').select().stripNulls()],
];

describe('REST requests match the official client', () => {
  it.each(scenarios)('%s', async (_name, scenario) => {
    const c = clients();
    await scenario(c.rest);
    await scenario(c.official);
    expect(c.ours.log).toHaveLength(1);
    expect(relevant(c.ours.log[0] as Recorded)).toEqual(relevant(c.theirs.log[0] as Recorded));
  });
});

describe('REST builder', () => {
  it('is immutable: a builder can be reused as a base', async () => {
    const c = clients();
    const base = c.rest.from('t').select('id');
    const a = base.eq('a', 1);
    const b = base.eq('b', 2).order('id');
    expect(base.toRequest().url).toBe(`${URL_}/rest/v1/t?select=id`);
    expect(a.toRequest().url).toBe(`${URL_}/rest/v1/t?select=id&a=eq.1`);
    expect(b.toRequest().url).toBe(`${URL_}/rest/v1/t?select=id&b=eq.2&order=id.asc`);
    await a;
    await a;
    expect(c.ours.log.map((r) => r.query)).toEqual([
      [
        ['select', 'id'],
        ['a', 'eq.1'],
      ],
      [
        ['select', 'id'],
        ['a', 'eq.1'],
      ],
    ]);
  });

  it('quotes in-list values that contain reserved characters', () => {
    const c = clients();
    const req = c.rest.from('t').select().in('name', ['a.b', 'say "hi"', 'x']).toRequest();
    expect(new URL(req.url).searchParams.get('name')).toBe('in.("a.b","say \\"hi\\"",x)');
  });

  it('rejects an over-long URL before sending, with a hint', async () => {
    const c = clients();
    const ids = Array.from({ length: 2000 }, (_, i) => `id-${i}`);
    const { data, error, status } = await c.rest.from('t').select().in('id', ids);
    expect(c.ours.log).toHaveLength(0);
    expect(data).toBeNull();
    expect(status).toBe(0);
    expect(error?.code).toBe('url_too_long');
    expect(error?.hint).toMatch(/rpc/);
  });

  it('reports an unserialisable body as an error result, not a rejection', async () => {
    const c = clients();
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const { error } = await c.rest.from('t').insert(circular);
    expect(isRestError(error)).toBe(true);
    expect(c.ours.log).toHaveLength(0);
  });

  it('reports an aborted signal as an error result', async () => {
    const c = clients();
    const controller = new AbortController();
    controller.abort();
    const { error, status } = await c.rest.from('t').select().abortSignal(controller.signal);
    expect(status).toBe(0);
    expect(error?.code).toBe('aborted');
    expect(c.ours.log).toHaveLength(0);
  });

  it('rejects with the RestError under throwOnError()', async () => {
    const rest = createRestClient(URL_, KEY, {
      fetch: jsonResponse(
        { code: 'PGRST205', message: 'no table', details: null, hint: 'try x' },
        404,
      ),
    });
    const error = await rest
      .from('nope')
      .select()
      .throwOnError()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(isRestError(error)).toBe(true);
    expect(error).toMatchObject({
      status: 404,
      code: 'PGRST205',
      hint: 'try x',
      message: 'no table',
    });
  });

  it('reads count from Content-Range only when a count was requested', async () => {
    const fetch = jsonResponse([{ id: 1 }], 206, { 'content-range': '0-0/42' });
    const rest = createRestClient(URL_, KEY, { fetch });
    expect((await rest.from('t').select('*', { count: 'exact' })).count).toBe(42);
    expect((await rest.from('t').select('*')).count).toBeNull();
  });

  it('coerces maybeSingle results like the official client', async () => {
    const many = createRestClient(URL_, KEY, { fetch: jsonResponse([{ id: 1 }, { id: 2 }]) });
    const r = await many.from('t').select().maybeSingle();
    expect(r).toMatchObject({ data: null, status: 406, error: { code: 'PGRST116' } });
    const none = createRestClient(URL_, KEY, { fetch: jsonResponse([]) });
    expect((await none.from('t').select().maybeSingle()).data).toBeNull();
  });

  it('refuses an empty relation name', () => {
    const c = clients();
    expect(() => c.rest.from('')).toThrow(/table or view name/);
  });
});
