/**
 * Two servers on one PostgreSQL and one S3 bucket (radosgw), each with a storage directory of
 * its own: tus uploads live in the bucket (a multipart upload at the version's key, pending
 * bytes and records beside it), so an upload cut off on one goes on through the other, PATCH
 * by PATCH on either, is joined from parts, and is collected when it expires.
 */
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { S3StorageOptions } from '../../src/config/index';
import { type RunningServer, startServer } from '../../src/server';
import { S3Backend } from '../../src/storage/backends/s3';
import { ObjectS3Store } from '../../src/storage/tus/tus-s3-store';
import { sweepS3Tus } from '../../src/storage/tus/tus-s3-sweep';
import { createTestDatabase, databaseKind } from '../support/server';
import { freshBucket, keysIn, s3Client, s3Server } from './s3-backend-support';
import {
  client,
  headers,
  mintUser,
  policiesDir,
  sha256,
  type TestUser,
  uniqueBucket,
} from './support';
import { CHUNK, cuttingProxy, MemoryUrlStorage, startTus } from './tus-support';

const ceph = databaseKind() === 'postgres' ? await s3Server() : null;
if (ceph && !ceph.available) console.warn(`S3 backend replicas suite skipped: ${ceph.reason}`);

const MiB = 1024 * 1024;
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe.skipIf(!ceph?.available)('tus on an S3 backend across replicas (postgres)', () => {
  let db: { url: string; drop: () => Promise<void> };
  let s3: S3StorageOptions;
  let s3c: S3Client;
  const servers: RunningServer[] = [];
  let alice: TestUser;
  let bucket: string;
  const tus = (server: RunningServer, extra: Record<string, string> = {}) => ({
    ...headers(server, alice),
    'tus-resumable': '1.0.0',
    ...extra,
  });
  const metadata = (name: string) =>
    `bucketName ${b64(bucket)},objectName ${b64(name)},contentType ${b64('application/x-test')}`;
  /** Creates an upload of `size` bytes of `name` on `server`; its URL's last segment. */
  const create = async (server: RunningServer, name: string, size: number, extra = {}) => {
    const res = await fetch(`${server.url}/storage/v1/upload/resumable`, {
      method: 'POST',
      headers: tus(server, {
        'upload-length': String(size),
        'upload-metadata': metadata(name),
        ...extra,
      }),
    });
    expect(res.status).toBe(201);
    return (res.headers.get('location') as string).split('/').pop() as string;
  };
  const at = (server: RunningServer, id: string) =>
    `${server.url}/storage/v1/upload/resumable/${id}`;
  const patch = (server: RunningServer, id: string, offset: number, body: Buffer) =>
    fetch(at(server, id), {
      method: 'PATCH',
      headers: tus(server, {
        'upload-offset': String(offset),
        'content-type': 'application/offset+octet-stream',
      }),
      body,
    });
  const offsetOn = async (server: RunningServer, id: string) => {
    const res = await fetch(at(server, id), { method: 'HEAD', headers: tus(server) });
    return res.status === 200 ? Number(res.headers.get('upload-offset')) : res.status;
  };
  const download = async (server: RunningServer, name: string) => {
    const { data, error } = await client(server, alice).storage.from(bucket).download(name);
    if (error) throw error;
    return Buffer.from(await data.arrayBuffer());
  };
  const versionOf = (id: string) =>
    Buffer.from(id, 'base64url').toString('utf8').split('/').pop() as string;
  const multipartKeys = async () =>
    (await s3c.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket }))).Uploads?.map(
      (u) => u.Key,
    ) ?? [];
  /** The upload records in the bucket that are not marked done. */
  const unfinished = async () => {
    const keys = (await keysIn(s3c, s3.bucket)).filter((k) => k.startsWith('tus/'));
    const left: string[] = [];
    for (const Key of keys) {
      if (Key.endsWith('.json')) {
        const got = await s3c.send(new GetObjectCommand({ Bucket: s3.bucket, Key }));
        const record = JSON.parse((await got.Body?.transformToString()) ?? '{}');
        if (record.storage_done) continue;
      }
      left.push(Key);
    }
    return left;
  };

  beforeAll(async () => {
    if (!ceph?.available) return;
    const made = await createTestDatabase();
    if (!made) throw new Error('no PostgreSQL');
    db = made;
    s3 = await freshBucket(ceph);
    s3c = s3Client(ceph);
    const migrationsDir = await policiesDir();
    // No storage.directory: each server has a temporary one of its own.
    for (let i = 0; i < 2; i++) {
      servers.push(
        await startServer({
          port: 0,
          databaseUrl: db.url,
          migrationsDir,
          storage: { backend: 's3', s3 },
        }),
      );
    }
    alice = await mintUser(servers[0] as RunningServer);
    bucket = uniqueBucket('s3-replicas');
    await client(servers[0] as RunningServer, 'service').storage.createBucket(bucket);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db?.drop();
  });

  it('resumes on the second server an upload cut off on the first', async () => {
    const [a, b] = servers as [RunningServer, RunningServer];
    if (!ceph?.available) return;
    expect(a.storageDir).not.toBe(b.storageDir);
    const data = randomBytes(2 * CHUNK + 777);
    const name = `${alice.id}/resumed.bin`;
    const urlStorage = new MemoryUrlStorage();
    const auth = { authorization: `Bearer ${alice.token}`, apikey: a.anonKey };
    const meta = { bucketName: bucket, objectName: name, contentType: 'application/x-test' };
    // Through a proxy to the first server that cuts the connection after the first chunk.
    const proxy = await cuttingProxy(Number(new URL(a.url).port), CHUNK + 4096);
    const first = startTus(data, {
      endpoint: `${proxy.url}/storage/v1/upload/resumable`,
      headers: auth,
      metadata: meta,
      urlStorage,
      storeFingerprintForResuming: true,
      retryDelays: [],
    });
    await expect(first.done).rejects.toThrow();
    expect(proxy.wasCut()).toBe(true);
    const [previous] = await urlStorage.findAllUploads();
    expect(previous?.uploadUrl).toBeTruthy();
    await proxy.close();
    // The same client, now sent to the second server: it asks for the offset and goes on.
    const id = (previous?.uploadUrl ?? '').split('/').pop() as string;
    expect(await multipartKeys()).toContain(`objects/${versionOf(id)}`);
    const second = startTus(data, {
      uploadUrl: `${b.url}/storage/v1/upload/resumable/${id}`,
      headers: auth,
      metadata: meta,
    });
    await second.done;
    expect(second.responses[0]).toMatchObject({ method: 'HEAD', status: 200 });
    expect(second.responses[0]?.offset).toBeGreaterThanOrEqual(CHUNK);

    for (const server of [a, b]) expect(sha256(await download(server, name))).toBe(sha256(data));
    const { data: info } = await client(b, alice).storage.from(bucket).info(name);
    // The multipart upload became the version's object itself: nothing else is left.
    expect(info?.version).toBe(versionOf(id));
    expect(await keysIn(s3c, s3.bucket)).toContain(`objects/${info?.version}`);
    expect(await multipartKeys()).not.toContain(`objects/${info?.version}`);
    expect(await unfinished()).toEqual([]);
    // Neither storage directory holds any byte of it.
    for (const server of [a, b]) expect(await readdir(join(server.storageDir, 'tus'))).toEqual([]);
  }, 120_000);

  it('takes 12 MiB in 1 MiB PATCHes sent to either server in turn', async () => {
    const [a, b] = servers as [RunningServer, RunningServer];
    const data = randomBytes(12 * MiB);
    const name = `${alice.id}/pieces.bin`;
    const id = await create(a, name, data.length);
    const version = versionOf(id);
    for (let i = 0; i < 12; i++) {
      const [to, other] = i % 2 === 0 ? [a, b] : [b, a];
      const res = await patch(to, id, i * MiB, data.subarray(i * MiB, (i + 1) * MiB));
      expect(res.status).toBe(204);
      expect(await offsetOn(other, id)).toBe((i + 1) * MiB);
      if (i === 2) {
        // 3 MiB so far: too little for a part, they wait in the bucket as pending bytes.
        const pending = await s3c.send(
          new HeadObjectCommand({ Bucket: s3.bucket, Key: `tus/${version}.part` }),
        );
        expect(pending.ContentLength).toBe(3 * MiB);
      }
    }
    expect(sha256(await download(b, name))).toBe(sha256(data));
    expect(await offsetOn(b, id)).toBe(12 * MiB);
    // A PATCH at a stale offset is refused on either server, and changes nothing.
    expect((await patch(a, id, 5 * MiB, Buffer.from('x'))).status).toBe(409);
    expect(await unfinished()).toEqual([]);
  }, 120_000);

  it('takes empty uploads, deferred lengths and bytes sent with the creation', async () => {
    const [a, b] = servers as [RunningServer, RunningServer];
    await create(a, `${alice.id}/empty.bin`, 0);
    expect(await download(b, `${alice.id}/empty.bin`)).toHaveLength(0);
    // The length told with the last PATCH, on the other server.
    const data = randomBytes(2 * MiB);
    const res = await fetch(`${a.url}/storage/v1/upload/resumable`, {
      method: 'POST',
      headers: tus(a, {
        'upload-defer-length': '1',
        'upload-metadata': metadata(`${alice.id}/deferred.bin`),
      }),
    });
    expect(res.status).toBe(201);
    const id = (res.headers.get('location') as string).split('/').pop() as string;
    expect((await patch(a, id, 0, data.subarray(0, MiB))).status).toBe(204);
    const last = await fetch(at(b, id), {
      method: 'PATCH',
      headers: tus(b, {
        'upload-offset': String(MiB),
        'upload-length': String(data.length),
        'content-type': 'application/offset+octet-stream',
      }),
      body: data.subarray(MiB),
    });
    expect(last.status).toBe(204);
    expect(sha256(await download(a, `${alice.id}/deferred.bin`))).toBe(sha256(data));
    // Every byte in the POST.
    const whole = randomBytes(3000);
    const posted = await fetch(`${b.url}/storage/v1/upload/resumable`, {
      method: 'POST',
      headers: tus(b, {
        'upload-length': String(whole.length),
        'upload-metadata': metadata(`${alice.id}/posted.bin`),
        'content-type': 'application/offset+octet-stream',
      }),
      body: whole,
    });
    expect(posted.status).toBe(201);
    expect(posted.headers.get('upload-offset')).toBe('3000');
    expect(sha256(await download(a, `${alice.id}/posted.bin`))).toBe(sha256(whole));
    expect(await unfinished()).toEqual([]);
  }, 120_000);

  it('joins the parts of parallel uploads made through both servers', async () => {
    const [a, b] = servers as [RunningServer, RunningServer];
    // Two parts of 5 MiB or more: joined inside radosgw (UploadPartCopy), one S3 part each.
    const data = randomBytes(3 * CHUNK + 123);
    const name = `${alice.id}/joined.bin`;
    const meta = { bucketName: bucket, objectName: name, contentType: 'application/x-test' };
    const run = startTus(data, {
      endpoint: `${a.url}/storage/v1/upload/resumable`,
      headers: headers(a, alice),
      parallelUploads: 2,
      metadata: meta,
      metadataForPartialUploads: meta,
    });
    await run.done;
    expect(sha256(await download(b, name))).toBe(sha256(data));
    const finalKey = `objects/${versionOf(run.upload.url?.split('/').pop() as string)}`;
    const joinedHead = await s3c.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: finalKey }));
    if (process.env.S3_DEBUG) console.log(joinedHead);
    // A multipart ETag ends with its count of parts: the two partial uploads' objects. Streamed
    // through the server, the 18 MiB would be in the writer's 8 MiB parts: three of them.
    expect(joinedHead.ETag).toMatch(/-2"$/);
    expect(joinedHead.ContentLength).toBe(data.length);
    // Small parts too, one of them sent in two PATCHes through the other server.
    const [p, q] = [randomBytes(2 * MiB), randomBytes(1000)];
    const small = `${alice.id}/joined-small.bin`;
    const partial = { 'upload-concat': 'partial' };
    const first = await create(a, small, p.length, partial);
    const second = await create(b, small, q.length, partial);
    expect((await patch(a, first, 0, p.subarray(0, MiB))).status).toBe(204);
    // Not every part is complete: this server does not join unfinished parts.
    const finalOf = (server: RunningServer) =>
      fetch(`${server.url}/storage/v1/upload/resumable`, {
        method: 'POST',
        headers: tus(server, {
          'upload-concat': `final;${at(a, first)} ${at(b, second)}`,
          'upload-metadata': metadata(small),
        }),
      });
    expect((await finalOf(b)).status).toBe(400);
    expect((await patch(b, first, MiB, p.subarray(MiB))).status).toBe(204);
    expect((await patch(a, second, 0, q)).status).toBe(204);
    const joined = await finalOf(b);
    expect(joined.status).toBe(201);
    // A first part under 5 MiB: S3 would refuse it as a copied part, so the bytes are streamed.
    expect(sha256(await download(a, small))).toBe(sha256(Buffer.concat([p, q])));
    const url = joined.headers.get('location') as string;
    const head = await fetch(url, { method: 'HEAD', headers: tus(a) });
    expect(head.headers.get('upload-offset')).toBe(String(p.length + q.length));
    // The parts are gone, their bytes too.
    expect(await offsetOn(a, first)).toBe(404);
    for (const part of [first, second]) {
      expect(await keysIn(s3c, s3.bucket)).not.toContain(`objects/${versionOf(part)}`);
    }
    expect(await unfinished()).toEqual([]);
  }, 120_000);

  it('terminates an upload and collects expired ones from the bucket', async () => {
    const [a, b] = servers as [RunningServer, RunningServer];
    const data = randomBytes(7 * MiB);
    // Terminated on the other server: its multipart upload and pending bytes go.
    const dropped = await create(a, `${alice.id}/dropped.bin`, data.length);
    expect((await patch(a, dropped, 0, data.subarray(0, MiB))).status).toBe(204);
    const del = await fetch(at(b, dropped), { method: 'DELETE', headers: tus(b) });
    expect(del.status).toBe(204);
    expect(await multipartKeys()).not.toContain(`objects/${versionOf(dropped)}`);
    expect(await unfinished()).toEqual([]);

    // Left unfinished: one part sent and pending bytes after it.
    const left = await create(b, `${alice.id}/left.bin`, data.length);
    expect((await patch(b, left, 0, data.subarray(0, 6 * MiB + 10))).status).toBe(204);
    expect(await offsetOn(a, left)).toBe(6 * MiB + 10);
    if (!ceph?.available) return;
    const backend = new S3Backend({
      bucket: s3.bucket,
      endpoint: ceph.endpoint,
      region: ceph.region,
      forcePathStyle: true,
      accessKeyId: ceph.accessKeyId,
      secretAccessKey: ceph.secretAccessKey,
    });
    const day = 24 * 60 * 60 * 1000;
    const store = new ObjectS3Store(backend, day, 50 * 1024 ** 3);
    // Not expired yet, and touched just now: nothing goes.
    expect(await sweepS3Tus(store, { graceMs: 10 * 60 * 1000 })).toBe(0);
    expect(await offsetOn(a, left)).toBe(6 * MiB + 10);
    // A day and more later: every record goes, and the unfinished upload's bytes.
    expect(await sweepS3Tus(store, { now: Date.now() + 2 * day })).toBeGreaterThan(0);
    expect(await offsetOn(b, left)).toBe(404);
    expect(await multipartKeys()).toEqual([]);
    expect((await keysIn(s3c, s3.bucket)).filter((k) => k.startsWith('tus/'))).toEqual([]);
    // Objects stay.
    expect(sha256(await download(a, `${alice.id}/pieces.bin`))).toHaveLength(64);
  }, 120_000);
});
