/**
 * Storage (issue: backend-server part 3), against a server in a child process:
 *  - a 256 MiB file through tus (tus-js-client, 6 MiB chunks) on loopback, MB/s, next to the
 *    same bytes through one raw upload request (goal: tus ≥ 70% of the raw upload);
 *  - server RSS growth while a 1 GiB file goes through tus (goal ≤ 64 MB);
 *  - download MB/s of the 256 MiB object.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { type IncomingMessage, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Upload } from 'tus-js-client';

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const MiB = 1024 * 1024;
const CHUNK = 6 * MiB;

async function randomFile(dir: string, name: string, size: number): Promise<string> {
  const path = join(dir, name);
  const out = createWriteStream(path);
  for (let left = size; left > 0; left -= MiB) {
    if (!out.write(randomBytes(Math.min(MiB, left)))) {
      await new Promise<void>((r) => out.once('drain', () => r()));
    }
  }
  await new Promise<void>((resolve, reject) =>
    out.end((e?: Error | null) => (e ? reject(e) : resolve())),
  );
  return path;
}

async function startChild(dataDir: string) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', cli, 'start', '--port', '0', '--data-dir', dataDir],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  const info = await new Promise<{ url: string; serviceKey: string }>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /API URL:\s+(\S+)/.exec(out)?.[1];
      const key = /service_role key:\s+(\S+)/i.exec(out)?.[1];
      if (url && key) resolve({ url, serviceKey: key });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  return { child, ...info };
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function tus(url: string, key: string, path: string, size: number, bucket: string, name: string) {
  return new Promise<void>((resolve, reject) => {
    const upload = new Upload(createReadStream(path, { highWaterMark: MiB }), {
      endpoint: `${url}/storage/v1/upload/resumable`,
      headers: { apikey: key, authorization: `Bearer ${key}` },
      chunkSize: CHUNK,
      uploadSize: size,
      uploadDataDuringCreation: true,
      retryDelays: [0, 1000],
      metadata: { bucketName: bucket, objectName: name, contentType: 'application/octet-stream' },
      onSuccess: () => resolve(),
      onError: reject,
    });
    upload.start();
  });
}

/** One raw upload request (node:http, the file piped as the body). */
function rawUpload(url: string, headers: Record<string, string>, path: string, size: number) {
  return new Promise<void>((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/octet-stream',
        'content-length': String(size),
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        res.statusCode === 200
          ? resolve()
          : reject(new Error(`raw upload: ${res.statusCode} ${Buffer.concat(chunks)}`)),
      );
    });
    req.on('error', reject);
    createReadStream(path, { highWaterMark: MiB }).pipe(req);
  });
}

/** A GET response as a Node stream. */
function get(url: string, headers: Record<string, string>) {
  return new Promise<IncomingMessage>((resolve, reject) => {
    request(url, { headers }, resolve).on('error', reject).end();
  });
}

const mbps = (bytes: number, ms: number) => bytes / MiB / (ms / 1000);

export default async function bench() {
  const dir = await mkdtemp(join(tmpdir(), 'storage-bench-'));
  const dataDir = join(dir, 'data');
  const { child, url, serviceKey } = await startChild(dataDir);
  const auth = { apikey: serviceKey, authorization: `Bearer ${serviceKey}` };
  try {
    const bucket = 'bench';
    const created = await fetch(`${url}/storage/v1/bucket`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: bucket }),
    });
    if (!created.ok) throw new Error(`create bucket: ${created.status} ${await created.text()}`);
    const size = 256 * MiB;
    const file = await randomFile(dir, 'a.bin', size);
    const idle = await rssMb(child.pid ?? 0);
    // RSS sampled all along: the peak of the whole run, and of the 1 GiB upload's window.
    let overallPeak = idle;
    let peak = 0;
    let sampling = false;
    const sampler = setInterval(() => {
      rssMb(child.pid ?? 0)
        .then((mb) => {
          overallPeak = Math.max(overallPeak, mb);
          if (sampling) peak = Math.max(peak, mb);
        })
        .catch(() => {});
    }, 50);
    sampler.unref();

    const runs: { tus: number; raw: number }[] = [];
    for (let i = 0; i < 4; i++) {
      let t = performance.now();
      await tus(url, serviceKey, file, size, bucket, `tus-${i}.bin`);
      const tusMs = performance.now() - t;
      t = performance.now();
      await rawUpload(`${url}/storage/v1/object/${bucket}/raw-${i}.bin`, auth, file, size);
      runs.push({ tus: mbps(size, tusMs), raw: mbps(size, performance.now() - t) });
    }
    // The first run warms both paths up; the best of the rest is compared (shared machine).
    const measured = runs.slice(1);
    const best = {
      tus: Math.max(...measured.map((r) => r.tus)),
      raw: Math.max(...measured.map((r) => r.raw)),
    };
    const ratio = best.tus / best.raw;
    console.log(
      `256 MiB upload, best of 3 after a warm-up: tus (tus-js-client, 6 MiB chunks) ${best.tus.toFixed(0)} MB/s; one raw upload request ${best.raw.toFixed(0)} MB/s (tus/raw per run: ${runs.map((r) => `${r.tus.toFixed(0)}/${r.raw.toFixed(0)}`).join(', ')})`,
    );
    console.log(
      `  tus / raw = ${(ratio * 100).toFixed(0)}% (goal ≥ 70%: ${ratio >= 0.7 ? 'met' : 'NOT met'})`,
    );

    const t = performance.now();
    const down = await get(`${url}/storage/v1/object/${bucket}/raw-0.bin`, auth);
    const hash = createHash('sha256');
    let got = 0;
    for await (const chunk of down) {
      got += (chunk as Buffer).byteLength;
      hash.update(chunk as Buffer);
    }
    const downMs = performance.now() - t;
    const want = createHash('sha256');
    for await (const chunk of createReadStream(file)) want.update(chunk as Buffer);
    const same = hash.digest('hex') === want.digest('hex') && got === size;
    console.log(
      `256 MiB download (streamed, sha256 ${same ? 'matches' : 'DIFFERS'}): ${mbps(got, downMs).toFixed(0)} MB/s`,
    );

    const bigSize = 1024 * MiB;
    const big = await randomFile(dir, 'big.bin', bigSize);
    await new Promise((r) => setTimeout(r, 1000));
    const baseline = await rssMb(child.pid ?? 0);
    peak = baseline;
    sampling = true;
    const bigStart = performance.now();
    await tus(url, serviceKey, big, bigSize, bucket, 'big.bin');
    const bigMs = performance.now() - bigStart;
    sampling = false;
    clearInterval(sampler);
    const growth = peak - baseline;
    console.log(
      `1 GiB tus upload: ${mbps(bigSize, bigMs).toFixed(0)} MB/s; server RSS ${baseline.toFixed(0)} → peak ${peak.toFixed(0)} MB, growth ${growth.toFixed(0)} MB (goal ≤ 64 MB: ${growth <= 64 ? 'met' : 'NOT met'})`,
    );
    console.log(
      `  server RSS idle before any upload ${idle.toFixed(0)} MB; peak over the whole run ${overallPeak.toFixed(0)} MB (${(overallPeak - idle).toFixed(0)} MB above idle, 3 GiB uploaded and 256 MiB downloaded)`,
    );
  } finally {
    child.kill('SIGINT');
    await new Promise((r) => child.once('exit', r));
    await rm(dir, { recursive: true, force: true });
  }
}
