/**
 * Realtime (issue: backend-server part 4, items 4–8).
 *
 * The server runs in a child process (`backend-server start`, in-memory PGlite), the clients
 * in this process over `ws`:
 * 1. broadcast fan-out: 500 sockets (vsn 2.0.0) joined to one channel; a 501st socket sends
 *    binary broadcasts (kind 3, as realtime-js does) carrying its send time; latency = time
 *    each receiver decodes the kind 4 frame − send time (same process clock).
 *    Goal p95 ≤ 20 ms; anchor: the hosted service publishes p50 6 ms, p95 28 ms.
 * 2. postgres_changes: 100 sockets, each a different user, subscribed to INSERTs of a table
 *    with an RLS policy evaluated per subscriber; rows are inserted through /rest/v1 one at a
 *    time; latency = receipt − the change's commit_timestamp (captured in the database at
 *    commit, millisecond clock of the same machine), plus receipt − start of the insert
 *    request. Goal p95 ≤ 50 ms.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import { createApiKeys, DEFAULT_JWT_SECRET } from '../src/config/keys';

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

function migrations(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-realtime-'));
  writeFileSync(
    join(dir, '0001_items.sql'),
    `create table public.bench_items (id bigint generated always as identity primary key,
       owner_id uuid, label text not null, created_at timestamptz not null default now());
     alter table public.bench_items enable row level security;
     create policy "signed-in users read" on public.bench_items for select
       using (auth.uid() is not null and auth.role() = 'authenticated');
     alter publication supabase_realtime add table public.bench_items;`,
  );
  return dir;
}

async function startChild(): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', cli, 'start', '--port', '0', '--migrations', migrations()],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /API URL:\s+(\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return {
    url,
    async stop() {
      child.kill('SIGINT');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
  };
}

type Frame = unknown[];

/** A raw v2 socket that resolves replies by ref and hands other frames to `onFrame`. */
async function openSocket(url: string, onFrame: (data: Buffer, isBinary: boolean) => void) {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const replies = new Map<string, (frame: Frame) => void>();
  ws.on('message', (data: Buffer, isBinary) => {
    if (!isBinary && data.includes('phx_reply')) {
      const frame = JSON.parse(data.toString()) as Frame;
      replies.get(String(frame[1]))?.(frame);
      return;
    }
    onFrame(data, isBinary);
  });
  let ref = 0;
  const heartbeat = setInterval(
    () => ws.send(JSON.stringify([null, String(++ref), 'phoenix', 'heartbeat', {}])),
    25_000,
  );
  return {
    ws,
    request(topic: string, event: string, payload: unknown): Promise<Frame> {
      const r = String(++ref);
      return new Promise((resolve) => {
        replies.set(r, resolve);
        ws.send(JSON.stringify(['1', r, topic, event, payload]));
      });
    },
    close() {
      clearInterval(heartbeat);
      ws.close();
    },
  };
}

function kind3(topic: string, event: string, json: unknown): Buffer {
  const parts = ['1', '9', topic, event, ''].map((s) => Buffer.from(s));
  return Buffer.concat([
    Buffer.from([3, ...parts.map((p) => p.length), 1]),
    ...parts,
    Buffer.from(JSON.stringify(json)),
  ]);
}

async function inBatches<T>(count: number, size: number, make: (i: number) => Promise<T>) {
  const out: T[] = [];
  for (let i = 0; i < count; i += size) {
    out.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(size, count - i) }, (_, j) => make(i + j)),
      )),
    );
  }
  return out;
}

async function broadcastFanOut(wsUrl: string) {
  const CLIENTS = 500;
  const MESSAGES = 100;
  const WARMUP = 10;
  const topic = 'realtime:bench-fanout';
  const samples: number[] = [];
  let received = 0;
  let onAll: (() => void) | null = null;
  const receivers = await inBatches(CLIENTS, 50, async () => {
    const s = await openSocket(wsUrl, (data, isBinary) => {
      if (!isBinary) return;
      // kind 4: u8 kind, u8 topic len, u8 event len, u8 meta len, u8 encoding, …, payload
      const offset = 5 + (data[1] ?? 0) + (data[2] ?? 0) + (data[3] ?? 0);
      const { i, t } = JSON.parse(data.subarray(offset).toString()) as { i: number; t: number };
      if (i >= WARMUP) samples.push(performance.now() - t);
      received++;
      if (received % CLIENTS === 0) onAll?.();
    });
    await s.request(topic, 'phx_join', { config: { broadcast: { self: false } } });
    return s;
  });
  const sender = await openSocket(wsUrl, () => {});
  await sender.request(topic, 'phx_join', { config: { broadcast: { self: false } } });
  for (let i = 0; i < WARMUP + MESSAGES; i++) {
    const all = new Promise<void>((resolve) => {
      onAll = resolve;
    });
    sender.ws.send(kind3(topic, 'cursor', { i, t: performance.now(), x: i, y: i * 2 }));
    await all;
    await new Promise((r) => setTimeout(r, 20));
  }
  for (const s of [...receivers, sender]) s.close();
  return summary(samples);
}

async function changesLatency(url: string, wsUrl: string, serviceRoleKey: string) {
  const SUBSCRIBERS = 100;
  const ROWS = 60;
  const WARMUP = 5;
  const secret = new TextEncoder().encode(DEFAULT_JWT_SECRET);
  const fromCommit: number[] = [];
  const fromRequest: number[] = [];
  let requestStart = 0;
  let received = 0;
  let onAll: (() => void) | null = null;
  let row = 0;
  await inBatches(SUBSCRIBERS, 25, async (n) => {
    const token = await new SignJWT({ sub: randomUUID(), role: 'authenticated' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setExpirationTime('1h')
      .sign(secret);
    const s = await openSocket(wsUrl, (data, isBinary) => {
      if (isBinary || !data.includes('postgres_changes')) return;
      const frame = JSON.parse(data.toString()) as Frame;
      if (frame[3] !== 'postgres_changes') return;
      const now = Date.now();
      const perf = performance.now();
      const change = (frame[4] as { data: { commit_timestamp: string } }).data;
      if (row >= WARMUP) {
        fromCommit.push(now - Date.parse(change.commit_timestamp));
        fromRequest.push(perf - requestStart);
      }
      received++;
      if (received % SUBSCRIBERS === 0) onAll?.();
    });
    await s.request(`realtime:bench-changes-${n}`, 'phx_join', {
      config: { postgres_changes: [{ event: 'INSERT', schema: 'public', table: 'bench_items' }] },
      access_token: token,
    });
    return s;
  });
  await new Promise((r) => setTimeout(r, 500));
  for (row = 0; row < WARMUP + ROWS; row++) {
    const all = new Promise<void>((resolve) => {
      onAll = resolve;
    });
    requestStart = performance.now();
    const res = await fetch(`${url}/rest/v1/bench_items`, {
      method: 'POST',
      headers: {
        apikey: serviceRoleKey,
        authorization: `Bearer ${serviceRoleKey}`,
        'content-type': 'application/json',
        prefer: 'return=minimal',
      },
      body: JSON.stringify({ label: `row ${row}` }),
    });
    if (res.status !== 201) throw new Error(`insert failed: ${res.status} ${await res.text()}`);
    await all;
  }
  return { fromCommit: summary(fromCommit), fromRequest: summary(fromRequest) };
}

/** Baseline of this run: heartbeat round trips on one idle socket (one frame each way). */
async function heartbeatBaseline(wsUrl: string) {
  const s = await openSocket(wsUrl, () => {});
  const samples: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await s.request('phoenix', 'heartbeat', {});
    if (i >= 20) samples.push(performance.now() - t);
  }
  s.close();
  return summary(samples);
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

export default async function bench() {
  const { anonKey, serviceRoleKey } = await createApiKeys(DEFAULT_JWT_SECRET);
  const server = await startChild();
  const wsUrl = `${server.url.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${anonKey}&vsn=2.0.0`;
  try {
    const base = await heartbeatBaseline(wsUrl);
    console.log(
      `baseline, heartbeat round trip on one socket: p50 ${ms(base.p50)}, p95 ${ms(base.p95)} (load average ${loadavg()[0]?.toFixed(1)} on 2 cores, shared with other work)`,
    );
    const fan = await broadcastFanOut(wsUrl);
    console.log(
      `broadcast fan-out, 500 sockets on one channel (${fan.n} deliveries): p50 ${ms(fan.p50)}, p95 ${ms(fan.p95)}, p99 ${ms(fan.p99)}`,
    );
    console.log(
      `  goal p95 ≤ 20 ms: ${fan.p95 <= 20 ? 'met' : 'NOT met'}; anchor hosted p50 6 ms, p95 28 ms`,
    );
    const changes = await changesLatency(server.url, wsUrl, serviceRoleKey);
    console.log(
      `postgres_changes to 100 RLS-checked subscribers (${changes.fromCommit.n} deliveries): commit → receipt p50 ${ms(changes.fromCommit.p50)}, p95 ${ms(changes.fromCommit.p95)} (ms clock)`,
    );
    console.log(
      `  REST insert request start → receipt: p50 ${ms(changes.fromRequest.p50)}, p95 ${ms(changes.fromRequest.p95)}`,
    );
    console.log(
      `  goal p95 ≤ 50 ms (commit → receipt): ${changes.fromCommit.p95 <= 50 ? 'met' : 'NOT met'}; load average now ${loadavg()[0]?.toFixed(1)}`,
    );
  } finally {
    await server.stop();
  }
}
