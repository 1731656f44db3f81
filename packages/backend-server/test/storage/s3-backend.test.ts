/**
 * Storage with `backend: 's3'` against a real radosgw (Ceph, test/support/ceph-cluster.ts):
 * every byte path of the storage API through supabase-js — upload, download with Range,
 * copy, move, remove, list, signed URLs, image transformations, tus uploads — with the
 * bytes in the bucket (as `objects/<version>`) and none in the storage directory.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { S3StorageOptions } from '../../src/config/index';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { freshBucket, keysIn, s3Client, s3Server } from './s3-backend-support';
import { client, mintUser, policiesDir, sha256, type TestUser, uniqueBucket } from './support';
import { bodySha256, startTus } from './tus-support';

const MiB = 1024 * 1024;
const md5 = (data: Uint8Array) => createHash('md5').update(data).digest('hex');
const ceph = await s3Server();
if (!ceph.available) console.warn(`S3 backend suite skipped: ${ceph.reason}`);

describe.skipIf(!ceph.available)(`storage on an S3 backend (${databaseKind()})`, () => {
  let server: RunningServer;
  let s3: S3StorageOptions;
  let rgw: S3Client;
  let dir: string;
  let alice: TestUser;
  let bucket: string;
  const keys = () => keysIn(rgw, s3.bucket);
  const objectKey = async (name: string) => {
    const { data } = await client(server, alice).storage.from(bucket).info(name);
    return `objects/${data?.version}`;
  };

  beforeAll(async () => {
    if (!ceph.available) return;
    s3 = await freshBucket(ceph);
    rgw = s3Client(ceph);
    dir = await mkdtemp(join(tmpdir(), 's3-backend-'));
    server = await startTestServer({
      migrationsDir: await policiesDir(),
      storage: { directory: dir, backend: 's3', s3 },
    });
    alice = await mintUser(server);
    bucket = uniqueBucket('s3');
    await client(server, 'service').storage.createBucket(bucket, { public: false });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps uploaded bytes in the bucket by version, and serves them whole and by range', async () => {
    const data = randomBytes(9 * MiB + 123); // past one multipart part (8 MiB)
    const name = `${alice.id}/big.bin`;
    const storage = client(server, alice).storage.from(bucket);
    const { error } = await storage.upload(name, data, { contentType: 'application/x-test' });
    expect(error).toBeNull();
    const key = await objectKey(name);
    expect(await keys()).toContain(key);
    // Nothing of it in the storage directory.
    expect(await readdir(dir)).not.toContain('objects');
    expect(await readdir(join(dir, 'tmp'))).toEqual([]);

    const { data: blob } = await storage.download(name);
    expect(sha256(new Uint8Array(await (blob as Blob).arrayBuffer()))).toBe(sha256(data));

    const url = `${server.url}/storage/v1/object/authenticated/${bucket}/${name}`;
    const auth = { authorization: `Bearer ${alice.token}`, apikey: server.anonKey };
    // A body of declared length went in one PUT; its ETag, the store's, is the bytes' md5.
    const head = await fetch(url, { method: 'HEAD', headers: auth });
    expect(head.headers.get('etag')).toBe(`"${md5(data)}"`);
    const ranged = await fetch(url, { headers: { ...auth, range: 'bytes=1000-1999999' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 1000-1999999/${data.length}`);
    expect(sha256(new Uint8Array(await ranged.arrayBuffer()))).toBe(
      sha256(data.subarray(1000, 2_000_000)),
    );
    const suffix = await fetch(url, { headers: { ...auth, range: 'bytes=-10' } });
    expect(Buffer.from(await suffix.arrayBuffer())).toEqual(data.subarray(-10));
    const bad = await fetch(url, { headers: { ...auth, range: `bytes=${data.length}-` } });
    expect(bad.status).toBe(416);
    await bad.body?.cancel();

    // A reader that walks away mid-body: the store's response is dropped, the next reads work.
    for (let i = 0; i < 3; i++) {
      const cut = await fetch(url, { headers: auth });
      const reader = cut.body?.getReader();
      expect((await reader?.read())?.value?.byteLength).toBeGreaterThan(0);
      await reader?.cancel();
    }
    expect(await bodySha256(await fetch(url, { headers: auth }))).toEqual({
      sha256: sha256(data),
      size: data.length,
    });
  }, 120_000);

  it('streams a form upload and a body of unknown length through a multipart upload, md5 as ETag', async () => {
    const storage = client(server, alice).storage.from(bucket);
    const auth = { authorization: `Bearer ${alice.token}`, apikey: server.anonKey };
    const form = randomBytes(9 * MiB + 7);
    const formName = `${alice.id}/form.bin`;
    // supabase-js sends a Blob as multipart/form-data: no length known for the file part.
    const sent = await storage.upload(formName, new Blob([form]), {
      contentType: 'application/x-test',
    });
    expect(sent.error).toBeNull();
    const formUrl = `${server.url}/storage/v1/object/authenticated/${bucket}/${formName}`;
    expect((await fetch(formUrl, { method: 'HEAD', headers: auth })).headers.get('etag')).toBe(
      `"${md5(form)}"`,
    );
    expect(await bodySha256(await fetch(formUrl, { headers: auth }))).toEqual({
      sha256: sha256(form),
      size: form.length,
    });

    // An empty body of declared length 0: one empty PUT, the md5 of nothing as ETag.
    const emptyName = `${alice.id}/empty.bin`;
    expect((await storage.upload(emptyName, Buffer.alloc(0))).error).toBeNull();
    const empty = await fetch(
      `${server.url}/storage/v1/object/authenticated/${bucket}/${emptyName}`,
      { headers: auth },
    );
    expect(empty.headers.get('etag')).toBe(`"${md5(Buffer.alloc(0))}"`);
    expect((await empty.arrayBuffer()).byteLength).toBe(0);

    // A chunked body (no Content-Length).
    const raw = randomBytes(3 * MiB + 1);
    const rawName = `${alice.id}/chunked.bin`;
    const rawUrl = `${server.url}/storage/v1/object/${bucket}/${rawName}`;
    const put = await fetch(rawUrl, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/x-test' },
      body: new ReadableStream({
        start(c) {
          for (let at = 0; at < raw.length; at += MiB) c.enqueue(raw.subarray(at, at + MiB));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(put.status).toBe(200);
    const got = await fetch(`${server.url}/storage/v1/object/authenticated/${bucket}/${rawName}`, {
      headers: auth,
    });
    expect(got.headers.get('etag')).toBe(`"${md5(raw)}"`);
    expect(await bodySha256(got)).toEqual({ sha256: sha256(raw), size: raw.length });
  });

  it('leaves nothing in the bucket of an upload cut off mid-body', async () => {
    const before = await keys();
    const name = `${alice.id}/cut.bin`;
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${server.url}/storage/v1/object/${bucket}/${name}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${alice.token}`,
          apikey: server.anonKey,
          'content-type': 'application/x-test',
          'content-length': String(9 * MiB),
        },
      });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.write(randomBytes(3 * MiB), () => setTimeout(() => req.destroy(), 200));
    });
    // The server notices the reset, aborts its PUT and deletes whatever reached the key.
    let left: string[] = [];
    for (let i = 0; i < 50; i++) {
      left = (await keys()).filter((k) => !before.includes(k));
      if (left.length === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(left).toEqual([]);
    expect((await client(server, alice).storage.from(bucket).info(name)).error).not.toBeNull();
    // The server goes on: the same name uploads whole.
    const again = randomBytes(MiB);
    expect((await client(server, alice).storage.from(bucket).upload(name, again)).error).toBeNull();
  });

  it('replaces, copies, moves, lists and removes, freeing the bytes of gone versions', async () => {
    const storage = client(server, alice).storage.from(bucket);
    const a = `${alice.id}/ops/a.txt`;
    await storage.upload(a, 'first');
    const firstKey = await objectKey(a);
    expect((await storage.upload(a, 'second', { upsert: true })).error).toBeNull();
    const secondKey = await objectKey(a);
    expect(await keys()).not.toContain(firstKey);
    expect(await keys()).toContain(secondKey);

    expect((await storage.copy(a, `${alice.id}/ops/b.txt`)).error).toBeNull();
    const copyKey = await objectKey(`${alice.id}/ops/b.txt`);
    expect(copyKey).not.toBe(secondKey);
    expect(await keys()).toEqual(expect.arrayContaining([secondKey, copyKey]));
    expect((await storage.move(`${alice.id}/ops/b.txt`, `${alice.id}/ops/c.txt`)).error).toBeNull();
    expect(await objectKey(`${alice.id}/ops/c.txt`)).toBe(copyKey);
    expect(await (await storage.download(`${alice.id}/ops/c.txt`)).data?.text()).toBe('second');

    const { data: listed } = await storage.list(`${alice.id}/ops`);
    expect(listed?.map((o) => o.name)).toEqual(['a.txt', 'c.txt']);

    expect((await storage.remove([a, `${alice.id}/ops/c.txt`])).error).toBeNull();
    const left = await keys();
    expect(left).not.toContain(secondKey);
    expect(left).not.toContain(copyKey);
  });

  it('serves signed URLs and image transformations from the bucket', async () => {
    const storage = client(server, alice).storage.from(bucket);
    const png = await sharp({
      create: { width: 640, height: 480, channels: 3, background: { r: 200, g: 30, b: 30 } },
    })
      .png()
      .toBuffer();
    const name = `${alice.id}/img/photo.png`;
    await storage.upload(name, png, { contentType: 'image/png' });

    const { data: signed } = await storage.createSignedUrl(name, 60);
    const plain = await fetch(signed?.signedUrl as string);
    expect(plain.status).toBe(200);
    expect(Buffer.from(await plain.arrayBuffer())).toEqual(png);

    const { data: small } = await storage.createSignedUrl(name, 60, {
      transform: { width: 64, height: 64, resize: 'contain' },
    });
    const rendered = await fetch(small?.signedUrl as string, { headers: { accept: 'image/png' } });
    expect(rendered.status).toBe(200);
    const meta = await sharp(Buffer.from(await rendered.arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([64, 48]);

    const { data: svgDenied } = await storage.download(name, { transform: { width: 32 } });
    expect(
      (await sharp(Buffer.from(await (svgDenied as Blob).arrayBuffer())).metadata()).width,
    ).toBe(32);
  });

  it('takes tus uploads (tus-js-client) into the bucket', async () => {
    const data = randomBytes(7 * MiB + 5);
    const name = `${alice.id}/tus/file.bin`;
    const run = startTus(data, {
      endpoint: `${server.url}/storage/v1/upload/resumable`,
      headers: { authorization: `Bearer ${alice.token}`, apikey: server.anonKey },
      metadata: { bucketName: bucket, objectName: name, contentType: 'application/x-test' },
    });
    await run.done;
    expect(await keys()).toContain(await objectKey(name));
    const res = await fetch(`${server.url}/storage/v1/object/authenticated/${bucket}/${name}`, {
      headers: { authorization: `Bearer ${alice.token}`, apikey: server.anonKey },
    });
    expect(await bodySha256(res)).toEqual({ sha256: sha256(data), size: data.length });
    // The upload's bytes left the storage directory once they were in the bucket.
    expect((await readdir(join(dir, 'tus'))).filter((f) => !f.endsWith('.json'))).toEqual([]);
  });
});
