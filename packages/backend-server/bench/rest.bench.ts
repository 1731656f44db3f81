/**
 * REST service (issue 4). GET one row by primary key with 32 concurrent clients (autocannon
 * in a child process), on PGlite next to the raw in-process PGlite rate of the same work,
 * and on a real PostgreSQL 15 next to the 6,000 req/s goal (anchor: PostgREST on a t3a.nano
 * serves about 2–4k req/s). Also an embedded select (parent + children) and a 1,000-row
 * bulk insert. Figures compared with each other are measured in alternating slices, so the
 * ratios hold on a machine shared with other work; each line carries the load average.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asRequest, type Database, readAsRequest } from '../src/db/index';
import { buildContext, type RestRequest, type Runtime } from '../src/rest/context';
import { readStatement } from '../src/rest/handlers/read';
import { parseQuery, queryPairs } from '../src/rest/parse/query';
import { loadSchemaCache } from '../src/rest/schema/load';
import { qualified } from '../src/rest/schema/types';
import { sourceFor } from '../src/rest/sql/read';
import { type RunningServer, startServer } from '../src/server';
import { startCluster } from '../test/support/postgres-cluster';

const AUTOCANNON = fileURLToPath(new URL('../node_modules/.bin/autocannon', import.meta.url));
// Each figure is measured in ROUNDS slices of SECONDS, alternating with the figures it is
// compared with, so a neighbour's load on this shared machine weighs on both alike.
const SECONDS = 3;
const ROUNDS = 3;

function migrations(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-rest-'));
  writeFileSync(
    join(dir, '0001_bench.sql'),
    `create table public.parents (id int primary key, name text not null, score int);
     create table public.children (id int primary key, parent_id int not null references public.parents(id), name text);
     create index on public.children (parent_id);
     create table public.bulk (id bigint generated always as identity primary key, name text not null, qty int, note text);
     alter table public.parents enable row level security;
     create policy readable on public.parents for select using (true);
     insert into public.parents select g, 'parent ' || g, g % 100 from generate_series(1, 1000) g;
     insert into public.children select g, 1 + (g % 1000), 'child ' || g from generate_series(1, 5000) g;`,
  );
  return dir;
}

interface Load {
  count: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

function autocannon(
  url: string,
  headers: Record<string, string>,
  seconds = SECONDS,
): Promise<Load> {
  const args = ['-c', '32', '-d', String(seconds), '-j'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    execFile(AUTOCANNON, args, { maxBuffer: 1 << 24 }, (error, stdout) => {
      if (error) return reject(error);
      const r = JSON.parse(stdout) as {
        requests: { average: number; total: number };
        duration: number;
        latency: { p50: number; p99: number };
        non2xx: number;
        errors: number;
      };
      resolve({
        count: r.requests.total,
        seconds: r.duration,
        rps: r.requests.total / r.duration,
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx + r.errors,
      });
    });
  });
}

/** The SQL the service builds for `GET /table?query`, for the in-process baseline. */
async function statementFor(server: RunningServer, table: string, query: string) {
  const cache = await loadSchemaCache(server.db, ['public']);
  const rt = {
    config: { rest: { schemas: ['public'] } },
    db: server.db,
    cache: () => cache,
    settings: () => ({
      maxRows: 1000,
      aggregatesEnabled: false,
      planEnabled: false,
      txEnd: 'commit',
      extraSearchPath: ['public', 'extensions'],
    }),
  } as unknown as Runtime;
  const pairs = queryPairs(query);
  const parsed = parseQuery(pairs);
  const t = cache.tables.get(qualified('public', table));
  if (!t) throw new Error(`no table ${table}`);
  const req = {
    method: 'GET',
    schema: 'public',
    pairs,
    prefs: {},
    media: { kind: 'json', stripNulls: false },
    rangeHeader: null,
  } as unknown as RestRequest;
  const ctx = buildContext(rt, req, parsed);
  return readStatement(rt, req, {
    ctx,
    query: parsed,
    source: sourceFor(ctx, t),
    ctes: [],
    range: null,
    body: { shape: 'array', stripNulls: false },
    maxAffected: null,
  }).main;
}

/** 32 concurrent in-process callers of `fn` for the bench duration. */
async function inProcess(fn: () => Promise<unknown>): Promise<Load> {
  const latencies: number[] = [];
  const end = performance.now() + SECONDS * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const t = performance.now();
      await fn();
      latencies.push(performance.now() - t);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: 32 }, worker));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    count: latencies.length,
    seconds: elapsed,
    rps: latencies.length / elapsed,
    p50: at(0.5),
    p99: at(0.99),
    non2xx: 0,
  };
}

/** Slices of one figure merged: total rate; median p50; worst p99. */
function merge(slices: Load[]): Load {
  const count = slices.reduce((n, l) => n + l.count, 0);
  const seconds = slices.reduce((n, l) => n + l.seconds, 0);
  const p50s = slices.map((l) => l.p50).sort((a, b) => a - b);
  return {
    count,
    seconds,
    rps: count / seconds,
    p50: p50s[Math.floor(p50s.length / 2)] ?? 0,
    p99: Math.max(...slices.map((l) => l.p99)),
    non2xx: slices.reduce((n, l) => n + l.non2xx, 0),
  };
}

/** Runs the measurements ROUNDS times in turn; each result merges its slices. */
async function alternate(runs: (() => Promise<Load>)[]): Promise<Load[]> {
  const slices: Load[][] = runs.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, run] of runs.entries()) slices[i]?.push(await run());
  }
  return slices.map(merge);
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

const fmt = (l: Load) =>
  `${l.rps.toFixed(0).padStart(6)} req/s  p50 ${l.p50.toFixed(2)} ms  p99 ${l.p99.toFixed(2)} ms${l.non2xx ? `  (${l.non2xx} non-2xx!)` : ''}`;

async function bulkInsert(
  server: RunningServer,
  db: Database,
): Promise<{ rest: number; raw: number }> {
  const rows = Array.from({ length: 1000 }, (_, i) => ({
    name: `row ${i}`,
    qty: i,
    note: i % 3 ? null : 'x',
  }));
  const body = JSON.stringify(rows);
  const runs = 10;
  let t = performance.now();
  for (let i = 0; i < runs; i++) {
    const res = await fetch(`${server.url}/rest/v1/bulk?columns=name,qty,note`, {
      method: 'POST',
      headers: { apikey: server.serviceRoleKey, 'content-type': 'application/json' },
      body,
    });
    if (res.status !== 201) throw new Error(`bulk insert: ${res.status} ${await res.text()}`);
  }
  const rest = (performance.now() - t) / runs;
  t = performance.now();
  for (let i = 0; i < runs; i++) {
    await db.query(
      `insert into public.bulk (name, qty, note) select name, qty, note from json_populate_recordset(null::public.bulk, $1::text::json)`,
      [body],
    );
  }
  const raw = (performance.now() - t) / runs;
  return { rest, raw };
}

async function suite(label: string, server: RunningServer) {
  const headers = { apikey: server.anonKey };
  const byPk = 'select=*&id=eq.500';
  const embedded = 'select=id,name,children(id,name)&id=eq.500';
  const ctx = {
    role: 'anon',
    claims: { role: 'anon' },
    method: 'GET',
    path: '/parents',
    headers: { apikey: server.anonKey },
    // The REST service's transaction: the request schema first in the search path.
    searchPath: '"public", "public", "extensions"',
  };
  const pk = await statementFor(server, 'parents', byPk);
  const emb = await statementFor(server, 'parents', embedded);
  // Warm up (the server, the database and both statements).
  await autocannon(`${server.url}/rest/v1/parents?${byPk}`, headers, 6);
  await autocannon(`${server.url}/rest/v1/parents?${embedded}`, headers);
  const [restPk, rawTx, generalTx, rawStmt] = await alternate([
    () => autocannon(`${server.url}/rest/v1/parents?${byPk}`, headers),
    // The baseline: the same read transaction the server runs for this request (context
    // settings, the statement, COMMIT in one round trip), called in-process.
    () => inProcess(() => readAsRequest(server.db, ctx, [{ text: pk.sql, params: pk.params }])),
    // The general transaction API (awaits the statement before COMMIT), for comparison.
    () =>
      inProcess(() =>
        asRequest(server.db, ctx, (tx) => tx.query(pk.sql, pk.params), { readOnly: true }),
      ),
    () => inProcess(() => server.db.query(pk.sql, pk.params)),
  ]);
  const [restEmb, rawEmb] = await alternate([
    () => autocannon(`${server.url}/rest/v1/parents?${embedded}`, headers),
    () => inProcess(() => readAsRequest(server.db, ctx, [{ text: emb.sql, params: emb.params }])),
  ]);
  if (!restPk || !rawTx || !generalTx || !rawStmt || !restEmb || !rawEmb)
    throw new Error('a figure is missing');
  const pct = (a: Load, b: Load) => `${((a.rps / b.rps) * 100).toFixed(0)}%`;
  console.log(`${label}: GET one row by primary key, 32 clients (load average ${load()})`);
  console.log(`  REST over HTTP                         ${fmt(restPk)}`);
  console.log(
    `  same transaction in-process (baseline) ${fmt(rawTx)}  → REST = ${pct(restPk, rawTx)}`,
  );
  console.log(
    `  asRequest in-process (general API)     ${fmt(generalTx)}  → REST = ${pct(restPk, generalTx)}`,
  );
  console.log(
    `  bare statement in-process, no txn      ${fmt(rawStmt)}  → REST = ${pct(restPk, rawStmt)}`,
  );
  console.log(`${label}: embedded select (parent + 5 children), 32 clients`);
  console.log(`  REST over HTTP                         ${fmt(restEmb)}`);
  console.log(
    `  same transaction in-process            ${fmt(rawEmb)}  → REST = ${pct(restEmb, rawEmb)}`,
  );
  const bulk = await bulkInsert(server, server.db);
  console.log(
    `${label}: 1,000-row bulk insert: REST ${bulk.rest.toFixed(1)} ms/request (${(1000 / (bulk.rest / 1000)).toFixed(0)} rows/s); raw statement ${bulk.raw.toFixed(1)} ms → REST = ${((bulk.raw / bulk.rest) * 100).toFixed(0)}% of raw`,
  );
  return restPk;
}

export default async function bench() {
  const migrationsDir = migrations();
  const pglite = await startServer({ port: 0, migrationsDir });
  try {
    const r = await suite('PGlite', pglite);
    console.log(
      `  goal: REST ≥ 80% of the in-process rate (see ratios above); measured ${r.rps.toFixed(0)} req/s (load average ${load()})`,
    );
  } finally {
    await pglite.stop();
  }
  const cluster = await startCluster();
  try {
    const pg = await startServer({ port: 0, migrationsDir, databaseUrl: cluster.url });
    try {
      const r = await suite('PostgreSQL 15', pg);
      console.log(
        `  goal ≥ 6,000 req/s: ${r.rps >= 6000 ? 'met' : 'NOT met'} (${r.rps.toFixed(0)} req/s; anchor PostgREST on t3a.nano 2–4k req/s; load average ${load()})`,
      );
    } finally {
      await pg.stop();
    }
  } finally {
    cluster.stop();
  }
}
