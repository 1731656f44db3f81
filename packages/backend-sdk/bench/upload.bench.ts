/**
 * Resumable upload throughput and memory, against a real server in a child process:
 *  - a 256 MiB file with this SDK and with tus-js-client 4 (the anchor), both 6 MiB chunks,
 *    creation-with-upload, same server, in alternating order (ours first in odd rounds,
 *    tus-js-client first in even ones), `BENCH_ROUNDS` rounds (default 4) — goal: ours ≥
 *    1.25× tus-js-client's MB/s. Each round prints both rates and their ratio; the summary
 *    gives the median and the best of the per-round ratios, with the load average;
 *  - this SDK's peak RSS growth while uploading a 1 GiB file, measured in a child process —
 *    goal: ≤ 3 × the chunk size.
 *
 * Both clients upload the same file from disk, as the kind of source each reads ranges of:
 * this SDK gets the file path; tus-js-client gets `fs.createReadStream(path)`, which it
 * recognises as a file (it has a `path`) and reads each chunk's range from the file again —
 * the same random-access source, not a one-pass stream. Both run in this process, one at a
 * time; the CPU time each spends is printed next to its rate (the server's is not counted).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
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
  // On disk before the first upload, so its write-back does not slow whichever client runs first.
  await handle.sync();
  await handle.close();
}

/** Wall-clock seconds and CPU milliseconds (this process) of one upload. */
interface Run {
  seconds: number;
  cpu: number;
}

async function timed(upload: () => Promise<void>): Promise<Run> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  await upload();
  const used = process.cpuUsage(cpu);
  return { seconds: (performance.now() - started) / 1000, cpu: (used.user + used.system) / 1000 };
}

function ours(backend: Backend, file: string, name: string): Promise<Run> {
  const storage = new StorageClient(createHttp({ url: backend.url, key: backend.serviceRoleKey }));
  return timed(async () => {
    const { error } = await storage.from('bench').uploadResumable(name, file, { urlStore: false })
      .result;
    if (error) throw error;
  });
}

function official(backend: Backend, file: string, name: string, size: number): Promise<Run> {
  return timed(
    () =>
      new Promise<void>((resolve, reject) => {
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
          metadata: {
            bucketName: 'bench',
            objectName: name,
            contentType: 'application/octet-stream',
          },
          onError: reject,
          onSuccess: () => resolve(),
        });
        upload.start();
      }),
  );
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(', ');

export default async function bench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'sdk-upload-bench-'));
  const { backend, stop } = await startBackend();
  try {
    const size = 256 * MiB;
    const file = join(dir, 'f256.bin');
    await makeFile(file, size);
    // Warm-up, not measured: one whole upload with each client. The first large upload the
    // server takes runs its first ~10 chunks several times slower than the rest (a 16 MiB
    // warm-up was not enough), which would land on whichever client goes first in round 1.
    await ours(backend, file, 'warm/ours');
    await official(backend, file, 'warm/tus', size);

    const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
    console.log(
      `256 MiB upload from a file, ${DEFAULT_CHUNK_SIZE / MiB} MiB chunks, server in a child process, ${rounds} rounds in alternating order; load average ${load()}`,
    );
    const rate = (run: Run) => size / MiB / run.seconds;
    const results = { ours: [] as number[], tus: [] as number[], ratio: [] as number[] };
    for (let round = 1; round <= rounds; round++) {
      let a: Run;
      let b: Run;
      if (round % 2) {
        a = await ours(backend, file, `ours/${round}`);
        b = await official(backend, file, `tus/${round}`, size);
      } else {
        b = await official(backend, file, `tus/${round}`, size);
        a = await ours(backend, file, `ours/${round}`);
      }
      results.ours.push(rate(a));
      results.tus.push(rate(b));
      results.ratio.push(rate(a) / rate(b));
      console.log(
        `round ${round} (${round % 2 ? 'ours first' : 'tus-js-client first'}): @app/backend-sdk ${rate(a).toFixed(1)} MB/s (${a.cpu.toFixed(0)} ms CPU)  |  tus-js-client 4 (anchor) ${rate(b).toFixed(1)} MB/s (${b.cpu.toFixed(0)} ms CPU)  →  ${(rate(a) / rate(b)).toFixed(2)}×`,
      );
    }
    const best = (xs: number[]) => Math.max(...xs);
    console.log(
      `median: ours ${median(results.ours).toFixed(1)} MB/s vs tus-js-client ${median(results.tus).toFixed(1)} MB/s; per-round ratio median ${median(results.ratio).toFixed(2)}×, best ${best(results.ratio).toFixed(2)}× (goal ≥ 1.25×); load average ${load()}`,
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
    const { growth, seconds } = JSON.parse(out) as {
      growth: Record<'rss' | 'heapTotal' | 'external' | 'arrayBuffers', number>;
      seconds: number;
    };
    const mib = (bytes: number) => (bytes / MiB).toFixed(1);
    console.log(
      `1 GiB upload in a child process: ${(bigSize / MiB / seconds).toFixed(1)} MB/s, peak RSS growth ${mib(growth.rss)} MiB = ${(growth.rss / DEFAULT_CHUNK_SIZE).toFixed(2)} × chunk (goal ≤ 3 × ${DEFAULT_CHUNK_SIZE / MiB} MiB = ${(3 * DEFAULT_CHUNK_SIZE) / MiB} MiB); peak growth of the JS heap ${mib(growth.heapTotal)} MiB, external ${mib(growth.external)} MiB, of which ArrayBuffers ${mib(growth.arrayBuffers)} MiB; load average ${load()}`,
    );
  } finally {
    await stop();
    await rm(dir, { recursive: true, force: true });
  }
}
