/**
 * `deploy/local-cluster.ts` (issue 26): three replicas with the S3 backend on radosgw, behind
 * HAProxy, against the anchor of the same run, one replica on the disk backend (the same
 * PostgreSQL, its own database), reached directly.
 *
 * - 256 MiB up (one streamed `POST /storage/v1/object`) and down (`GET`, streamed and
 *   hashed), interleaved rounds, median MiB/s; goal (issue 26): the upload ≥ 0.8× disk;
 * - the hops apart, in the same rounds: radosgw alone (the server's own S3 client sending
 *   one streamed PUT as a replica does, no replica, no HAProxy) each way, and one replica without HAProxy; and the CPU
 *   seconds each process spent per transfer (client, replicas, HAProxy, radosgw, ceph-osd):
 *   on two cores Ceph's share bounds what the replicas can reach;
 * - idle RSS of each replica (VmRSS) every 30 s for CLUSTER_IDLE_S seconds (default 300)
 *   after start, then again after the transfer rounds (the load burst): it should not grow.
 */

import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import postgres from 'postgres';
import { missingBinaries, startLocalCluster } from '../../../deploy/local-cluster';
import { S3Backend } from '../src/storage/backends/s3';
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

/**
 * One HTTP exchange with node:http: the client shares the two cores with the servers, and
 * fetch (undici, Node 20) spent 3.6 s of CPU sending a 256 MiB Buffer where node:http spends
 * 0.2 s — the client's share would have been most of the difference measured.
 */
function exchange(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: Buffer },
  onData: (chunk: Buffer) => void,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method, headers: init.headers }, (res) => {
      res.on('data', onData);
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

async function upload(t: Target, name: string, body: Buffer): Promise<number> {
  const t0 = performance.now();
  const answer: Buffer[] = [];
  const status = await exchange(
    `${t.url}/storage/v1/object/bench/${name}`,
    {
      method: 'POST',
      headers: {
        apikey: t.key,
        authorization: `Bearer ${t.key}`,
        'content-type': 'application/octet-stream',
        'content-length': String(body.length),
        'x-upsert': 'true',
      },
      body,
    },
    (chunk) => answer.push(chunk),
  );
  if (status !== 200) throw new Error(`upload to ${t.url}: ${status} ${Buffer.concat(answer)}`);
  return SIZE / MiB / ((performance.now() - t0) / 1000);
}

async function download(t: Target, name: string, sha256: string): Promise<number> {
  const t0 = performance.now();
  const hash = createHash('sha256');
  const status = await exchange(
    `${t.url}/storage/v1/object/authenticated/bench/${name}`,
    { method: 'GET', headers: { apikey: t.key, authorization: `Bearer ${t.key}` } },
    (chunk) => hash.update(chunk),
  );
  const mibs = SIZE / MiB / ((performance.now() - t0) / 1000);
  if (status !== 200) throw new Error(`download from ${t.url}: ${status}`);
  if (hash.digest('hex') !== sha256) throw new Error(`download from ${t.url}: other bytes`);
  return mibs;
}

/** MiB/s of one transfer made by `fn`. */
async function direct(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return SIZE / MiB / ((performance.now() - t0) / 1000);
}

/** A GetObject of `key` straight from radosgw, streamed and hashed. */
async function rgwGet(rgw: S3Backend, key: string, sha256: string): Promise<void> {
  const got = await rgw.client.send(
    new GetObjectCommand({ Bucket: rgw.settings.bucket, Key: key }),
  );
  const hash = createHash('sha256');
  for await (const chunk of got.Body as Readable) hash.update(chunk);
  if (hash.digest('hex') !== sha256) throw new Error('radosgw: other bytes');
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

/** CPU seconds (user + system) a process has used, 0 once it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The pids of the processes named exactly `name`. */
function pidsOf(name: string): number[] {
  const out = spawnSync('pgrep', ['-x', name], { encoding: 'utf8' }).stdout ?? '';
  return out.split('\n').filter(Boolean).map(Number);
}

/** CPU seconds each group of processes spent on one transfer, kept per path for medians. */
class CpuShare {
  readonly groups: Record<string, number[]>;
  readonly spent = new Map<string, Record<string, number[]>>();

  constructor(replicas: number[]) {
    this.groups = {
      client: [process.pid],
      replicas,
      haproxy: pidsOf('haproxy'),
      radosgw: pidsOf('radosgw'),
      'ceph-osd': pidsOf('ceph-osd'),
    };
  }

  async track<T>(path: string, fn: () => Promise<T>): Promise<T> {
    const total = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    const before = Object.entries(this.groups).map(([k, pids]) => [k, total(pids)] as const);
    const result = await fn();
    const row = this.spent.get(path) ?? {};
    for (const [k, at] of before) {
      row[k] = [...(row[k] ?? []), total(this.groups[k] ?? []) - at];
    }
    this.spent.set(path, row);
    return result;
  }

  print(): void {
    console.log(`  CPU seconds per ${SIZE / MiB} MiB (median; 2 cores):`);
    for (const [path, row] of this.spent) {
      const cells = Object.entries(row).map(([k, xs]) => `${k} ${median(xs).toFixed(2)}`);
      const sum = Object.values(row).reduce((n, xs) => n + median(xs), 0);
      console.log(`    ${path}: ${cells.join(', ')} = ${sum.toFixed(2)}`);
    }
  }
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
    // The hops apart: radosgw alone through the server's own S3 client, one streamed PUT as a
    // replica sends an upload of known length (no replica, no HAProxy), and one replica
    // reached without HAProxy.
    const hop = { rgwUp: [] as number[], rgwDown: [] as number[], oneUp: [] as number[] };
    const rgw = new S3Backend({
      bucket: cluster.s3.bucket,
      endpoint: cluster.s3.endpoint,
      region: cluster.s3.region,
      forcePathStyle: true,
      accessKeyId: cluster.s3.accessKeyId,
      secretAccessKey: cluster.s3.secretAccessKey,
    });
    const first = cluster.replicas[0];
    const viaOne = { url: `http://127.0.0.1:${first?.port}`, key: cluster.serviceRoleKey };
    const cpu = new CpuShare(
      [...cluster.replicas, anchor].map((r) => r.child?.pid ?? 0).filter((pid) => pid > 0),
    );
    for (let round = 0; round < ROUNDS; round++) {
      const key = `bench/r${round}`;
      hop.rgwUp.push(
        await cpu.track('up, straight to radosgw', () =>
          direct(() =>
            rgw.putStream(key, Readable.from([body]), SIZE, new AbortController().signal),
          ),
        ),
      );
      hop.rgwDown.push(await direct(() => rgwGet(rgw, key, sha256)));
      hop.oneUp.push(
        await cpu.track('up, one replica → radosgw', () => upload(viaOne, `one${round}`, body)),
      );
      up.cluster.push(await cpu.track('up, cluster', () => upload(viaCluster, `r${round}`, body)));
      up.disk.push(await cpu.track('up, disk', () => upload(viaDisk, `r${round}`, body)));
      down.cluster.push(
        await cpu.track('down, cluster', () => download(viaCluster, `r${round}`, sha256)),
      );
      down.disk.push(await cpu.track('down, disk', () => download(viaDisk, `r${round}`, sha256)));
    }
    rgw.client.destroy();
    const line = (what: string, r: { cluster: number[]; disk: number[] }, goal: boolean) => {
      const [c, d] = [median(r.cluster), median(r.disk)];
      const ratio = c / d;
      const verdict = goal ? `goal ≥ 0.8×, ${ratio >= 0.8 ? 'met' : 'not met'}` : 'no goal set';
      console.log(
        `${SIZE / MiB} MiB ${what}: HAProxy → 3 replicas → radosgw ${c.toFixed(0)} MiB/s, one replica on disk ${d.toFixed(0)} MiB/s: ${ratio.toFixed(2)}× (${verdict})`,
      );
    };
    line('upload', up, true);
    line('download', down, false);
    const d = median(up.disk);
    const ceiling = (what: string, xs: number[]) =>
      console.log(
        `  ${what}: ${median(xs).toFixed(0)} MiB/s = ${(median(xs) / d).toFixed(2)}× the disk upload`,
      );
    ceiling(
      "upload straight to radosgw (the server's S3 client, one streamed PUT as a replica sends it)",
      hop.rgwUp,
    );
    ceiling('upload to one replica → radosgw (no HAProxy)', hop.oneUp);
    console.log(
      `  download straight from radosgw: ${median(hop.rgwDown).toFixed(0)} MiB/s = ${(median(hop.rgwDown) / median(down.disk)).toFixed(2)}× the disk download`,
    );
    cpu.print();

    await idle('after the load', cluster.replicas);
  } finally {
    await anchor?.terminate();
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
