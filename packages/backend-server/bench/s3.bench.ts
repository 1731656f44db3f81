/**
 * The S3 protocol (`/storage/v1/s3`) against a server in a child process: PutObject and
 * GetObject through `@aws-sdk/client-s3` of 1 MiB and 64 MiB (the sizes of the goal), next to
 * the same bytes through the REST API with plain fetch (upload with `x-upsert`, authenticated
 * download) in the same run. Puts and gets are timed in phases of their own (a put's fsync and
 * the removal of the version it replaced do not land in a get's time), each the median of
 * interleaved rounds; goal: S3 ≥ 0.9× REST.
 *
 * Two more lines take the client apart from the server: GetObject as a presigned URL read with
 * fetch (the server's S3 path with REST's client stack), and the AWS SDK against supabase-js's
 * `download()` (an official client on each side). A 1 KiB GetObject against the presigned read
 * of it gives the SDK's own cost per call.
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
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';

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

/** Calls in a row per client in a round of gets. */
const GET_BLOCK = 5;

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
  const supabase = createClient(server.url, server.serviceKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as never },
  });
  const sdkGet = async (key: string, size: number) => {
    const got = await s3.send(new GetObjectCommand({ Bucket: 'bench', Key: key }));
    const bytes = await got.Body?.transformToByteArray();
    if (bytes?.byteLength !== size) throw new Error('short S3 download');
  };
  const fetchGet = async (url: string, size: number, headers: Record<string, string> = {}) => {
    const res = await fetch(url, { headers });
    if ((await res.arrayBuffer()).byteLength !== size) throw new Error(`short download ${url}`);
  };
  try {
    await s3.send(new CreateBucketCommand({ Bucket: 'bench' }));
    console.log(
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} (cores: 2)`,
    );
    for (const [size, putRounds, getRounds] of [
      [1024, 0, 12],
      [MiB, 15, 8],
      [64 * MiB, 5, 1],
    ] as const) {
      const body = randomBytes(size);
      const t = {
        restPut: [] as number[],
        s3Put: [] as number[],
        restGet: [] as number[],
        supabaseGet: [] as number[],
        presignedGet: [] as number[],
        s3Get: [] as number[],
      };
      const restUrl = `${server.url}/storage/v1/object/bench/rest-${size}`;
      const restPut = () =>
        timed(async () => {
          const res = await fetch(restUrl, {
            method: 'POST',
            headers: { ...auth, 'x-upsert': 'true', 'content-type': 'application/octet-stream' },
            body,
          });
          if (!res.ok) throw new Error(`REST upload ${res.status}: ${await res.text()}`);
        });
      const s3Put = () =>
        timed(async () => {
          await s3.send(new PutObjectCommand({ Bucket: 'bench', Key: `s3-${size}`, Body: body }));
        });
      for (let i = 0; i < putRounds; i++) {
        t.restPut.push(await restPut());
        t.s3Put.push(await s3Put());
      }
      if (putRounds === 0) {
        await restPut();
        await s3Put();
      }
      // The same GetObject as a presigned URL read with fetch: the server's S3 path with the
      // REST client's HTTP stack, so the SDK's own cost shows apart from the server's.
      const presigned = await presignedGet(s3, server.s3.url, `s3-${size}`);
      // Each client reads in a block of calls of its own, the blocks interleaved: a client's
      // garbage (a 1 MiB body is collected by a full GC every few calls) is paid by its own
      // calls, not by the next client's in a one-call-each round.
      const block = async (times: number[], call: () => Promise<void>) => {
        for (let j = 0; j < GET_BLOCK; j++) times.push(await timed(call));
      };
      for (let i = 0; i < getRounds; i++) {
        await block(t.restGet, () => fetchGet(restUrl, size, auth));
        await block(t.presignedGet, () => fetchGet(presigned, size));
        await block(t.s3Get, () => sdkGet(`s3-${size}`, size));
        await block(t.supabaseGet, async () => {
          const { data, error } = await supabase.storage.from('bench').download(`rest-${size}`);
          if (error || data.size !== size) throw error ?? new Error('short supabase-js download');
        });
      }
      const label = size < MiB ? `${size / 1024} KiB` : `${size / MiB} MiB`;
      const rate = (ms: number) => `${(size / MiB / (ms / 1000)).toFixed(0)} MB/s`;
      const line = (op: string, s3ms: number, anchor: string, ms: number, goal = ' (goal ≥ 0.9)') =>
        console.log(
          `${label.padStart(6)} ${op}: S3 ${s3ms.toFixed(2)} ms (${rate(s3ms)}), ${anchor} ${ms.toFixed(2)} ms (${rate(ms)}) → S3 = ${(ms / s3ms).toFixed(2)}× ${anchor}${goal}`,
        );
      const m = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)])) as Record<
        keyof typeof t,
        number
      >;
      if (putRounds > 0) line('put', m.s3Put, 'REST', m.restPut);
      line('get (AWS SDK)', m.s3Get, 'REST', m.restGet, size < MiB ? '' : undefined);
      line('get (presigned URL, fetch)', m.presignedGet, 'REST', m.restGet, '');
      line('get (AWS SDK vs supabase-js)', m.s3Get, 'supabase-js', m.supabaseGet, '');
      if (size < MiB) {
        console.log(
          `  the AWS SDK's own cost per GetObject: ${(m.s3Get - m.presignedGet).toFixed(2)} ms (SDK − presigned fetch of 1 KiB)`,
        );
      }
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
