/**
 * Function invocation latency (issue: backend-server part 4). One in-process server with
 * the functions service and, as the anchor, a plain Hono route mounted beside it (same
 * HTTP stack, same gateway, no worker hop), measured in the same run over keep-alive
 * fetch:
 * - cold: the first call after start (compile + worker boot), and the first call after
 *   the function's file changes (recompile + new worker);
 * - warm: p50/p99 over many sequential calls, interleaved, for a default-export function,
 *   for a `Deno.serve` function with verify_jwt on, and for the anchor route;
 * - throughput with 10 concurrent connections (autocannon), function vs anchor.
 * Every call crosses to a worker thread and back, so the figures depend on how busy the
 * machine's cores are; the load average is printed with them.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { functionsService } from '../src/functions/index';
import { startServer } from '../src/server';
import type { AppEnv, ServiceModule } from '../src/service-module';

const anchorService: ServiceModule = {
  name: 'anchor',
  basePath: '/anchor/v1',
  keyAuth: false,
  create() {
    const routes = new Hono<AppEnv>();
    routes.post('/hello', async (c) => c.json({ hello: (await c.req.json()).name }));
    return { routes };
  },
};

const HELLO = (tag: string) => `
  export default async (req: Request) => Response.json({ hello: (await req.json()).name, tag: '${tag}' });`;
const HOSTED = `
  Deno.serve(async (req) => new Response(JSON.stringify({ hello: (await req.json()).name }), {
    headers: { 'Content-Type': 'application/json' },
  }));`;

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const ms = (n: number) => `${n.toFixed(2)} ms`;

async function timed(url: string, headers: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: '{"name":"bench"}',
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return performance.now() - started;
}

/**
 * Interleaved sequential calls (A, B, C, A, B, C, …), so that every target sees the same
 * machine load; p50/p99 per target.
 */
async function series(targets: { url: string; headers?: Record<string, string> }[], n: number) {
  for (let i = 0; i < 50; i++) for (const t of targets) await timed(t.url, t.headers); // warm up
  const samples = targets.map(() => [] as number[]);
  for (let i = 0; i < n; i++) {
    for (const [k, t] of targets.entries()) samples[k]?.push(await timed(t.url, t.headers));
  }
  return samples.map((list) => {
    list.sort((a, b) => a - b);
    return { p50: pct(list, 50), p99: pct(list, 99) };
  });
}

async function throughput(url: string, headers: Record<string, string> = {}): Promise<number> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: '{"name":"bench"}',
    connections: 10,
    duration: 4,
  });
  return result.requests.average;
}

export default async function bench() {
  const root = await mkdtemp(join(tmpdir(), 'bench-functions-'));
  const functionsDir = join(root, 'functions');
  for (const [name, text] of [
    ['hello', HELLO('v0')],
    ['hosted', HOSTED],
  ] as const) {
    await mkdir(join(functionsDir, name), { recursive: true });
    await writeFile(join(functionsDir, name, 'index.ts'), text);
  }
  const server = await startServer(
    { port: 0, functionsDir, functions: { verifyJwt: { hello: false } } },
    { services: [functionsService, anchorService] },
  );
  const auth = { authorization: `Bearer ${server.anonKey}` };
  try {
    const fn = `${server.url}/functions/v1/hello`;
    const hosted = `${server.url}/functions/v1/hosted`;
    const anchor = `${server.url}/anchor/v1/hello`;
    await timed(anchor); // the HTTP connection, so the cold figure is the function's own

    const coldStart = await timed(fn);
    const afterChange: number[] = [];
    for (let i = 1; i <= 5; i++) {
      await writeFile(join(functionsDir, 'hello', 'index.ts'), HELLO(`v${i}`));
      afterChange.push(await timed(fn));
    }
    afterChange.sort((a, b) => a - b);
    console.log(`cold: first call after start ${ms(coldStart)}`);
    console.log(
      `cold: first call after a file change, median of 5 ${ms(pct(afterChange, 50))} (runs: ${afterChange.map((x) => x.toFixed(0)).join(', ')} ms)`,
    );

    const N = 2000;
    const [a, f, h] = await series(
      [{ url: anchor }, { url: fn }, { url: hosted, headers: auth }],
      N,
    );
    if (!a || !f || !h) throw new Error('no samples');
    console.log(`warm, ${N} sequential calls each, interleaved:`);
    console.log(`  anchor (plain Hono route)         p50 ${ms(a.p50)}  p99 ${ms(a.p99)}`);
    console.log(
      `  function (default export)         p50 ${ms(f.p50)}  p99 ${ms(f.p99)}  → +${ms(f.p50 - a.p50)} at p50 over the anchor`,
    );
    console.log(
      `  function (Deno.serve, verify_jwt) p50 ${ms(h.p50)}  p99 ${ms(h.p99)}  → +${ms(h.p50 - a.p50)} at p50 over the anchor`,
    );

    // Alternating runs, best of two each, to damp the noise of a shared machine.
    const ra: number[] = [];
    const rf: number[] = [];
    for (let i = 0; i < 2; i++) {
      ra.push(await throughput(anchor));
      rf.push(await throughput(fn));
    }
    const bestA = Math.max(...ra);
    const bestF = Math.max(...rf);
    console.log(
      `throughput, 10 connections (best of 2): anchor ${bestA.toFixed(0)} req/s, function ${bestF.toFixed(0)} req/s (${((bestF / bestA) * 100).toFixed(0)} % of the anchor)`,
    );
    console.log(
      `machine load average during the run: ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores`,
    );
  } finally {
    await server.stop();
  }
}
