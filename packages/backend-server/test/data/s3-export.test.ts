import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { S3StorageOptions } from '../../src/config/index';
import { exportProject } from '../../src/data/portable';
import { type RunningServer, startServer } from '../../src/server';
import {
  freshBucket,
  keysIn,
  type S3Server,
  s3Client,
  s3Server,
} from '../storage/s3-backend-support';
import { client, sha256 } from '../storage/support';
import { createTestDatabase, databaseKind } from '../support/server';
import { cli } from './cli-runner';

const ceph = databaseKind() === 'postgres' ? await s3Server() : null;
if (ceph && !ceph.available) console.warn(`S3 export suite skipped: ${ceph.reason}`);

/** A project folder whose config.toml puts stored files in `s3`'s bucket. */
async function projectFor(root: string, s3: S3StorageOptions): Promise<string> {
  const dir = await mkdtemp(join(root, 'project-'));
  await writeFile(
    join(dir, 'config.toml'),
    [
      '[storage]',
      'backend = "s3"',
      '[storage.s3]',
      `bucket = "${s3.bucket}"`,
      `endpoint = "${s3.endpoint}"`,
      `region = "${s3.region}"`,
      'force_path_style = true',
      `access_key_id = "${s3.accessKeyId}"`,
      `secret_access_key = "${s3.secretAccessKey}"`,
      '',
    ].join('\n'),
  );
  return dir;
}

describe.skipIf(!ceph?.available)('export and import on the S3 backend (postgres)', () => {
  const dbs: { url: string; drop: () => Promise<void> }[] = [];
  const servers: RunningServer[] = [];
  let root: string;
  let source: RunningServer;
  let s3a: S3StorageOptions;
  const files: Record<string, Buffer> = {
    'a/small.txt': Buffer.from('hello from the bucket'),
    'a/large.bin': randomBytes(9 * 1024 * 1024 + 17),
    'b/empty.bin': Buffer.alloc(0),
  };
  const bucket = 'docs';
  const db = async () => {
    const made = await createTestDatabase();
    if (!made) throw new Error('no PostgreSQL');
    dbs.push(made);
    return made;
  };
  const start = async (url: string, s3: S3StorageOptions, importFile?: string) => {
    const server = await startServer({
      port: 0,
      databaseUrl: url,
      storage: { backend: 's3', s3 },
      ...(importFile ? { importFile } : {}),
    });
    servers.push(server);
    return server;
  };
  /** Every object of `server`, byte-identical, and its version's key in `s3`'s bucket. */
  const expectObjects = async (server: RunningServer, s3: S3StorageOptions) => {
    const keys = await keysIn(s3Client(ceph as Extract<S3Server, { available: true }>), s3.bucket);
    for (const [name, bytes] of Object.entries(files)) {
      const storage = client(server, 'service').storage.from(bucket);
      const { data, error } = await storage.download(name);
      expect(error).toBeNull();
      expect(sha256(new Uint8Array(await (data as Blob).arrayBuffer()))).toBe(sha256(bytes));
      const { data: info } = await storage.info(name);
      expect(keys).toContain(`objects/${info?.version}`);
    }
    // Nothing of them is in the storage directory.
    const local = await readdir(join(server.storageDir, 'objects')).catch(() => []);
    expect(local).toEqual([]);
  };

  beforeAll(async () => {
    if (!ceph?.available) return;
    root = await mkdtemp(join(tmpdir(), 's3-export-'));
    s3a = await freshBucket(ceph);
    source = await start((await db()).url, s3a);
    const service = client(source, 'service');
    await service.storage.createBucket(bucket);
    for (const [name, bytes] of Object.entries(files)) {
      const { error } = await service.storage.from(bucket).upload(name, bytes);
      expect(error).toBeNull();
    }
  }, 180_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    for (const d of dbs) await d.drop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('exports through the CLI and imports into another database and bucket', async () => {
    if (!ceph?.available) return;
    const folder = join(root, 'backup');
    const from = await projectFor(root, s3a);
    const exported = await cli([
      'export',
      folder,
      '--project',
      from,
      '--database-url',
      dbs[0]?.url as string,
    ]);
    expect(exported.stderr).toMatch(/and 3 objects/);
    expect(exported.code).toBe(0);

    const s3b = await freshBucket(ceph);
    const target = await db();
    const to = await projectFor(root, s3b);
    const imported = await cli(['import', folder, '--project', to, '--database-url', target.url]);
    expect(imported.stderr).toMatch(/and 3 objects/);
    expect(imported.code).toBe(0);
    await expectObjects(await start(target.url, s3b), s3b);
  }, 180_000);

  it('exports a tar from a running server and starts another from it', async () => {
    if (!ceph?.available) return;
    const tar = join(root, 'backup.tar');
    const summary = await exportProject(source.db, source.storageDir, tar, source.storageS3);
    expect(summary.objects).toBe(3);
    expect(summary.objectBytes).toBe(Object.values(files).reduce((n, b) => n + b.length, 0));
    const s3c = await freshBucket(ceph);
    const server = await start((await db()).url, s3c, tar);
    await expectObjects(server, s3c);
    // The scratch folders of the export are gone.
    expect((await readdir(source.storageDir)).filter((n) => n.startsWith('.'))).toEqual([]);
  }, 180_000);
});
