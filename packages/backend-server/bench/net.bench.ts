/**
 * pg_net (issue 25): how long the server takes to send 200 queued requests to a local
 * endpoint and record their answers, on PGlite and on a real PostgreSQL 15. The requests
 * are queued by one transaction (`net.http_get` 200 times); the clock runs from that statement (queuing included)
 * until the 200th answer is in `net._http_response`. Anchor: the same 200 requests sent
 * straight from Node, 50 at a time (the worker's concurrency), with nothing recorded.
 * Goal: ≤ 2 s on both engines.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, startServer } from '../src/server';
import { startCluster } from '../test/support/postgres-cluster';

const REQUESTS = 200;
const ROUNDS = 3;

async function drain(server: RunningServer, url: string): Promise<number> {
  const t = performance.now();
  const { rows } = await server.db.query<{ first: string; last: string }>(
    `with queued as (select net.http_get($1 || '/' || n) as id from generate_series(1, $2) n)
     select min(id)::text as first, max(id)::text as last from queued`,
    [url, REQUESTS],
  );
  const { first, last } = rows[0] as { first: string; last: string };
  for (;;) {
    const { rows: done } = await server.db.query<{ n: number }>(
      'select count(*)::int as n from net._http_response where id between $1::bigint and $2::bigint',
      [first, last],
    );
    if (done[0]?.n === REQUESTS) return performance.now() - t;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function anchor(url: string): Promise<number> {
  const t = performance.now();
  let next = 1;
  const lane = async () => {
    while (next <= REQUESTS) {
      const n = next++;
      await (await fetch(`${url}/${n}`)).text();
    }
  };
  await Promise.all(Array.from({ length: 50 }, lane));
  return performance.now() - t;
}

export default async function bench() {
  const endpoint = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;
  const migrationsDir = mkdtempSync(join(tmpdir(), 'bench-net-'));
  writeFileSync(
    join(migrationsDir, '0001_net.sql'),
    'create extension pg_net with schema extensions;',
  );
  const cluster = await startCluster();
  const pglite = await startServer({ port: 0, migrationsDir });
  const pg = await startServer({ port: 0, migrationsDir, databaseUrl: cluster.url });
  try {
    await drain(pglite, url); // warm-up
    await drain(pg, url);
    await anchor(url);
    const best = { pglite: Infinity, pg: Infinity, anchor: Infinity };
    for (let round = 0; round < ROUNDS; round++) {
      best.pglite = Math.min(best.pglite, await drain(pglite, url));
      best.pg = Math.min(best.pg, await drain(pg, url));
      best.anchor = Math.min(best.anchor, await anchor(url));
    }
    const worst = Math.max(best.pglite, best.pg);
    console.log(`pg_net, ${REQUESTS} queued requests to a local endpoint, best of ${ROUNDS}`);
    console.log(
      `  queued → all answers recorded  PGlite ${best.pglite.toFixed(0)} ms  PostgreSQL 15 ${best.pg.toFixed(0)} ms  anchor (Node fetch, 50 at a time) ${best.anchor.toFixed(0)} ms  (load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')})`,
    );
    console.log(`  goal: ≤ 2,000 ms on both engines: ${worst <= 2000 ? 'met' : 'NOT met'}`);
  } finally {
    await pglite.stop();
    await pg.stop();
    await cluster.stop();
    endpoint.close();
  }
}
