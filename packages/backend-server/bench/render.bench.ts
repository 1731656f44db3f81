/**
 * Image transformations (issue 14): a 200×200 thumbnail of a 12-megapixel JPEG through
 * `/storage/v1/render/image/authenticated/…` on PGlite.
 *  - cold (no cached variant: each request renders a fresh object of the same bytes), next
 *    to sharp called directly in this process on the same bytes with the same work
 *    (resize 200×200 cover, JPEG q80), requests and direct calls alternating
 *    (goal: cold ≤ 1.2× direct sharp);
 *  - cached (the variant on disk), 32 autocannon clients in a child process, as a signed-in
 *    user under RLS and from a public bucket (goal ≥ 2,000 req/s on PGlite), next to a plain
 *    download of the same thumbnail-sized object as the anchor of the storage path itself,
 *    and the object lookup a render runs (RLS, one read-only round trip) called in-process.
 * Every line carries the load average.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import sharp from 'sharp';
import { type RunningServer, startServer } from '../src/server';
import { findAsCaller } from '../src/storage/objects';

const AUTOCANNON = fileURLToPath(new URL('../node_modules/.bin/autocannon', import.meta.url));
const COLD_RUNS = 25;
const SECONDS = 4;
const ROUNDS = 3;

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

function migrations(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-render-'));
  writeFileSync(
    join(dir, '0001_render.sql'),
    `insert into storage.buckets (id, name, public) values ('photos', 'photos', false), ('open', 'open', true);
     create policy "own photos" on storage.objects for select to authenticated
       using (bucket_id = 'photos' and (storage.foldername(name))[1] = (select auth.uid()::text));`,
  );
  return dir;
}

/** A 4000×3000 photo-like JPEG (smooth noise, ~3–4 MB), made here with sharp. */
async function photo(): Promise<Buffer> {
  const base = await sharp({
    create: {
      width: 4000,
      height: 3000,
      channels: 3,
      background: { r: 90, g: 130, b: 170 },
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .blur(1.2)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return sharp(base.data, { raw: base.info }).jpeg({ quality: 85 }).toBuffer();
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  count: number;
  seconds: number;
}

function autocannon(url: string, headers: Record<string, string>): Promise<Load> {
  const args = ['-c', '32', '-d', String(SECONDS), '-j'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    execFile(AUTOCANNON, args, { maxBuffer: 1 << 24 }, (error, stdout) => {
      if (error) return reject(error);
      const r = JSON.parse(stdout) as {
        requests: { total: number };
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
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.floor(q * (latencies.length - 1))] ?? 0;
  return {
    count: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    non2xx: 0,
  };
}

const fmt = (l: Load) =>
  `${l.rps.toFixed(0).padStart(6)} req/s  p50 ${l.p50.toFixed(2)} ms  p99 ${l.p99.toFixed(2)} ms${l.non2xx ? `  (${l.non2xx} non-2xx!)` : ''}`;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};

async function upload(
  server: RunningServer,
  bucket: string,
  path: string,
  bytes: Buffer,
): Promise<void> {
  const res = await fetch(`${server.url}/storage/v1/object/${bucket}/${path}`, {
    method: 'POST',
    headers: {
      apikey: server.serviceRoleKey,
      authorization: `Bearer ${server.serviceRoleKey}`,
      'content-type': 'image/jpeg',
      'x-upsert': 'true',
    },
    body: new Uint8Array(bytes),
  });
  if (!res.ok) throw new Error(`upload ${path}: ${res.status} ${await res.text()}`);
}

export default async function bench() {
  const server = await startServer({ port: 0, migrationsDir: migrations() });
  try {
    const userId = randomUUID();
    const token = await new SignJWT({ sub: userId, role: 'authenticated', aud: 'authenticated' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(server.jwtSecret));
    const auth = { apikey: server.anonKey, authorization: `Bearer ${token}` };
    const bytes = await photo();
    const meta = await sharp(bytes).metadata();
    console.log(
      `source: ${meta.width}×${meta.height} JPEG, ${(bytes.length / 1e6).toFixed(2)} MB (load average ${load()})`,
    );
    for (let i = 0; i < COLD_RUNS + 1; i++) {
      await upload(server, 'photos', `${userId}/cold-${i}.jpg`, bytes);
    }
    const renderUrl = (path: string) =>
      `${server.url}/storage/v1/render/image/authenticated/photos/${path}?width=200&height=200`;
    const direct = () =>
      sharp(bytes)
        .resize({ width: 200, height: 200, fit: 'cover' })
        .jpeg({ quality: 80 })
        .toBuffer();

    // Warm up: sharp loaded, one render each way.
    await direct();
    const warm = await fetch(renderUrl(`${userId}/cold-${COLD_RUNS}.jpg`), { headers: auth });
    if (warm.status !== 200) throw new Error(`render: ${warm.status} ${await warm.text()}`);
    await warm.arrayBuffer();

    // Wall time and CPU time (all threads of this process: HTTP, PGlite, libvips) of each.
    const cold: number[] = [];
    const coldCpu: number[] = [];
    const sharpMs: number[] = [];
    const sharpCpu: number[] = [];
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const u = process.cpuUsage(since);
      return (u.user + u.system) / 1000;
    };
    for (let i = 0; i < COLD_RUNS; i++) {
      let cpu = process.cpuUsage();
      let t = performance.now();
      const res = await fetch(renderUrl(`${userId}/cold-${i}.jpg`), { headers: auth });
      const out = Buffer.from(await res.arrayBuffer());
      cold.push(performance.now() - t);
      coldCpu.push(cpuMs(cpu));
      if (res.status !== 200 || res.headers.get('content-type') !== 'image/jpeg') {
        throw new Error(`cold render ${i}: ${res.status}`);
      }
      if (i === 0) {
        const m = await sharp(out).metadata();
        if (m.width !== 200 || m.height !== 200) throw new Error('not a 200×200 thumbnail');
      }
      cpu = process.cpuUsage();
      t = performance.now();
      await direct();
      sharpMs.push(performance.now() - t);
      sharpCpu.push(cpuMs(cpu));
    }
    const ratio = (a: number[], b: number[], pick: (xs: number[]) => number) =>
      `${pick(a).toFixed(1)} ms vs ${pick(b).toFixed(1)} ms → ${(pick(a) / pick(b)).toFixed(2)}×`;
    const best = (xs: number[]) => Math.min(...xs);
    console.log(
      `cold 200×200 thumbnail, render endpoint vs sharp direct (goal ≤ 1.2×), ${COLD_RUNS} alternating runs (load average ${load()})`,
    );
    console.log(`  wall time, median  ${ratio(cold, sharpMs, median)}`);
    console.log(`  wall time, best    ${ratio(cold, sharpMs, best)}`);
    console.log(`  CPU time, median   ${ratio(coldCpu, sharpCpu, median)}`);

    // Cached: the variant of cold-0 is on disk now.
    const thumb = await direct();
    await upload(server, 'photos', `${userId}/thumb.jpg`, thumb);
    await upload(server, 'open', 'photo.jpg', bytes);
    const publicUrl = `${server.url}/storage/v1/render/image/public/open/photo.jpg?width=200&height=200`;
    await fetch(publicUrl).then((r) => r.arrayBuffer());
    const cachedUrl = renderUrl(`${userId}/cold-0.jpg`);
    const downloadUrl = `${server.url}/storage/v1/object/authenticated/photos/${userId}/thumb.jpg`;
    await autocannon(cachedUrl, auth); // warm up
    // The baseline: the object lookup the render runs (the caller's role and claims and the
    // statement in one read-only round trip), called in-process.
    const claims = { sub: userId, role: 'authenticated', aud: 'authenticated' };
    // The headers autocannon sends, which the server passes on as `request.headers`.
    const sent = { host: new URL(server.url).host, connection: 'keep-alive', ...auth };
    const ctx = { role: 'authenticated', claims, method: 'GET', path: '/render', headers: sent };
    const caller = { ctx, owner: userId, role: 'authenticated' };
    const slices: Load[][] = [[], [], [], []];
    for (let round = 0; round < ROUNDS; round++) {
      slices[0]?.push(await autocannon(cachedUrl, auth));
      slices[1]?.push(await autocannon(publicUrl, {}));
      slices[2]?.push(await autocannon(downloadUrl, auth));
      slices[3]?.push(
        await inProcess(() => findAsCaller(server.db, caller, 'photos', `${userId}/cold-0.jpg`)),
      );
    }
    const [authed, open, download, baseline] = slices.map(merge) as [Load, Load, Load, Load];
    console.log(`cached 200×200 thumbnail, 32 clients, PGlite (load average ${load()})`);
    console.log(`  render, signed-in user under RLS   ${fmt(authed)}`);
    console.log(`  render, public bucket              ${fmt(open)}`);
    console.log(`  plain download of a thumbnail-size object (anchor) ${fmt(download)}`);
    console.log(
      `  the RLS lookup alone, in-process   ${fmt(baseline)}  → render = ${((authed.rps / baseline.rps) * 100).toFixed(0)}%`,
    );
    console.log(
      `  goal ≥ 2,000 req/s: ${authed.rps >= 2000 ? 'met' : 'NOT met'} (RLS ${authed.rps.toFixed(0)}, public ${open.rps.toFixed(0)} req/s)`,
    );
  } finally {
    await server.stop();
  }
}
