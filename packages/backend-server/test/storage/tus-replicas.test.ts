/**
 * tus uploads across two replicas on one PostgreSQL and one shared storage directory: an
 * upload goes on through either, one request at a time holds it (a new request takes it
 * over from a stalled one), and a replica's collector leaves the other's uploads alone.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartServerOptions } from '../../src/config/index';
import { type RunningServer, startServer } from '../../src/server';
import { parseUrlId } from '../../src/storage/tus/tus-ids';
import { createTestDatabase, databaseKind } from '../support/server';
import { until } from '../support/until';
import {
  client,
  headers,
  mintUser,
  policiesDir,
  sha256,
  type TestUser,
  uniqueBucket,
} from './support';
import { startTus } from './tus-support';

const MiB = 1024 * 1024;
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** A PATCH whose body is `first`, then nothing until `end` (or `fail`) is called. */
function stalledPatch(url: string, auth: Record<string, string>, offset: number, first: Buffer) {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      c.enqueue(new Uint8Array(first));
    },
  });
  const response = fetch(url, {
    method: 'PATCH',
    headers: {
      ...auth,
      'tus-resumable': '1.0.0',
      'upload-offset': String(offset),
      'content-type': 'application/offset+octet-stream',
    },
    body,
    duplex: 'half',
  } as RequestInit).then(
    (res) => ({ status: res.status, offset: res.headers.get('upload-offset') }),
    () => ({ status: 0, offset: null }),
  );
  return {
    response,
    end(rest?: Buffer) {
      try {
        if (rest) controller.enqueue(new Uint8Array(rest));
        controller.close();
      } catch {}
    },
  };
}

describe.skipIf(databaseKind() === 'pglite')('tus uploads across replicas', () => {
  let db: { url: string; drop: () => Promise<void> };
  let dir: string;
  let migrationsDir: string;
  const servers: RunningServer[] = [];
  let a: RunningServer;
  let b: RunningServer;
  let alice: TestUser;
  let bucket: string;

  const start = async (storage: StartServerOptions['storage'] = {}) => {
    const server = await startServer({
      port: 0,
      databaseUrl: db.url,
      migrationsDir,
      storage: { directory: dir, ...storage },
    });
    servers.push(server);
    return server;
  };
  const endpoint = (s: RunningServer) => `${s.url}/storage/v1/upload/resumable`;
  /** An upload's URL as another replica serves it. */
  const on = (s: RunningServer, url: string) => `${endpoint(s)}/${url.split('/').pop()}`;
  const tusFile = (url: string) =>
    join(dir, 'tus', parseUrlId(url.split('/').pop() ?? '')?.version ?? 'none');
  const auth = () => ({ ...headers(a, alice), 'tus-resumable': '1.0.0' });
  const create = async (s: RunningServer, name: string, length: number) => {
    const res = await fetch(endpoint(s), {
      method: 'POST',
      headers: {
        ...auth(),
        'upload-length': String(length),
        'upload-metadata': `bucketName ${b64(bucket)},objectName ${b64(name)}`,
      },
    });
    expect(res.status).toBe(201);
    return res.headers.get('location') as string;
  };
  const patch = (url: string, offset: number, body: Buffer) =>
    fetch(url, {
      method: 'PATCH',
      headers: {
        ...auth(),
        'upload-offset': String(offset),
        'content-type': 'application/offset+octet-stream',
      },
      body,
    });
  const head = (url: string) => fetch(url, { method: 'HEAD', headers: auth() });
  const download = async (s: RunningServer, name: string) => {
    const { data } = await client(s, alice).storage.from(bucket).download(name);
    return new Uint8Array((await data?.arrayBuffer()) ?? new ArrayBuffer(0));
  };

  beforeAll(async () => {
    const made = await createTestDatabase();
    if (!made) throw new Error('no PostgreSQL');
    db = made;
    dir = await mkdtemp(join(tmpdir(), 'tus-replicas-'));
    migrationsDir = await policiesDir();
    a = await start();
    b = await start();
    alice = await mintUser(a);
    bucket = uniqueBucket('replicas');
    await client(a, 'service').storage.createBucket(bucket, { public: false });
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('resumes on one replica an upload begun on the other, byte-identical', async () => {
    const data = randomBytes(3 * MiB + 4321);
    const name = `${alice.id}/replicas/resumed.bin`;
    const metadata = { bucketName: bucket, objectName: name, contentType: 'application/x-test' };
    const first = startTus(data, {
      endpoint: endpoint(a),
      headers: headers(a, alice),
      chunkSize: MiB,
      metadata,
      onAfterResponse: async (req) => {
        if (req.getMethod() === 'PATCH') void first.upload.abort();
      },
    });
    await until(async () => first.responses.some((r) => r.method === 'PATCH'));
    const url = first.upload.url as string;
    // Seen by A first: B's writes must show on A afterwards.
    expect((await head(url)).headers.get('upload-offset')).toBe(String(MiB));
    const second = startTus(data, {
      endpoint: endpoint(b),
      uploadUrl: on(b, url),
      headers: headers(b, alice),
      chunkSize: MiB,
      metadata,
    });
    await second.done;
    expect(second.responses[0]).toMatchObject({ method: 'HEAD', status: 200, offset: MiB });
    expect(second.responses.at(-1)).toMatchObject({ status: 204, complete: '1' });
    expect(sha256(await download(a, name))).toBe(sha256(data));
    // Either replica answers the finished upload as complete.
    const done = await head(url);
    expect([done.status, done.headers.get('upload-offset')]).toEqual([200, String(data.length)]);
  });

  it('lets one of two PATCHes at one offset through the two replicas write', async () => {
    const size = 3 * MiB;
    const name = `${alice.id}/replicas/raced.bin`;
    const url = await create(a, name, size);
    const [mine, theirs] = [randomBytes(size), randomBytes(size)];
    // A's request has read the offset (0) and holds the upload; one byte of its body came.
    const first = stalledPatch(url, auth(), 0, mine.subarray(0, 1));
    await until(async () => {
      const { rows } = await a.db.query<{ n: number }>(
        "select count(*)::int as n from pg_locks where locktype = 'advisory' and granted",
      );
      return (rows[0]?.n ?? 0) > 0;
    });
    // B's request at the same offset makes A's let go (with its byte written): 409.
    const second = await patch(on(b, url), 0, theirs);
    expect(second.status).toBe(409);
    // The rest of A's body comes too late: none of it is written.
    first.end(mine.subarray(1, MiB));
    await first.response;
    const offset = (await head(on(b, url))).headers.get('upload-offset');
    expect(offset).toBe('1');
    const rest = await patch(url, 1, mine.subarray(1));
    expect([rest.status, rest.headers.get('tus-complete')]).toEqual([204, '1']);
    expect(sha256(await download(b, name))).toBe(sha256(mine));
  });

  it('takes an upload over from a stalled request on the other replica', async () => {
    const data = randomBytes(3 * MiB);
    const name = `${alice.id}/replicas/stalled.bin`;
    const url = await create(a, name, data.length);
    const stalled = stalledPatch(url, auth(), 0, data.subarray(0, MiB + 1));
    await until(async () => ((await stat(tusFile(url)).catch(() => null))?.size ?? 0) >= MiB);
    // The client gives up on A and resumes on B: B's HEAD makes A's request let go.
    const resumed = startTus(data, {
      endpoint: endpoint(b),
      uploadUrl: on(b, url),
      headers: headers(b, alice),
      metadata: { bucketName: bucket, objectName: name },
    });
    await resumed.done;
    expect(resumed.responses[0]?.method).toBe('HEAD');
    expect(resumed.responses[0]?.offset).toBeGreaterThanOrEqual(MiB);
    // What A's client still sends is not written: A's request let go of the upload.
    stalled.end(randomBytes(MiB));
    await stalled.response;
    expect(sha256(await download(b, name))).toBe(sha256(data));
  });

  it('a starting replica collects expired uploads, not one in flight on another', async () => {
    // A replica whose uploads expire after 2 s, and a third that starts once they have.
    const short = await start({ uploadExpiry: 2 });
    const idle = await create(short, `${alice.id}/replicas/idle.bin`, 100);
    expect((await patch(idle, 0, Buffer.alloc(10, 1))).status).toBe(204);
    const data = randomBytes(2 * MiB);
    const busy = await create(short, `${alice.id}/replicas/busy.bin`, data.length);
    const stalled = stalledPatch(busy, auth(), 0, data.subarray(0, MiB + 1));
    await until(async () => ((await stat(tusFile(busy)).catch(() => null))?.size ?? 0) >= MiB);
    await until(async () => (await head(idle)).status === 410);
    await start({ uploadExpiry: 2 });
    await expect(stat(tusFile(idle))).rejects.toThrow();
    await expect(stat(`${tusFile(idle)}.json`)).rejects.toThrow();
    // The request in flight goes on with its upload, all of it kept.
    stalled.end(data.subarray(MiB + 1));
    expect(await stalled.response).toEqual({ status: 204, offset: String(data.length) });
    const name = `${alice.id}/replicas/busy.bin`;
    expect(sha256(await download(short, name))).toBe(sha256(data));
  });
});
