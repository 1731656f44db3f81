import type { RunningServer } from '@app/backend-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../src/index';
import { createRestClient } from '../src/rest/index';
import { officialClient } from './support/official';
import { type Recorded, recordingFetch } from './support/record';
import { startSdkServer, userToken } from './support/server';

let server: RunningServer;
beforeAll(async () => {
  server = await startSdkServer();
});
afterAll(async () => {
  await server?.stop();
});

/** What a request says in protocol terms (client-info strings differ by design). */
const wire = (r: Recorded) => {
  const h: Record<string, string> = {};
  for (const k of [
    'accept',
    'accept-profile',
    'content-profile',
    'content-type',
    'apikey',
    'authorization',
  ])
    if (r.headers[k] !== undefined) h[k] = r.headers[k];
  if (r.headers.prefer) h.prefer = r.headers.prefer.split(/,\s*/).join(', ');
  return { method: r.method, path: r.path, query: r.query, headers: h, body: r.body };
};

/** What a result says, with generated values (ids) left out when asked. */
const outcome = (r: { data: unknown; error: unknown; count: number | null; status: number }) => {
  const e = r.error as {
    code?: string;
    message?: string;
    details?: unknown;
    hint?: unknown;
  } | null;
  return {
    data: r.data,
    error: e
      ? { code: e.code, message: e.message, details: e.details ?? null, hint: e.hint ?? null }
      : null,
    count: r.count,
    status: r.status,
  };
};

// biome-ignore lint/suspicious/noExplicitAny: the scenarios drive both untyped clients
type Any = any;

/** Runs `scenario` through this SDK and the official client as the same user. */
async function both(
  scenario: (c: Any, side: 'ours' | 'theirs') => PromiseLike<Any>,
  token?: string,
) {
  const ours = recordingFetch();
  const theirs = recordingFetch();
  const rest = createRestClient(server.url, server.anonKey, {
    fetch: ours.fetch,
    ...(token ? { accessToken: () => token } : {}),
  });
  const official = officialClient(server.url, server.anonKey, {
    fetch: token
      ? (input, init) => {
          const headers = new Headers(init?.headers);
          headers.set('Authorization', `Bearer ${token}`);
          return theirs.fetch(input, { ...init, headers });
        }
      : theirs.fetch,
  });
  const a = await scenario(rest, 'ours');
  const b = await scenario(official, 'theirs');
  return {
    ours: a,
    theirs: b,
    ourRequests: ours.log.map(wire),
    theirRequests: theirs.log.map(wire),
  };
}

describe('conformance with the official client (results and requests)', () => {
  const reads: [string, (c: Any) => PromiseLike<Any>][] = [
    [
      'select with embed and order',
      (c) => c.from('books').select('id, title, author:authors(name)').order('id'),
    ],
    [
      'to-many embed, count',
      (c) => c.from('authors').select('name, books(title)', { count: 'exact' }).order('id'),
    ],
    [
      'filters',
      (c) =>
        c.from('books').select('title').gte('year', 1972).contains('tags', ['scifi']).order('year'),
    ],
    [
      'in with quoting',
      (c) => c.from('books').select('id').in('title', ['Invisible Cities', 'a,b']).order('id'),
    ],
    [
      'logic tree',
      (c) => c.from('books').select('id').or('year.lt.1972,title.ilike.*cities*').order('id'),
    ],
    [
      'json path',
      (c) => c.from('books').select('title, pages:meta->pages').eq('meta->>pages', '184'),
    ],
    [
      'range with count',
      (c) => c.from('books').select('id', { count: 'exact' }).order('id').range(1, 1),
    ],
    ['head count', (c) => c.from('books').select('*', { count: 'exact', head: true })],
    ['single', (c) => c.from('books').select('title').eq('id', 1).single()],
    ['single with no row', (c) => c.from('books').select('title').eq('id', -1).single()],
    ['maybeSingle with no row', (c) => c.from('books').select('title').eq('id', -1).maybeSingle()],
    ['maybeSingle with many rows', (c) => c.from('books').select('title').maybeSingle()],
    ['csv', (c) => c.from('authors').select('name').order('id').csv()],
    ['missing table', (c) => c.from('nope').select()],
    ['unknown column', (c) => c.from('books').select('nope')],
    ['rpc scalar', (c) => c.rpc('add', { a: 2, b: 3 })],
    [
      'rpc set with filters (GET)',
      (c) => c.rpc('books_by_year', { y: 1974 }, { get: true }).select('title'),
    ],
    ['rpc head count', (c) => c.rpc('books_by_year', { y: 1971 }, { head: true, count: 'exact' })],
    ['rpc raising', (c) => c.rpc('fail', { msg: 'nope' })],
    ['rpc missing', (c) => c.rpc('missing_fn')],
    ['other schema', (c) => c.schema('extra').from('notes').select('body')],
    ['unexposed schema', (c) => c.schema('secret').from('x').select()],
  ];
  it.each(reads)('%s', async (_name, scenario) => {
    const r = await both(scenario);
    expect(outcome(r.ours)).toEqual(outcome(r.theirs));
    expect(r.ourRequests).toEqual(r.theirRequests);
  });

  it('mutations under RLS as a user', async () => {
    // Each client works on its own rows (its own title), so the results are comparable.
    const token = await userToken(server);
    const titles = new Map<unknown, string>();
    const titleOf = (c: Any) => {
      if (!titles.has(c)) titles.set(c, `t-${crypto.randomUUID()}`);
      return titles.get(c) as string;
    };
    const strip = (x: Any) => {
      const o = outcome(x);
      const rows = Array.isArray(o.data) ? o.data : o.data ? [o.data] : [];
      for (const row of rows) for (const k of ['id', 'owner', 'title']) delete row[k];
      return o;
    };
    const stripTitle = (requests: ReturnType<typeof wire>[]) =>
      requests.map((r) => ({
        ...r,
        query: r.query.map(([k, v]) => [k, v.replace(/t-[0-9a-f-]{36}/, 'T')]),
        body: r.body?.replace(/t-[0-9a-f-]{36}/g, 'T') ?? null,
      }));
    const steps: ((c: Any, title: string) => PromiseLike<Any>)[] = [
      (c, title) => c.from('todos').insert({ title, rank: 1 }).select('title, done, rank').single(),
      (c, title) =>
        c.from('todos').insert(
          [
            { title, done: false },
            { title, done: true },
          ],
          { count: 'exact' },
        ),
      (c, title) =>
        c
          .from('todos')
          .update({ rank: 5 }, { count: 'exact' })
          .eq('title', title)
          .select('title, rank'),
      (c, title) =>
        c
          .from('todos')
          .select('title, done, rank', { count: 'exact' })
          .eq('title', title)
          .order('done'),
      (c, title) => c.from('todos').delete({ count: 'exact' }).eq('title', title).select('title'),
      (c, title) => c.from('todos').select('*', { count: 'exact', head: true }).eq('title', title),
    ];
    for (const step of steps) {
      const r = await both((c, side) => step(c, titleOf(side)), token);
      expect(strip(r.ours)).toEqual(strip(r.theirs));
      expect(stripTitle(r.ourRequests)).toEqual(stripTitle(r.theirRequests));
    }
  });
});

describe('REST through createClient', () => {
  it('RLS decides: anon sees no todos; a user sees only their own', async () => {
    const alice = await userToken(server);
    const bob = await userToken(server);
    const asAlice = createRestClient(server.url, server.anonKey, { accessToken: () => alice });
    const asBob = createRestClient(server.url, server.anonKey, { accessToken: () => bob });
    const inserted = await asAlice.from('todos').insert({ title: 'alice only' }).select().single();
    expect(inserted.error).toBeNull();
    expect(inserted.status).toBe(201);
    expect((await asBob.from('todos').select().eq('title', 'alice only')).data).toEqual([]);
    const anon = createClient(server.url, server.anonKey, { auth: { persistSession: false } });
    expect((await anon.from('todos').select()).data).toEqual([]);
    const denied = await anon.from('todos').insert({ title: 'x' });
    expect(denied.error?.code).toBe('42501');
    expect(denied.status).toBe(401);
  });

  it('upserts on a conflict column and ignores duplicates on request', async () => {
    const token = await userToken(server);
    const rest = createRestClient(server.url, server.anonKey, { accessToken: () => token });
    const name = `author-${crypto.randomUUID()}`;
    const first = await rest.from('authors').insert({ name }).select('id, name').single();
    expect(first.error).toBeNull();
    const again = await rest.from('authors').insert({ name });
    expect(again.error?.code).toBe('23505');
    expect(again.status).toBe(409);
  });

  it('throwOnError() rejects with the PostgREST error', async () => {
    const rest = createRestClient(server.url, server.anonKey);
    await expect(rest.from('nope').select().throwOnError()).rejects.toMatchObject({
      name: 'PostgrestError',
      status: 404,
      code: 'PGRST205',
    });
  });

  it('reports a network failure as a result with status 0', async () => {
    const rest = createRestClient('http://127.0.0.1:9', server.anonKey, { retries: 0 });
    const { data, error, status } = await rest.from('books').select();
    expect({ data, status, code: error?.code }).toEqual({
      data: null,
      status: 0,
      code: 'network_error',
    });
  });
});
