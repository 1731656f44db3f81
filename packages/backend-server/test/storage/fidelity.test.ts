/**
 * Behaviour the storage-js integration suite checks against the hosted storage-api, and a
 * little more of the same areas: list-v2 shapes and paging, object info, bucket shapes and
 * size units, and the words of token errors.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { client, headers, mintUser, policiesDir, type TestUser, uniqueBucket } from './support';

describe(`storage-api fidelity (${databaseKind()})`, () => {
  let server: RunningServer;
  let alice: TestUser;
  let service: SupabaseClient;
  let asAlice: SupabaseClient;
  let bucket: string;
  const url = (path: string) => `${server.url}/storage/v1${path}`;

  beforeAll(async () => {
    server = await startTestServer({
      migrationsDir: await policiesDir(),
      storage: { fileSizeLimit: 100_000_000 },
    });
    alice = await mintUser(server);
    service = client(server, 'service');
    asAlice = client(server, alice);
    bucket = uniqueBucket('fid');
    expect((await service.storage.createBucket(bucket)).error).toBeNull();
  });
  afterAll(() => server?.stop());

  describe('tokens', () => {
    it("answers a missing or bad token with AccessDenied in the JWT library's words", async () => {
      const none = await fetch(url('/bucket'));
      expect(none.status).toBe(400);
      expect(await none.json()).toEqual({
        statusCode: '403',
        code: 'AccessDenied',
        error: 'Unauthorized',
        message: 'Invalid Compact JWS',
      });
      const sign = (secret: string, exp: number) =>
        new SignJWT({ role: 'authenticated', sub: alice.id })
          .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
          .setIssuedAt()
          .setExpirationTime(exp)
          .sign(new TextEncoder().encode(secret));
      const now = Math.floor(Date.now() / 1000);
      for (const [token, message] of [
        [await sign(server.jwtSecret, now - 10), '"exp" claim timestamp check failed'],
        [await sign('another secret of enough length!', now + 60), 'signature verification failed'],
        ['abc.def', 'Invalid Compact JWS'],
      ] as const) {
        const res = await fetch(url('/bucket'), { headers: { authorization: `Bearer ${token}` } });
        expect(await res.json(), message).toMatchObject({ statusCode: '403', message });
      }
    });
  });

  describe('buckets', () => {
    it('reads "20MB" as 20,000,000 bytes and refuses limits over the server-wide one', async () => {
      const id = uniqueBucket('size');
      expect(
        (await service.storage.createBucket(id, { public: false, fileSizeLimit: '20MB' })).error,
      ).toBeNull();
      expect((await service.storage.getBucket(id)).data?.file_size_limit).toBe(20_000_000);
      expect(
        (await service.storage.updateBucket(id, { public: false, fileSizeLimit: '1.5kb' })).error,
      ).toBeNull();
      expect((await service.storage.getBucket(id)).data?.file_size_limit).toBe(1500);
      const over = await service.storage.updateBucket(id, { public: false, fileSizeLimit: '1GB' });
      expect(over.error).toMatchObject({ status: 400, statusCode: '413' });
      const bad = await fetch(url('/bucket'), {
        method: 'POST',
        headers: { ...headers(server, 'service'), 'content-type': 'application/json' },
        body: JSON.stringify({ name: uniqueBucket('bad'), file_size_limit: '5MiB' }),
      });
      expect(await bad.json()).toMatchObject({
        statusCode: '400',
        message: 'Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B',
      });
    });

    it('answers one bucket without `type`, lists with it (but not to old Python clients)', async () => {
      const { data } = await service.storage.getBucket(bucket);
      expect(Object.keys(data ?? {}).sort()).toEqual([
        'allowed_mime_types',
        'created_at',
        'file_size_limit',
        'id',
        'name',
        'owner',
        'public',
        'updated_at',
      ]);
      expect(data?.owner).toBeNull();
      const listed = await service.storage.listBuckets();
      expect(listed.data?.find((b) => b.id === bucket)).toMatchObject({ type: 'STANDARD' });
      const old = await fetch(url('/bucket'), {
        headers: { ...headers(server, 'service'), 'x-client-info': 'supabase-py/2.17.0' },
      });
      const rows = (await old.json()) as Array<Record<string, unknown>>;
      expect(rows.find((b) => b.id === bucket)).not.toHaveProperty('type');
      const recent = await fetch(url('/bucket'), {
        headers: { ...headers(server, 'service'), 'x-client-info': 'supabase-py/2.18.0' },
      });
      const recentRows = (await recent.json()) as Array<Record<string, unknown>>;
      expect(recentRows.find((b) => b.id === bucket)).toHaveProperty('type', 'STANDARD');
    });
  });

  describe('objects', () => {
    it('stores {} as the user metadata of an upload without any, and answers info in the hosted shape', async () => {
      const path = `${alice.id}/info.txt`;
      expect((await asAlice.storage.from(bucket).upload(path, 'hello')).error).toBeNull();
      const { data, error } = await asAlice.storage.from(bucket).info(path);
      expect(error).toBeNull();
      expect(data).toEqual({
        id: expect.any(String),
        name: path,
        version: expect.any(String),
        bucketId: bucket,
        size: 5,
        contentType: 'text/plain;charset=UTF-8',
        cacheControl: 'max-age=3600',
        etag: expect.stringMatching(/^"[0-9a-f]{32}"$/),
        metadata: {},
        lastModified: expect.any(String),
        createdAt: expect.any(String),
      });
      const tagged = `${alice.id}/tagged.txt`;
      await asAlice.storage.from(bucket).upload(tagged, 'x', { metadata: { tag: 'a' } });
      expect((await asAlice.storage.from(bucket).info(tagged)).data?.metadata).toEqual({
        tag: 'a',
      });
    });
  });

  describe('object info routes', () => {
    it('reads public buckets as the platform, private ones as the caller, tokens optional on /info/:bucket', async () => {
      const open = uniqueBucket('open');
      expect((await service.storage.createBucket(open, { public: true })).error).toBeNull();
      expect((await service.storage.from(open).upload('pic.txt', 'p')).error).toBeNull();
      const mine = `${alice.id}/private.txt`;
      expect((await asAlice.storage.from(bucket).upload(mine, 'm')).error).toBeNull();
      const get = async (path: string, as?: TestUser) =>
        fetch(url(path), { headers: as ? headers(server, as) : {} }).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as Record<string, unknown>,
        }));
      // A public bucket: no token needed; a signed-in stranger sees it too (no RLS there).
      for (const path of [`/object/info/${open}/pic.txt`, `/object/info/public/${open}/pic.txt`]) {
        expect((await get(path)).body, path).toMatchObject({ name: 'pic.txt', size: 1 });
      }
      expect((await get(`/object/info/authenticated/${open}/pic.txt`, alice)).body).toMatchObject({
        name: 'pic.txt',
      });
      // A private bucket: without a token it does not exist; with one, RLS decides.
      expect((await get(`/object/info/${bucket}/${mine}`)).body).toMatchObject({
        statusCode: '404',
        code: 'NoSuchBucket',
      });
      expect((await get(`/object/info/public/${bucket}/${mine}`, alice)).body).toMatchObject({
        code: 'NoSuchBucket',
      });
      expect((await get(`/object/info/${bucket}/${mine}`, alice)).body).toMatchObject({
        name: mine,
      });
      const bob = await mintUser(server);
      expect((await get(`/object/info/${bucket}/${mine}`, bob)).body).toMatchObject({
        statusCode: '404',
        code: 'NoSuchKey',
      });
      expect((await get(`/object/info/authenticated/${bucket}/${mine}`)).body).toMatchObject({
        statusCode: '403',
        message: 'Invalid Compact JWS',
      });
    });
  });

  describe('list v2', () => {
    let base: string;
    const suffixes = ['zz', 'bb', 'xx', 'ww', 'cc', 'aa', 'yy', 'oo'];
    beforeAll(async () => {
      base = `${alice.id}/lists/v2`;
      const files = asAlice.storage.from(bucket);
      for (const s of suffixes)
        expect((await files.upload(`${base}/f-${s}.txt`, s)).error).toBeNull();
      expect((await files.upload(`${base}/dir/inner.txt`, 'i')).error).toBeNull();
      expect((await files.upload(`${base}/dir/deep/x.txt`, 'x')).error).toBeNull();
    });

    it('answers folders and objects of one level in the hosted shapes', async () => {
      const files = asAlice.storage.from(bucket);
      const top = await files.listV2({ prefix: `${alice.id}/lists/`, with_delimiter: true });
      expect(top.data).toEqual({
        hasNext: false,
        folders: [
          {
            key: 'v2',
            name: `${base}/`,
            id: null,
            updated_at: null,
            created_at: null,
            last_accessed_at: null,
            metadata: null,
          },
        ],
        objects: [],
      });
      const level = await files.listV2({ prefix: `${base}/`, with_delimiter: true });
      expect(level.data?.folders.map((f) => [f.key, f.name])).toEqual([['dir', `${base}/dir/`]]);
      expect(level.data?.objects.map((o) => o.key)).toEqual(
        suffixes.map((s) => `f-${s}.txt`).sort(),
      );
      expect(level.data?.objects[0]).toMatchObject({
        name: `${base}/f-aa.txt`,
        id: expect.any(String),
        metadata: expect.objectContaining({ size: 2 }),
      });
      // Without a delimiter: every object below, no `key`.
      const all = await files.listV2({ prefix: `${base}/` });
      expect(all.data?.folders).toEqual([]);
      expect(all.data?.objects).toHaveLength(10);
      expect(all.data?.objects[0]).not.toHaveProperty('key');
      expect(Object.keys(all.data?.objects[0] ?? {}).sort()).toEqual([
        'created_at',
        'id',
        'last_accessed_at',
        'metadata',
        'name',
        'updated_at',
      ]);
    });

    it('pages in every sort order, the cursor keeping the sort', async () => {
      const files = asAlice.storage.from(bucket);
      const names = suffixes.map((s) => `${base}/f-${s}.txt`);
      const byName = [`${base}/dir/`, ...[...names].sort()];
      const cases: Array<{
        sortBy?: { column: 'name' | 'created_at' | 'updated_at'; order?: 'asc' | 'desc' };
        expected: string[];
      }> = [
        { expected: byName },
        { sortBy: { column: 'name', order: 'desc' }, expected: [...byName].reverse() },
        // The folder is dated by its oldest object, created after the files.
        { sortBy: { column: 'created_at', order: 'asc' }, expected: [...names, `${base}/dir/`] },
        {
          sortBy: { column: 'updated_at', order: 'desc' },
          expected: [`${base}/dir/`, ...[...names].reverse()],
        },
      ];
      for (const { sortBy, expected } of cases) {
        const seen: string[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 10; page++) {
          const { data, error } = await files.listV2({
            prefix: `${base}/`,
            with_delimiter: true,
            limit: 2,
            ...(cursor ? { cursor } : {}),
            ...(sortBy ? { sortBy } : {}),
          });
          expect(error).toBeNull();
          const entries = [...(data?.folders ?? []), ...(data?.objects ?? [])];
          expect(entries.length).toBeLessThanOrEqual(2);
          // A page answers folders and objects apart: put them in the expected order, and
          // check the objects came in that order.
          const at = (n: string) => expected.indexOf(n);
          const pageNames = entries.map((e) => e.name).sort((a, b) => at(a) - at(b));
          expect(data?.objects.map((o) => o.name)).toEqual(
            pageNames.filter((n) => !n.endsWith('/')),
          );
          seen.push(...pageNames);
          if (!data?.hasNext) break;
          expect(typeof data.nextCursor).toBe('string');
          cursor = data.nextCursor;
        }
        expect(seen, JSON.stringify(sortBy)).toEqual(expected);
      }
    });

    it('refuses a cursor it did not make', async () => {
      const res = await fetch(url(`/object/list-v2/${bucket}`), {
        method: 'POST',
        headers: { ...headers(server, alice), 'content-type': 'application/json' },
        body: JSON.stringify({ prefix: '', cursor: 'bm90IGEgY3Vyc29y' }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        statusCode: '400',
        code: 'InvalidParameter',
        message: 'Invalid Parameter continuation token',
      });
    });
  });
});
