/**
 * Two servers on one PostgreSQL, one S3 bucket (radosgw) and one storage directory: a tus
 * upload cut off on one goes on through the other (tus-js-client resuming from its URL
 * storage) and ends as an object in the bucket, readable through both.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { S3StorageOptions } from '../../src/config/index';
import { type RunningServer, startServer } from '../../src/server';
import { createTestDatabase, databaseKind } from '../support/server';
import { freshBucket, keysIn, s3Client, s3Server } from './s3-backend-support';
import { client, mintUser, policiesDir, sha256, type TestUser, uniqueBucket } from './support';
import { CHUNK, cuttingProxy, MemoryUrlStorage, startTus } from './tus-support';

const ceph = databaseKind() === 'postgres' ? await s3Server() : null;
if (ceph && !ceph.available) console.warn(`S3 backend replicas suite skipped: ${ceph.reason}`);

describe.skipIf(!ceph?.available)('tus on an S3 backend across replicas (postgres)', () => {
  let db: { url: string; drop: () => Promise<void> };
  let dir: string;
  let s3: S3StorageOptions;
  const servers: RunningServer[] = [];
  let alice: TestUser;
  let bucket: string;

  beforeAll(async () => {
    if (!ceph?.available) return;
    const made = await createTestDatabase();
    if (!made) throw new Error('no PostgreSQL');
    db = made;
    dir = await mkdtemp(join(tmpdir(), 's3-replicas-'));
    s3 = await freshBucket(ceph);
    const migrationsDir = await policiesDir();
    for (let i = 0; i < 2; i++) {
      servers.push(
        await startServer({
          port: 0,
          databaseUrl: db.url,
          migrationsDir,
          storage: { directory: dir, backend: 's3', s3 },
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
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('resumes on the second server an upload cut off on the first', async () => {
    const [a, b] = servers as [RunningServer, RunningServer];
    if (!ceph?.available) return;
    const data = randomBytes(2 * CHUNK + 777);
    const name = `${alice.id}/resumed.bin`;
    const urlStorage = new MemoryUrlStorage();
    const headers = { authorization: `Bearer ${alice.token}`, apikey: a.anonKey };
    const metadata = { bucketName: bucket, objectName: name, contentType: 'application/x-test' };
    // Through a proxy to the first server that cuts the connection after the first chunk.
    const proxy = await cuttingProxy(Number(new URL(a.url).port), CHUNK + 4096);
    const first = startTus(data, {
      endpoint: `${proxy.url}/storage/v1/upload/resumable`,
      headers,
      metadata,
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
    const id = (previous?.uploadUrl ?? '').split('/').pop();
    const second = startTus(data, {
      uploadUrl: `${b.url}/storage/v1/upload/resumable/${id}`,
      headers,
      metadata,
    });
    await second.done;
    expect(second.responses[0]).toMatchObject({ method: 'HEAD', status: 200 });
    expect(second.responses[0]?.offset).toBeGreaterThan(0);

    for (const server of [a, b]) {
      const { data: blob } = await client(server, alice).storage.from(bucket).download(name);
      expect(sha256(new Uint8Array(await (blob as Blob).arrayBuffer()))).toBe(sha256(data));
    }
    const { data: info } = await client(b, alice).storage.from(bucket).info(name);
    expect(await keysIn(s3Client(ceph), s3.bucket)).toContain(`objects/${info?.version}`);
  }, 120_000);
});
