/**
 * The S3 protocol (`/storage/v1/s3`) against a server in a child process: PutObject and
 * GetObject through `@aws-sdk/client-s3` of 1 MiB and 64 MiB (the sizes of the goal), next to the same bytes through
 * the REST API with plain fetch (upload with `x-upsert`, authenticated download) in the same
 * run. Median of interleaved rounds; goal: S3 ≥ 0.9× REST.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateBucketCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const MiB = 1024 * 1024;

interface Child {
  stop(): void;
  url: string;
  serviceKey: string;
  s3: { url: string; key: string; secret: string; region: string };
}

/** The CLI's `start`, its URLs and keys read from the printed summary. */
async function startChild(dataDir: string): Promise<Child> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', cli, 'start', '--port', '0', '--data-dir', dataDir],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  const field = (name: string) => new RegExp(`${name}:\\s+(\\S+)`).exec(out)?.[1];
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (field('S3 region')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  return {
    stop: () => child.kill('SIGINT'),
    url: field('API URL') ?? '',
    serviceKey: field('service_role key') ?? '',
    s3: {
      url: field('S3 URL') ?? '',
      key: field('S3 access key') ?? '',
      secret: field('S3 secret key') ?? '',
      region: field('S3 region') ?? '',
    },
  };
}

/** A presigned GetObject URL, signed by the SDK's own signer (as s3-request-presigner does). */
async function presignedGet(s3: S3Client, endpoint: string, key: string): Promise<string> {
  const url = new URL(`${endpoint}/bench/${key}`);
  const getSigner = s3.config.signer as unknown as () => Promise<{
    presign(r: unknown, o: unknown): Promise<{ query: Record<string, string> }>;
  }>;
  const signed = await (await getSigner()).presign(
    {
      method: 'GET',
      protocol: url.protocol,
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      query: {},
      headers: { host: url.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
    },
    { expiresIn: 3600 },
  );
  return `${url.href}?${new URLSearchParams(signed.query).toString().replace(/\+/g, '%20')}`;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/**
 * The time of one call. A request written on a kept-alive connection the server closed
 * meanwhile (its 5 s idle timeout, on a loaded machine) fails with EPIPE/ECONNRESET before
 * anything was done: it is sent again and timed anew.
 */
async function timed(fn: () => Promise<void>): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const start = performance.now();
    try {
      await fn();
      return performance.now() - start;
    } catch (error) {
      const code = (error as { cause?: { code?: string } }).cause?.code;
      if (attempt > 0 || (code !== 'EPIPE' && code !== 'ECONNRESET')) throw error;
    }
  }
}

export default async function bench() {
  const dir = await mkdtemp(join(tmpdir(), 's3-bench-'));
  const server = await startChild(join(dir, 'data'));
  const auth = { apikey: server.serviceKey, authorization: `Bearer ${server.serviceKey}` };
  const s3 = new S3Client({
    endpoint: server.s3.url,
    region: server.s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.s3.key, secretAccessKey: server.s3.secret },
  });
  try {
    await s3.send(new CreateBucketCommand({ Bucket: 'bench' }));
    console.log(
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} (cores: 2)`,
    );
    for (const [size, rounds] of [
      [MiB, 15],
      [64 * MiB, 5],
    ] as const) {
      const body = randomBytes(size);
      // The same GetObject as a presigned URL read with fetch: the server's S3 path with the
      // REST client's HTTP stack, so the SDK's own cost shows apart from the server's.
      const presigned = await presignedGet(s3, server.s3.url, `s3-${size}`);
      const t = {
        presignedGet: [] as number[],
        restPut: [] as number[],
        s3Put: [] as number[],
        restGet: [] as number[],
        s3Get: [] as number[],
      };
      const restUrl = `${server.url}/storage/v1/object/bench/rest-${size}`;
      for (let i = 0; i < rounds; i++) {
        t.restPut.push(
          await timed(async () => {
            const res = await fetch(restUrl, {
              method: 'POST',
              headers: { ...auth, 'x-upsert': 'true', 'content-type': 'application/octet-stream' },
              body,
            });
            if (!res.ok) throw new Error(`REST upload ${res.status}: ${await res.text()}`);
          }),
        );
        t.s3Put.push(
          await timed(async () => {
            await s3.send(new PutObjectCommand({ Bucket: 'bench', Key: `s3-${size}`, Body: body }));
          }),
        );
        t.restGet.push(
          await timed(async () => {
            const res = await fetch(restUrl, { headers: auth });
            if ((await res.arrayBuffer()).byteLength !== size) throw new Error('short download');
          }),
        );
        t.presignedGet.push(
          await timed(async () => {
            const res = await fetch(presigned);
            if ((await res.arrayBuffer()).byteLength !== size) throw new Error('short presigned');
          }),
        );
        t.s3Get.push(
          await timed(async () => {
            const got = await s3.send(new GetObjectCommand({ Bucket: 'bench', Key: `s3-${size}` }));
            const bytes = await got.Body?.transformToByteArray();
            if (bytes?.byteLength !== size) throw new Error('short S3 download');
          }),
        );
      }
      const mb = size / MiB;
      const rate = (ms: number) => `${(mb / (ms / 1000)).toFixed(0)} MB/s`;
      const line = (op: string, s3ms: number, restMs: number) =>
        console.log(
          `${String(mb).padStart(2)} MiB ${op}: S3 ${s3ms.toFixed(1)} ms (${rate(s3ms)}), REST ${restMs.toFixed(1)} ms (${rate(restMs)}) → S3 = ${(restMs / s3ms).toFixed(2)}× REST (goal ≥ 0.9)`,
        );
      line('put', median(t.s3Put), median(t.restPut));
      line('get', median(t.s3Get), median(t.restGet));
      line('get (presigned URL, fetch)', median(t.presignedGet), median(t.restGet));
    }
    console.log(
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    s3.destroy();
    server.stop();
    await new Promise((r) => setTimeout(r, 500));
    await rm(dir, { recursive: true, force: true });
  }
}
