import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKind } from '../support/server';
import { type RestFixture, startRestFixture } from './fixture';

/** A small deterministic PRNG so a failure can be replayed from its seed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PATHS = [
  '/countries',
  '/cities',
  '/projects',
  '/tasks',
  '/items',
  '/labels',
  '/big_cities',
  '/rpc/add',
  '/rpc/hello',
  '/rpc/country_stats',
  '/rpc/echo',
  '/rpc/whole',
  '/',
  '/nope',
  '/rpc/nope',
  '/a/b',
];
const QUERIES = [
  'select=id,name,cities(name,population)&id=gt.1&order=name.desc.nullslast&limit=2',
  'select=*,countries!inner(*)&countries.name=eq.France',
  'select=name,...countries(code)&population=gte.1000&or=(name.eq.Paris,and(id.gt.2,id.lt.5))',
  'name=in.(Paris,"Lyon, FR")&select=id&offset=1',
  'info->>continent=eq.Europe&info->gdp=gt.3&select=name,c:info->languages->0',
  'name=like(any).{P*,L*}&id=not.is.null&order=id',
  'fts=wfts(english).city&select=name',
  'select=count()&country_id=eq.1',
  'select=name,tasks(title,labels(name))&tasks.order=id&tasks.limit=1',
  'a=1&b=2',
  'min_pop=1000&select=code&order=population',
  'columns=name,qty&select=id',
  'on_conflict=name&select=*',
  'id=eq.1',
  'tags=cs.{red}&meta->level=eq.1',
  'select=id::text,name&created=lt.2000-01-01',
];
const SPECIAL = [
  ',',
  '.',
  '(',
  ')',
  '"',
  '*',
  ':',
  '!',
  '{',
  '}',
  '[',
  ']',
  '-',
  '>',
  "'",
  '\\',
  ';',
  '%',
  '&',
  '=',
  '+',
  ' ',
  '\u0000',
  'é',
  '😀',
  '::',
  '->>',
  '..',
  'not.',
  'eq.',
  'or=(',
  '$1',
  '--',
  '/*',
];
const WORDS = [
  'select',
  'order',
  'limit',
  'offset',
  'or',
  'and',
  'not',
  'eq',
  'in',
  'is',
  'null',
  'cs',
  'fts',
  'count',
  'id',
  'name',
  'cities',
  'countries',
  'inner',
  'left',
  'asc',
  'desc',
  'drop table countries',
  "'; select 1; --",
  'pg_sleep(10)',
  '9999999999999999999999',
  '-1',
];
const HEADERS: [string, string[]][] = [
  [
    'prefer',
    [
      'return=representation',
      'count=exact',
      'count=planned',
      'count=estimated',
      'handling=strict',
      'max-affected=1',
      'tx=rollback',
      'resolution=merge-duplicates',
      'missing=default',
      'bogus',
      'return=headers-only',
      'timezone=UTC',
    ],
  ],
  [
    'accept',
    [
      'application/json',
      'application/vnd.pgrst.object+json',
      'text/csv',
      'application/vnd.pgrst.plan+json; for="application/json"; options=;',
      'application/vnd.pgrst.array+json;nulls=stripped',
      'image/png',
      '*/*',
      ';;,,',
      'application/openapi+json',
    ],
  ],
  ['range', ['0-1', '5-', '3-1', 'abc', '99999999999999999999-']],
  ['accept-profile', ['public', 'auth', 'graphql_public', '']],
  ['content-profile', ['public', 'pg_catalog']],
  [
    'content-type',
    [
      'application/json',
      'text/csv',
      'application/x-www-form-urlencoded',
      'text/plain',
      'application/octet-stream',
    ],
  ],
  [
    'authorization',
    [
      'Bearer x.y.z',
      'Bearer a',
      'Basic abc',
      'Bearer eyJhbGciOiJub25lIn0.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.',
    ],
  ],
];
const BODIES = [
  '{"name":"fuzz","qty":1}',
  '[{"name":"a"},{"name":"b","qty":2}]',
  '{"a":1,"b":2}',
  '{"name":"x"}',
  '[]',
  '{}',
  'null',
  '"str"',
  '{"nope":1}',
  'name,qty\nfuzz,1',
  'name=fuzz',
  '[{"id":"x"}]',
  '{"payload":{"k":[1,2]}}',
];
const METHODS = ['GET', 'GET', 'GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS', 'PURGE'];

function mutate(text: string, r: () => number): string {
  let s = text;
  const n = 1 + Math.floor(r() * 4);
  for (let i = 0; i < n; i++) {
    const pos = Math.floor(r() * (s.length + 1));
    const pick = r();
    const piece =
      pick < 0.6
        ? (SPECIAL[Math.floor(r() * SPECIAL.length)] as string)
        : (WORDS[Math.floor(r() * WORDS.length)] as string);
    const op = r();
    if (op < 0.5) s = s.slice(0, pos) + piece + s.slice(pos);
    else if (op < 0.8) s = s.slice(0, pos) + s.slice(pos + 1 + Math.floor(r() * 5));
    else s = s.slice(0, pos) + piece + s.slice(pos + piece.length);
  }
  return s;
}

/** Header values must be Latin-1 without NUL/CR/LF. */
const latin1 = (s: string) =>
  [...s]
    .filter((ch) => {
      const c = ch.codePointAt(0) ?? 0;
      return c > 31 && c < 256;
    })
    .join('');

let f: RestFixture;
beforeAll(async () => {
  f = await startRestFixture({ rest: { aggregatesEnabled: true } });
});
afterAll(() => f?.server.stop());

describe(`REST fuzzing (${databaseKind()})`, () => {
  it('answers ≥ 10,000 random and mutated requests without a 5xx or an unmapped error', async () => {
    const r = rng(20261122);
    const failures: string[] = [];
    const CASES = 10_000;
    const started = Date.now();
    for (let i = 0; i < CASES; i++) {
      const method = METHODS[Math.floor(r() * METHODS.length)] as string;
      const path = PATHS[Math.floor(r() * PATHS.length)] as string;
      const base = QUERIES[Math.floor(r() * QUERIES.length)] as string;
      const query = r() < 0.8 ? mutate(base, r) : base;
      let encoded: string;
      try {
        encoded =
          r() < 0.5
            ? encodeURI(query).replace(/#/g, '%23')
            : query.replace(/[#\s]/g, '%20').split(String.fromCharCode(0)).join('%00');
      } catch {
        encoded = base;
      }
      const headers = new Headers({
        apikey: r() < 0.7 ? f.server.anonKey : f.server.serviceRoleKey,
      });
      if (r() < 0.3) headers.set('authorization', `Bearer ${f.tokenA}`);
      for (const [name, values] of HEADERS) {
        if (r() < 0.2) {
          const v = values[Math.floor(r() * values.length)] as string;
          headers.set(name, r() < 0.8 ? v : latin1(mutate(v, r)));
        }
      }
      const hasBody = method === 'POST' || method === 'PATCH' || method === 'PUT';
      const body = hasBody
        ? r() < 0.7
          ? (BODIES[Math.floor(r() * BODIES.length)] as string)
          : mutate(BODIES[Math.floor(r() * BODIES.length)] as string, r)
        : undefined;
      let res: Response;
      try {
        res = await f.server.request(`http://localhost/rest/v1${path}?${encoded}`, {
          method,
          headers,
          ...(body !== undefined ? { body } : {}),
        });
      } catch (error) {
        failures.push(`#${i} ${method} ${path}?${query}: threw ${String(error)}`);
        continue;
      }
      const text = await res.text();
      if (res.status >= 500) {
        failures.push(
          `#${i} ${method} ${path}?${query} [${[...headers].join('; ')}] body=${body}: ${res.status} ${text}`,
        );
        continue;
      }
      if (res.status >= 400 && method !== 'HEAD' && res.status !== 401) {
        // Every REST error is PostgREST-shaped: all four keys, a code.
        let parsed: Record<string, unknown> | null = null;
        try {
          parsed = JSON.parse(text) as Record<string, unknown>;
        } catch {
          parsed = null;
        }
        const keys = parsed ? Object.keys(parsed).sort().join(',') : '';
        if (keys !== 'code,details,hint,message' || typeof parsed?.code !== 'string') {
          failures.push(`#${i} ${method} ${path}?${query}: unshaped ${res.status} ${text}`);
        }
      }
    }
    const seconds = (Date.now() - started) / 1000;
    expect(failures.slice(0, 10)).toEqual([]);
    console.log(`fuzz: ${CASES} cases in ${seconds.toFixed(1)} s (${databaseKind()})`);
    // The server still answers normally afterwards.
    const ok = await f.rest('/countries?select=id&id=eq.1');
    expect(await ok.json()).toEqual([{ id: 1 }]);
  }, 120_000);
});
