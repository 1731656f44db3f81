/**
 * Realtime across replicas (issue 26, item 3): two servers on one PostgreSQL (a temp cluster),
 * a sender socket on replica B broadcasting 500 messages/s for 10 s to a channel with 10
 * member sockets on replica A; latency = receipt on A − send on B (same process clock).
 * Goal p99 ≤ 150 ms. Measured only on a quiet machine (load average < 2), else reported as
 * not measured.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { type RunningServer, startServer } from '../src/server';
import { startCluster } from '../test/support/postgres-cluster';

const RATE = 500;
const SECONDS = 10;
const RECEIVERS = 10;
const TOPIC = 'realtime:bench-replicas';

/** A vsn 1.0.0 socket joined to the bench topic. */
async function join(server: RunningServer, onBroadcast?: (t: number) => void): Promise<WebSocket> {
  const url = `${server.url.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${server.anonKey}&vsn=1.0.0`;
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const joined = new Promise<void>((resolve) => {
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { event: string; payload: Record<string, unknown> };
      if (frame.event === 'phx_reply') resolve();
      if (frame.event === 'broadcast') {
        onBroadcast?.((frame.payload.payload as { t: number }).t);
      }
    });
  });
  const payload = { config: { broadcast: { self: false } } };
  ws.send(JSON.stringify({ topic: TOPIC, event: 'phx_join', payload, ref: '1', join_ref: '1' }));
  await joined;
  return ws;
}

export default async function main(): Promise<void> {
  const load = loadavg()[0] ?? 0;
  if (load >= 2) {
    console.log(`cross-replica broadcast p99: not measured (load average ${load.toFixed(1)} ≥ 2)`);
    return;
  }
  const cluster = await startCluster();
  const servers = await Promise.all(
    [0, 1].map(() => startServer({ port: 0, databaseUrl: cluster.url })),
  );
  const [a, b] = servers as [RunningServer, RunningServer];
  const samples: number[] = [];
  const sockets: WebSocket[] = [];
  try {
    for (let i = 0; i < RECEIVERS; i++) {
      sockets.push(await join(a, (t) => samples.push(performance.now() - t)));
    }
    const sender = await join(b);
    sockets.push(sender);
    const total = RATE * SECONDS;
    const perTick = RATE / 50;
    let sent = 0;
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        for (let i = 0; i < perTick && sent < total; i++, sent++) {
          const payload = { type: 'broadcast', event: 'm', payload: { t: performance.now() } };
          sender.send(JSON.stringify({ topic: TOPIC, event: 'broadcast', payload, ref: null }));
        }
        if (sent >= total) {
          clearInterval(timer);
          resolve();
        }
      }, 20);
    });
    const end = Date.now() + 10_000;
    while (samples.length < total * RECEIVERS && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const sorted = [...samples].sort((x, y) => x - y);
    const at = (p: number) =>
      sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
    const p99 = at(0.99);
    console.log(
      `cross-replica broadcast at ${RATE}/s to ${RECEIVERS} members: received ${samples.length}/${total * RECEIVERS}, ` +
        `p50 ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms — ` +
        `goal p99 ≤ 150 ms: ${p99 <= 150 ? 'met' : 'NOT met'} (load average ${loadavg()[0]?.toFixed(1)})`,
    );
  } finally {
    for (const ws of sockets) ws.close();
    await Promise.all(servers.map((s) => s.stop()));
    cluster.stop();
  }
}
