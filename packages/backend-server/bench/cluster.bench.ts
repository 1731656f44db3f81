/**
 * `deploy/local-cluster.ts` (issue 26): three replicas with the S3 backend on radosgw, behind
 * HAProxy, against the anchor of the same run, one replica on the disk backend (the same
 * PostgreSQL, its own database), reached directly.
 *
 * - 256 MiB up (one streamed `POST /storage/v1/object`) and down (`GET`, streamed and
 *   hashed), interleaved rounds, median MiB/s; goal: cluster ≥ 0.8× disk, each way;
 * - idle RSS of each replica (VmRSS) every 30 s for CLUSTER_IDLE_S seconds (default 300)
 *   after start, then again after the transfer rounds (the load burst): it should not grow.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { missingBinaries, startLocalCluster } from '../../../deploy/local-cluster';
import { Replica } from '../test/replicas/cluster';
import { freePort } from '../test/replicas/proxies';

const MiB = 1024 * 1024;
/** 256 MiB; CLUSTER_MIB for a quicker look. */
const SIZE = Number(process.env.CLUSTER_MIB ?? 256) * MiB;
const ROUNDS = 3;
const IDLE_S = Number(process.env.CLUSTER_IDLE_S ?? 300);

const rssMiB = (pid: number | undefined) => {
  if (!pid) return Number.NaN;
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1] ?? 0) / 1024;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Target {
  url: string;
  key: string;
}

async function upload(t: Target, name: string, body: Buffer): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${t.url}/storage/v1/object/bench/${name}`, {
    method: 'POST',
    headers: {
      apikey: t.key,
      authorization: `Bearer ${t.key}`,
      'content-type': 'application/octet-stream',
      'x-upsert': 'true',
    },
    body,
  });
  if (!res.ok) throw new Error(`upload to ${t.url}: ${res.status} ${await res.text()}`);
  return SIZE / MiB / ((performance.now() - t0) / 1000);
}

async function download(t: Target, name: string, sha256: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${t.url}/storage/v1/object/authenticated/bench/${name}`, {
    headers: { apikey: t.key, authorization: `Bearer ${t.key}` },
  });
  if (!res.ok || !res.body) throw new Error(`download from ${t.url}: ${res.status}`);
  const hash = createHash('sha256');
  for await (const chunk of res.body) hash.update(chunk);
  const mibs = SIZE / MiB / ((performance.now() - t0) / 1000);
  if (hash.digest('hex') !== sha256) throw new Error(`download from ${t.url}: other bytes`);
  return mibs;
}

async function makeBucket(t: Target) {
  const res = await fetch(`${t.url}/storage/v1/bucket`, {
    method: 'POST',
    headers: {
      apikey: t.key,
      authorization: `Bearer ${t.key}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ id: 'bench', name: 'bench' }),
  });
  if (!res.ok) throw new Error(`bucket on ${t.url}: ${res.status} ${await res.text()}`);
}

/** RSS of each replica every 30 s for IDLE_S seconds, printed as it goes. */
async function idle(label: string, replicas: Replica[]) {
  const first = replicas.map((r) => rssMiB(r.child?.pid));
  console.log(`  ${label}, t=0 s: ${first.map((m) => m.toFixed(0)).join(' / ')} MiB`);
  let last = first;
  for (let t = 30; t <= IDLE_S; t += 30) {
    await sleep(30_000);
    last = replicas.map((r) => rssMiB(r.child?.pid));
    console.log(`  ${label}, t=${t} s: ${last.map((m) => m.toFixed(0)).join(' / ')} MiB`);
  }
  const growth = last.map((m, i) => m - (first[i] ?? 0));
  console.log(
    `  ${label}: change over ${IDLE_S} s ${growth.map((g) => `${g >= 0 ? '+' : ''}${g.toFixed(1)}`).join(' / ')} MiB`,
  );
}

export default async function main(): Promise<void> {
  const missing = missingBinaries({ postgres: true, ceph: true });
  if (missing.length) {
    console.log(`skipped, not installed: ${missing.join(', ')}`);
    return;
  }
  console.log(`load average ${(loadavg()[0] ?? 0).toFixed(1)}`);
  const dir = await mkdtemp(join(tmpdir(), 'cluster-bench-'));
  await writeFile(join(dir, 'config.toml'), '');
  const cluster = await startLocalCluster({
    port: 0,
    replicaPort: 0,
    webPort: null,
    project: dir,
  });
  let anchor: Replica | null = null;
  try {
    // The anchor: one replica, disk backend, its own database on the same PostgreSQL.
    const admin = postgres(cluster.databaseUrl.replace(/\/app$/, '/postgres'), { max: 1 });
    await admin.unsafe('create database anchor');
    await admin.end();
    anchor = new Replica('anchor', await freePort(), [
      ...['--database-url', cluster.databaseUrl.replace(/\/app$/, '/anchor')],
      ...['--storage-dir', join(dir, 'anchor-storage'), '--no-console'],
    ]);
    await anchor.start();
    const viaCluster = { url: cluster.url, key: cluster.serviceRoleKey };
    const viaDisk = { url: `http://127.0.0.1:${anchor.port}`, key: anchor.serviceRoleKey };
    await makeBucket(viaCluster);
    await makeBucket(viaDisk);

    console.log(`idle RSS of the replicas (${cluster.replicas.map((r) => r.name).join(' / ')}):`);
    await idle('after start', cluster.replicas);

    const body = randomBytes(SIZE);
    const sha256 = createHash('sha256').update(body).digest('hex');
    const up = { cluster: [] as number[], disk: [] as number[] };
    const down = { cluster: [] as number[], disk: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      up.cluster.push(await upload(viaCluster, `r${round}`, body));
      up.disk.push(await upload(viaDisk, `r${round}`, body));
      down.cluster.push(await download(viaCluster, `r${round}`, sha256));
      down.disk.push(await download(viaDisk, `r${round}`, sha256));
    }
    const line = (what: string, r: { cluster: number[]; disk: number[] }) => {
      const [c, d] = [median(r.cluster), median(r.disk)];
      const ratio = c / d;
      console.log(
        `${SIZE / MiB} MiB ${what}: HAProxy → 3 replicas → radosgw ${c.toFixed(0)} MiB/s, one replica on disk ${d.toFixed(0)} MiB/s: ${ratio.toFixed(2)}× (goal ≥ 0.8×, ${ratio >= 0.8 ? 'met' : 'not met'})`,
      );
    };
    line('upload', up);
    line('download', down);

    await idle('after the load', cluster.replicas);
  } finally {
    await anchor?.terminate();
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
