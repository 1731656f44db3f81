import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, utimes, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { Upload } from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server';
import { databaseKind } from '../support/server';
import {
  client,
  headers,
  mintUser,
  policiesDir,
  sha256,
  type TestUser,
  uniqueBucket,
} from './support';
import { CHUNK, MemoryUrlStorage, startTus } from './tus-support';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * One server over a data dir (and, in the postgres project, one database) that survives
 * restarts: the same port, files and database each time.
 */
describe(`storage durability across restarts (${databaseKind()})`, () => {
  let dataDir: string;
  let migrationsDir: string;
  let port: number;
  let databaseUrl: string | undefined;
  let dropDatabase = async () => {};
  let server: RunningServer;
  let alice: TestUser;
  let bucket: string;
  const storageDir = () => join(dataDir, 'storage');
  const start = async () => {
    server = await startServer({
      port,
      dataDir,
      migrationsDir,
      ...(databaseUrl ? { databaseUrl } : {}),
    });
    alice ??= await mintUser(server);
  };
  const restart = async () => {
    await server.stop();
    await start();
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'storage-data-'));
    migrationsDir = await policiesDir();
    port = await freePort();
    const adminUrl = inject('postgresAdminUrl');
    if (adminUrl) {
      const name = `test_${randomBytes(6).toString('hex')}`;
      const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await admin.unsafe(`create database ${name}`);
      await admin.end();
      databaseUrl = adminUrl.replace(/\/postgres$/, `/${name}`);
      dropDatabase = async () => {
        const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
        await sql.unsafe(`drop database if exists ${name} with (force)`);
        await sql.end();
      };
    }
    await start();
    bucket = uniqueBucket('durable');
    await client(server, 'service').storage.createBucket(bucket, { public: false });
  });
  afterAll(async () => {
    await server?.stop();
    await dropDatabase();
  });

  it('stores bytes by version id only, never under the key', async () => {
    const name = `${alice.id}/deep/../looking/name.txt`.replace('/../', '/');
    await client(server, alice).storage.from(bucket).upload(name, 'by id');
    const { rows } = await server.db.query<{ version: string }>(
      'select version from storage.objects where bucket_id = $1 and name = $2',
      [bucket, name],
    );
    const version = rows[0]?.version ?? '';
    expect(version).toMatch(UUID);
    const shards = await readdir(join(storageDir(), 'objects'));
    const files = (
      await Promise.all(shards.map((s) => readdir(join(storageDir(), 'objects', s))))
    ).flat();
    expect(files).toContain(version);
    expect(files.every((f) => UUID.test(f))).toBe(true);
  });

  it('frees the bytes of rows that app SQL deletes', async () => {
    const files = client(server, alice).storage.from(bucket);
    const name = `${alice.id}/by-sql.txt`;
    await files.upload(name, 'gone soon');
    const { rows } = await server.db.query<{ version: string }>(
      'delete from storage.objects where bucket_id = $1 and name = $2 returning version',
      [bucket, name],
    );
    const version = rows[0]?.version ?? '';
    const shard = join(storageDir(), 'objects', version.slice(0, 2));
    expect(await readdir(shard)).toContain(version);
    // Any later storage write collects what was retired (a timer does too).
    await files.upload(`${alice.id}/trigger.txt`, 'x');
    await files.remove([`${alice.id}/trigger.txt`]);
    expect(await readdir(shard)).not.toContain(version);
  });

  it('never shows a half-written object, and leaves nothing of an aborted upload', async () => {
    const name = `${alice.id}/slow.bin`;
    let push!: (chunk: Uint8Array) => void;
    let fail!: (error: Error) => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        push = (chunk) => controller.enqueue(chunk);
        fail = (error) => controller.error(error);
      },
    });
    const abort = new AbortController();
    const request = fetch(`${server.url}/storage/v1/object/${bucket}/${name}`, {
      method: 'POST',
      headers: { ...headers(server, alice), 'content-type': 'application/octet-stream' },
      body,
      duplex: 'half',
      signal: abort.signal,
    } as RequestInit).catch((error: unknown) => error);
    push(randomBytes(1024 * 1024));
    for (let i = 0; i < 1500 && (await readdir(join(storageDir(), 'tmp'))).length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await readdir(join(storageDir(), 'tmp'))).toHaveLength(1);
    const files = client(server, alice).storage.from(bucket);
    expect((await files.exists(name)).data).toBe(false);
    expect((await files.list(alice.id)).data?.map((f) => f.name)).not.toContain('slow.bin');
    abort.abort();
    fail(new Error('client gave up'));
    await request;
    for (let i = 0; i < 1500 && (await readdir(join(storageDir(), 'tmp'))).length > 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await readdir(join(storageDir(), 'tmp'))).toEqual([]);
    expect((await files.exists(name)).data).toBe(false);
  });

  it('resumes an upload created before a restart from its offset', async () => {
    const data = randomBytes(3 * CHUNK + 7);
    const name = `${alice.id}/restart.bin`;
    const urlStorage = new MemoryUrlStorage();
    const options = {
      endpoint: `${server.url}/storage/v1/upload/resumable`,
      headers: headers(server, alice),
      metadata: { bucketName: bucket, objectName: name, contentType: 'application/octet-stream' },
      urlStorage,
      fingerprint: async () => `restart-${name}`,
    };
    let chunks = 0;
    let aborted: Promise<void> | null = null;
    const first = startTus(data, {
      ...options,
      onChunkComplete: () => {
        if (++chunks === 2) aborted = first.upload.abort();
      },
    });
    for (let i = 0; i < 1500 && aborted === null; i++) await new Promise((r) => setTimeout(r, 20));
    await aborted;
    await restart();
    const previous = await new Upload(data, options).findPreviousUploads();
    expect(previous).toHaveLength(1);
    const headersNow = headers(server, alice);
    const second = startTus(data, {
      ...options,
      headers: headersNow,
      uploadUrl: previous[0]?.uploadUrl ?? null,
    });
    await second.done;
    // Two chunks were kept across the restart: the client went on from there.
    expect(second.responses[0]?.method).toBe('HEAD');
    expect(second.responses[0]?.offset).toBeGreaterThanOrEqual(2 * CHUNK);
    const down = await client(server, alice).storage.from(bucket).download(name);
    expect(sha256(new Uint8Array(await (down.data as Blob).arrayBuffer()))).toBe(sha256(data));
  });

  it('sweeps orphans at startup and keeps every referenced file', async () => {
    const keep = `${alice.id}/keep.txt`;
    await client(server, alice).storage.from(bucket).upload(keep, 'kept');
    // Left by a crash 11 minutes ago: gone after the restart.
    const old = new Date(Date.now() - 11 * 60_000);
    const aged = async (path: string, body: string) => {
      await writeFile(path, body);
      await utimes(path, old, old);
      return path;
    };
    const orphan = randomUUID();
    await mkdir(join(storageDir(), 'objects', orphan.slice(0, 2)), { recursive: true });
    await aged(join(storageDir(), 'objects', orphan.slice(0, 2), orphan), 'orphan');
    const halfWritten = randomUUID();
    await aged(join(storageDir(), 'tmp', halfWritten), 'half written');
    const deadUpload = randomUUID();
    await aged(join(storageDir(), 'tus', deadUpload), 'no record');
    // Written just now (by another replica sharing the directory, say): kept.
    const fresh = randomUUID();
    await mkdir(join(storageDir(), 'objects', fresh.slice(0, 2)), { recursive: true });
    await writeFile(join(storageDir(), 'objects', fresh.slice(0, 2), fresh), 'in flight');
    const writing = randomUUID();
    await writeFile(join(storageDir(), 'tmp', writing), 'being written');
    await restart();
    const shard = await readdir(join(storageDir(), 'objects', orphan.slice(0, 2)));
    expect(shard).not.toContain(orphan);
    expect(await readdir(join(storageDir(), 'objects', fresh.slice(0, 2)))).toContain(fresh);
    expect(await readdir(join(storageDir(), 'tmp'))).toEqual([writing]);
    expect(await readdir(join(storageDir(), 'tus'))).not.toContain(deadUpload);
    const down = await client(server, alice).storage.from(bucket).download(keep);
    expect(await down.data?.text()).toBe('kept');
    const { rows } = await server.db.query<{ n: string }>(
      'select count(*)::text as n from storage.objects',
    );
    expect(Number(rows[0]?.n)).toBeGreaterThanOrEqual(3);
  });
});
