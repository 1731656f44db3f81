/**
 * Resumable upload throughput and memory, against a real server in a child process:
 *  - a 256 MiB file with this SDK and with tus-js-client 4 (the anchor), both 6 MiB chunks,
 *    same server, alternating, two rounds each — goal: ours ≥ 1.25× tus-js-client's MB/s;
 *  - this SDK's peak RSS growth while uploading a 1 GiB file, measured in a child process —
 *    goal: ≤ 3 × the chunk size.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as tus from 'tus-js-client';
import { createHttp } from '../src/http/index';
import { StorageClient } from '../src/storage/index';
import { DEFAULT_CHUNK_SIZE } from '../src/tus/index';

const MiB = 1024 * 1024;
const here = fileURLToPath(new URL('.', import.meta.url));

interface Backend {
  url: string;
  anonKey: string;
  serviceRoleKey: string;
}

/** Runs a TypeScript file with tsx in a child process. */
const tsx = (file: string, args: string[] = []): ChildProcess =>
  spawn(process.execPath, ['--import', 'tsx', join(here, file), ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
    cwd: join(here, '..'),
  });

async function startBackend(): Promise<{ backend: Backend; stop: () => Promise<void> }> {
  const child = tsx('upload-server.ts');
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return {
    backend: JSON.parse(line) as Backend,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.stdin?.end();
      }),
  };
}

/** A file of `size` pseudo-random bytes (written in 8 MiB blocks). */
async function makeFile(path: string, size: number): Promise<void> {
  const handle = await open(path, 'w');
  const block = new Uint8Array(8 * MiB);
  let x = 2463534242;
  for (let i = 0; i < block.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    block[i] = x & 0xff;
  }
  for (let at = 0; at < size; at += block.length) {
    block[0] = (at / block.length) & 0xff; // no two blocks alike
    await handle.write(block, 0, Math.min(block.length, size - at));
  }
  await handle.close();
}

async function ours(backend: Backend, file: string, name: string): Promise<number> {
  const storage = new StorageClient(createHttp({ url: backend.url, key: backend.serviceRoleKey }));
  const started = performance.now();
  const { error } = await storage.from('bench').uploadResumable(name, file, { urlStore: false })
    .result;
  if (error) throw error;
  return (performance.now() - started) / 1000;
}

async function official(
  backend: Backend,
  file: string,
  name: string,
  size: number,
): Promise<number> {
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const upload = new tus.Upload(createReadStream(file), {
      endpoint: `${backend.url}/storage/v1/upload/resumable`,
      chunkSize: DEFAULT_CHUNK_SIZE,
      uploadSize: size,
      uploadDataDuringCreation: true,
      removeFingerprintOnSuccess: true,
      headers: {
        apikey: backend.serviceRoleKey,
        authorization: `Bearer ${backend.serviceRoleKey}`,
      },
      metadata: { bucketName: 'bench', objectName: name, contentType: 'application/octet-stream' },
      onError: reject,
      onSuccess: () => resolve(),
    });
    upload.start();
  });
  return (performance.now() - started) / 1000;
}

export default async function bench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'sdk-upload-bench-'));
  const { backend, stop } = await startBackend();
  try {
    const size = 256 * MiB;
    const file = join(dir, 'f256.bin');
    await makeFile(file, size);
    // Warm-up of both clients and of the server's code paths (16 MiB each).
    const warm = join(dir, 'warm.bin');
    await makeFile(warm, 16 * MiB);
    await ours(backend, warm, 'warm/ours');
    await official(backend, warm, 'warm/tus', 16 * MiB);

    console.log(
      `256 MiB upload, ${DEFAULT_CHUNK_SIZE / MiB} MiB chunks, server in a child process`,
    );
    const rate = (s: number) => size / MiB / s;
    const results = { ours: [] as number[], tus: [] as number[] };
    for (let round = 1; round <= 2; round++) {
      const a = await ours(backend, file, `ours/${round}`);
      const b = await official(backend, file, `tus/${round}`, size);
      results.ours.push(rate(a));
      results.tus.push(rate(b));
      console.log(
        `round ${round}: @app/backend-sdk ${rate(a).toFixed(1)} MB/s  |  tus-js-client 4 (anchor) ${rate(b).toFixed(1)} MB/s`,
      );
    }
    const best = (xs: number[]) => Math.max(...xs);
    const ratio = best(results.ours) / best(results.tus);
    console.log(
      `best: ours ${best(results.ours).toFixed(1)} MB/s vs tus-js-client ${best(results.tus).toFixed(1)} MB/s → ${ratio.toFixed(2)}× (goal ≥ 1.25×)`,
    );
    await rm(file);

    const big = join(dir, 'f1g.bin');
    const bigSize = 1024 * MiB;
    await makeFile(big, bigSize);
    const child = tsx('upload-rss.ts', [backend.url, backend.serviceRoleKey, big, String(bigSize)]);
    let out = '';
    child.stdout?.on('data', (d) => {
      out += d;
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`rss child exited with ${code}`);
    const { baseline, peak, seconds } = JSON.parse(out) as {
      baseline: number;
      peak: number;
      seconds: number;
    };
    const growth = (peak - baseline) / MiB;
    console.log(
      `1 GiB upload in a child process: ${(bigSize / MiB / seconds).toFixed(1)} MB/s, peak RSS growth ${growth.toFixed(1)} MiB = ${(growth / (DEFAULT_CHUNK_SIZE / MiB)).toFixed(2)} × chunk (goal ≤ 3 × ${DEFAULT_CHUNK_SIZE / MiB} MiB = ${(3 * DEFAULT_CHUNK_SIZE) / MiB} MiB)`,
    );
  } finally {
    await stop();
    await rm(dir, { recursive: true, force: true });
  }
}
