/**
 * Auth, in-process server (PGlite), each figure next to its anchor from the same run:
 * - token verification by kid (ES256) next to the legacy HS256 secret: the verifier alone
 *   (cold: every token new; warm: the verified-token cache), and per REST request over HTTP
 *   (32 autocannon connections in a child process; warm: one token, cold: 20,000 tokens in
 *   turn, more than the cache holds), as server CPU time per request (this process: HTTP and
 *   the database threads) and throughput. Goal: ES256 per request within 1.3× of HS256;
 * - password sign-in and refresh latency (p50, p95) under 20 concurrent clients with ES256 as
 *   the current signing key next to HS256 (one server, the current key switched between
 *   alternating slices);
 * - GET /auth/v1/user vs GET /auth/v1/health (HTTP floor); a sequential sign-in vs one bcrypt
 *   verify at cost 10 (its floor); sequential refresh-token grants.
 * Compared figures are measured in alternating slices, each line with the load average.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash, verify } from '@node-rs/bcrypt';
import autocannon from 'autocannon';
import { authService } from '../src/auth/index';
import { DEFAULT_JWT_SECRET, generateSigningKey } from '../src/config/keys';
import { verifyJwt } from '../src/http/jwt';
import { SigningKeys } from '../src/http/signing-keys';
import { devMailService } from '../src/mail/index';
import { restService } from '../src/rest/index';
import { type RunningServer, startServer } from '../src/server';

const SECONDS = 3;
const ROUNDS = 3;
const load = () => `load ${loadavg()[0]?.toFixed(1)}`;

function migrations(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-auth-'));
  writeFileSync(
    join(dir, '0001_bench.sql'),
    `create table public.items (id int primary key, name text not null);
     alter table public.items enable row level security;
     create policy readable on public.items for select to authenticated using (true);
     insert into public.items values (1, 'one');`,
  );
  return dir;
}

const userClaims = () => {
  const now = Math.floor(Date.now() / 1000);
  return {
    sub: randomUUID(),
    role: 'authenticated',
    aud: 'authenticated',
    iat: now,
    exp: now + 3600,
  };
};

/** The verifier alone: µs per token, each token new (cold) or the same one again (warm). */
function verifierFigures() {
  const es = generateSigningKey('ES256');
  const rs = { ...generateSigningKey('RS256'), status: 'previous' as const };
  const keys = new SigningKeys(DEFAULT_JWT_SECRET, [{ ...es, status: 'standby' }, rs]);
  const sign = (kid: string | null, n: number) => {
    useKey(keys, kid);
    return Array.from({ length: n }, () => keys.sign(userClaims()));
  };
  const sets = { HS256: sign(null, 5000), ES256: sign(es.kid, 5000), RS256: sign(rs.kid, 2000) };
  useKey(keys, es.kid);
  // CPU time (µs), which a neighbour's load on the machine disturbs far less than wall time.
  const cpuSince = (start: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(start);
    return used.user + used.system;
  };
  const time = (tokens: string[]) => {
    keys.verified.clear();
    const t = process.cpuUsage();
    for (const token of tokens) if (!verifyJwt(token, keys).ok) throw new Error('not verified');
    return cpuSince(t) / tokens.length;
  };
  const warm = (token: string) => {
    verifyJwt(token, keys);
    const t = process.cpuUsage();
    for (let i = 0; i < 100_000; i++) verifyJwt(token, keys);
    return cpuSince(t) / 100_000;
  };
  const cold: Record<string, number[]> = { HS256: [], ES256: [], RS256: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const alg of ['HS256', 'ES256', 'RS256'] as const) cold[alg]?.push(time(sets[alg]));
  }
  const best = (alg: string) => Math.min(...(cold[alg] ?? []));
  console.log(
    `verifier CPU, cold (every token new): ES256 ${best('ES256').toFixed(1)} µs, RS256 ${best('RS256').toFixed(1)} µs per token (anchor HS256: ${best('HS256').toFixed(1)} µs) [${load()}]`,
  );
  console.log(
    `verifier CPU, warm (cached): ES256 ${warm(sets.ES256[0] as string).toFixed(2)} µs (anchor HS256: ${warm(sets.HS256[0] as string).toFixed(2)} µs)`,
  );
}

interface LoadResult {
  rps: number;
  total: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** CPU time of this process (server and database threads) per request, µs. */
  cpuPerRequest: number;
}

const CHILD = `
import { readFileSync } from 'node:fs';
const [autocannonUrl, file] = process.argv.slice(2);
const { default: autocannon } = await import(autocannonUrl);
const { url, apikey, tokens, seconds } = JSON.parse(readFileSync(file, 'utf8'));
let i = 0;
const r = await autocannon({
  url, connections: 32, duration: seconds, headers: { apikey },
  requests: [{ setupRequest(req) {
    req.headers = { ...req.headers, authorization: 'Bearer ' + tokens[i++ % tokens.length] };
    return req;
  } }],
});
process.stdout.write(JSON.stringify({ rps: r.requests.average, total: r.requests.total, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx }));
`;

/** GET one row through REST with 32 connections from a child process, tokens in turn. */
function restLoad(server: RunningServer, tokens: string[]): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-auth-load-'));
  const script = join(dir, 'load.mjs');
  const input = join(dir, 'input.json');
  writeFileSync(script, CHILD);
  writeFileSync(
    input,
    JSON.stringify({
      url: `${server.url}/rest/v1/items?id=eq.1&select=name`,
      apikey: server.anonKey,
      tokens,
      seconds: SECONDS,
    }),
  );
  const cpu = process.cpuUsage();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [script, import.meta.resolve('autocannon'), input],
      { maxBuffer: 1 << 20 },
      (error, stdout) => {
        if (error) return reject(error);
        const used = process.cpuUsage(cpu);
        const result = JSON.parse(stdout) as Omit<LoadResult, 'cpuPerRequest'>;
        resolve({ ...result, cpuPerRequest: (used.user + used.system) / result.total });
      },
    );
  });
}

/** Makes `kid` (null: the legacy secret) the current signing key. */
function useKey(keys: SigningKeys, kid: string | null) {
  if (keys.current().kid === kid) return;
  keys.setStatus(kid, 'standby');
  keys.rotate(kid);
}

async function perRequestFigures(server: RunningServer, esKid: string) {
  const tokens = (kid: string | null, n: number) => {
    useKey(server.signingKeys, kid);
    return Array.from({ length: n }, () => server.signingKeys.sign(userClaims()));
  };
  const sets = {
    HS256: { warm: tokens(null, 1), cold: tokens(null, 20_000) },
    ES256: { warm: tokens(esKid, 1), cold: tokens(esKid, 20_000) },
  };
  // One unrecorded slice each first, so neither pays the JIT's and the database's warm-up.
  for (const alg of ['HS256', 'ES256'] as const) await restLoad(server, sets[alg].warm);
  for (const kind of ['warm', 'cold'] as const) {
    const runs: Record<string, LoadResult[]> = { HS256: [], ES256: [] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const alg of ['HS256', 'ES256'] as const) {
        const result = await restLoad(server, sets[alg][kind]);
        if (result.non2xx > 0) throw new Error(`${alg} ${kind}: ${result.non2xx} non-2xx answers`);
        runs[alg]?.push(result);
      }
    }
    const sum = (alg: string) => (runs[alg] ?? []).reduce((a, b) => a + b.rps, 0);
    const cpu = (alg: string) => {
      const all = runs[alg] ?? [];
      return all.reduce((a, b) => a + b.cpuPerRequest, 0) / all.length;
    };
    const p50 = (alg: string) => Math.max(...(runs[alg] ?? []).map((x) => x.p50));
    console.log(
      `REST GET by id per request, ${kind === 'warm' ? 'one token (warm)' : '20,000 tokens in turn (cold)'}: ES256 ${cpu('ES256').toFixed(0)} µs of server CPU, ${(sum('ES256') / ROUNDS).toFixed(0)} req/s, p50 ${p50('ES256')} ms (anchor HS256: ${cpu('HS256').toFixed(0)} µs, ${(sum('HS256') / ROUNDS).toFixed(0)} req/s, p50 ${p50('HS256')} ms) — ES256 costs ${(cpu('ES256') / cpu('HS256')).toFixed(2)}× the CPU of HS256 per request (goal ≤ 1.3×) [${load()}]`,
    );
  }
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};

async function concurrencyFigures(server: RunningServer, esKid: string, post: Post) {
  const clients = 20;
  const users = await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const email = `bench-c${i}-${Date.now()}@example.com`;
      const s = await post('/signup', { email, password: 'bench-password' });
      return { email, refresh: s.refresh_token };
    }),
  );
  const samples: Record<string, { signIn: number[]; refresh: number[] }> = {
    HS256: { signIn: [], refresh: [] },
    ES256: { signIn: [], refresh: [] },
  };
  const timed = async (out: number[], fn: () => Promise<unknown>) => {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  };
  for (let r = 0; r < 2; r++) {
    for (const [alg, kid] of [
      ['HS256', null],
      ['ES256', esKid],
    ] as const) {
      useKey(server.signingKeys, kid);
      const s = samples[alg] as { signIn: number[]; refresh: number[] };
      await Promise.all(
        users.map(async (u) => {
          for (let i = 0; i < 3; i++) {
            await timed(s.signIn, async () => {
              const session = await post('/token?grant_type=password', {
                email: u.email,
                password: 'bench-password',
              });
              u.refresh = session.refresh_token;
            });
          }
        }),
      );
      await Promise.all(
        users.map(async (u) => {
          for (let i = 0; i < 10; i++) {
            await timed(s.refresh, async () => {
              u.refresh = (
                await post('/token?grant_type=refresh_token', { refresh_token: u.refresh })
              ).refresh_token;
            });
          }
        }),
      );
    }
  }
  const line = (what: 'signIn' | 'refresh', label: string) => {
    const es = samples.ES256?.[what] ?? [];
    const hs = samples.HS256?.[what] ?? [];
    console.log(
      `${label}, ${clients} concurrent clients (${es.length} each): ES256 p50 ${percentile(es, 50).toFixed(0)} ms, p95 ${percentile(es, 95).toFixed(0)} ms (anchor HS256: p50 ${percentile(hs, 50).toFixed(0)} ms, p95 ${percentile(hs, 95).toFixed(0)} ms) [${load()}]`,
    );
  };
  line('signIn', 'password sign-in');
  line('refresh', 'refresh_token grant');
}

type Post = (
  path: string,
  body: unknown,
) => Promise<{ access_token: string; refresh_token: string }>;

export default async function bench() {
  verifierFigures();
  const es = generateSigningKey('ES256');
  const server = await startServer(
    {
      port: 0,
      migrationsDir: migrations(),
      signingKeys: [{ ...es, status: 'standby' }],
      auth: { rateLimits: false },
    },
    { services: [authService, restService, devMailService] },
  );
  try {
    const headers = { apikey: server.anonKey, 'content-type': 'application/json' };
    const base = `${server.url}/auth/v1`;
    const post: Post = async (path, body) => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { access_token: string; refresh_token: string };
    };

    await perRequestFigures(server, es.kid);
    await concurrencyFigures(server, es.kid, post);

    useKey(server.signingKeys, null);
    const email = `bench-${Date.now()}@example.com`;
    const session = await post('/signup', { email, password: 'bench-password' });
    const rate = async (url: string, h: Record<string, string>) =>
      (await autocannon({ url, headers: h, connections: 10, duration: 3 })).requests.average;
    const health = await rate(`${base}/health`, headers);
    const user = await rate(`${base}/user`, {
      ...headers,
      authorization: `Bearer ${session.access_token}`,
    });
    console.log(
      `GET /user: ${user.toFixed(0)} req/s (anchor GET /health: ${health.toFixed(0)} req/s)`,
    );

    const stored = await hash('bench-password', { cost: 10 });
    let t = performance.now();
    for (let i = 0; i < 10; i++) await verify('bench-password', stored);
    const bcryptMs = (performance.now() - t) / 10;
    t = performance.now();
    for (let i = 0; i < 10; i++)
      await post('/token?grant_type=password', { email, password: 'bench-password' });
    const signInMs = (performance.now() - t) / 10;
    console.log(
      `password sign-in: ${signInMs.toFixed(0)} ms each, sequential (anchor bcrypt verify cost 10: ${bcryptMs.toFixed(0)} ms)`,
    );

    let token = session.refresh_token;
    const n = 100;
    t = performance.now();
    for (let i = 0; i < n; i++)
      token = (await post('/token?grant_type=refresh_token', { refresh_token: token }))
        .refresh_token;
    const refreshMs = (performance.now() - t) / n;
    console.log(
      `refresh_token grant: ${refreshMs.toFixed(1)} ms each, ${(1000 / refreshMs).toFixed(0)}/s sequential`,
    );
  } finally {
    await server.stop();
  }
}
