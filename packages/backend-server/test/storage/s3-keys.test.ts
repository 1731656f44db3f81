import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, ListBucketsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_HEADER } from '../../src/console/index';
import { type RunningServer, startServer } from '../../src/server';
import { cli } from '../data/cli-runner';
import { createTestDatabase, databaseKind, startTestServer } from '../support/server';
import { expectS3Error, s3Client } from './s3-support';
import { uniqueBucket } from './support';

const root = mkdtempSync(join(tmpdir(), 's3-keys-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const field = (text: string, label: string) =>
  new RegExp(`${label}:\\s+([0-9a-f]+)`).exec(text)?.[1] ?? '';

const listBuckets = (server: RunningServer, accessKeyId: string, secretAccessKey: string) =>
  s3Client(server, { accessKeyId, secretAccessKey }).send(new ListBucketsCommand({}));

describe(`S3 access keys from the console (${databaseKind()})`, () => {
  let server: RunningServer;
  let token: string;
  const api = async (
    path: string,
    init: RequestInit = {},
    // biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers field by field
  ): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${server.url}/_console/api/s3-keys${path}`, {
      ...init,
      headers: { [TOKEN_HEADER]: token, 'content-type': 'application/json', ...init.headers },
    });
    return { status: res.status, body: res.status === 204 ? null : await res.json() };
  };

  beforeAll(async () => {
    server = await startTestServer();
    token = new URL(server.consoleUrl ?? '').hash.replace('#token=', '');
  });
  afterAll(() => server?.stop());

  it('creates a key whose secret is answered once; it signs as the service role', async () => {
    const made = await api('', { method: 'POST', body: JSON.stringify({ description: ' CI ' }) });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ description: 'CI' });
    expect(made.body.id).toMatch(/^[0-9a-f]{32}$/);
    expect(made.body.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(made.body.created_at)).not.toBeNaN();
    const listed = await api('');
    expect(listed.body).toEqual([
      { id: made.body.id, description: 'CI', created_at: made.body.created_at },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(made.body.secret);

    // The service role: creates a bucket and writes to it, RLS or not.
    const s3 = s3Client(server, { accessKeyId: made.body.id, secretAccessKey: made.body.secret });
    const bucket = uniqueBucket('keys');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k.txt', Body: 'x' }));
    await expectS3Error(
      listBuckets(server, made.body.id, 'f'.repeat(64)),
      'SignatureDoesNotMatch',
      403,
    );

    // Deleted: refused at once; the configured pair still signs.
    expect((await api(`/${made.body.id}`, { method: 'DELETE' })).status).toBe(204);
    await expectS3Error(
      listBuckets(server, made.body.id, made.body.secret),
      'InvalidAccessKeyId',
      403,
    );
    expect(
      (await s3Client(server).send(new ListBucketsCommand({}))).Buckets?.length,
    ).toBeGreaterThan(0);
    expect((await api('')).body).toEqual([]);
  });

  it('answers clear errors, and only with the console token', async () => {
    const long = await api('', {
      method: 'POST',
      body: JSON.stringify({ description: 'x'.repeat(201) }),
    });
    expect(long.status).toBe(400);
    expect(long.body.message).toMatch(/over 200 characters/);
    const wrong = await api('', { method: 'POST', body: JSON.stringify({ description: 7 }) });
    expect(wrong.status).toBe(400);
    const gone = await api('/0123456789abcdef0123456789abcdef', { method: 'DELETE' });
    expect(gone).toEqual({ status: 404, body: { message: 'No such S3 access key' } });
    const anonymous = await fetch(`${server.url}/_console/api/s3-keys`);
    expect(anonymous.status).toBe(401);
  });

  it('keeps the secrets where no API role reads them', async () => {
    await api('', { method: 'POST', body: JSON.stringify({ description: 'hidden' }) });
    for (const role of ['anon', 'authenticated', 'service_role']) {
      const error = await server.db
        .transaction(async (tx) => {
          await tx.query(`set local role ${role}`);
          await tx.query('select secret from _auth.s3_access_keys');
        })
        .then(
          () => null,
          (e: Error) => e.message,
        );
      expect(error, role).toMatch(/permission denied/);
    }
  });
});

describe(`S3 access keys from the CLI (${databaseKind()})`, () => {
  it('creates, lists and deletes keys on the database the data commands open', async () => {
    const fresh = await createTestDatabase();
    const dataDir = join(root, 'data');
    const target = fresh ? ['--database-url', fresh.url] : ['--data-dir', dataDir];
    // PGlite: the CLI holds the data directory, so it runs before and after the server;
    // PostgreSQL: while the server runs (as another replica would).
    const options = fresh ? { port: 0, databaseUrl: fresh.url } : { port: 0, dataDir };
    let server = fresh ? await startServer(options) : null;
    try {
      const made = await cli(['s3-keys', 'create', '--description', 'from the CLI', ...target]);
      expect(made.code, made.stderr).toBe(0);
      const id = field(made.stdout, 'Access key id');
      const secret = field(made.stdout, 'Secret access key');
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      expect(secret).toMatch(/^[0-9a-f]{64}$/);
      const listed = await cli(['s3-keys', 'list', ...target]);
      expect(listed.stdout).toContain(id);
      expect(listed.stdout).toContain('from the CLI');
      expect(listed.stdout).not.toContain(secret);

      server ??= await startServer(options);
      expect((await listBuckets(server, id, secret)).Buckets).toBeDefined();
      if (!fresh) {
        await server.stop();
        server = null;
      }
      const deleted = await cli(['s3-keys', 'delete', id, ...target]);
      expect(deleted.code, deleted.stderr).toBe(0);
      if (server) {
        await expectS3Error(listBuckets(server, id, secret), 'InvalidAccessKeyId', 403);
      }
      const again = await cli(['s3-keys', 'delete', id, ...target]);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/no S3 access key/);
      const bad = await cli(['s3-keys', 'rotate', ...target]);
      expect(bad.code).toBe(1);
    } finally {
      await server?.stop();
      await fresh?.drop();
    }
  }, 120_000);
});
