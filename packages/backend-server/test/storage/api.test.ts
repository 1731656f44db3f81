import type { SupabaseClient } from '@supabase/supabase-js';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import {
  client,
  headers,
  mintUser,
  policiesDir,
  sha256,
  type TestUser,
  uniqueBucket,
} from './support';

describe(`storage API through supabase-js (${databaseKind()})`, () => {
  let server: RunningServer;
  let alice: TestUser;
  let bob: TestUser;
  let service: SupabaseClient;
  let asAlice: SupabaseClient;
  let asBob: SupabaseClient;
  let bucket: string;
  const storageUrl = () => `${server.url}/storage/v1`;

  beforeAll(async () => {
    server = await startTestServer({ migrationsDir: await policiesDir() });
    alice = await mintUser(server);
    bob = await mintUser(server);
    service = client(server, 'service');
    asAlice = client(server, alice);
    asBob = client(server, bob);
    bucket = uniqueBucket('docs');
    const { error } = await service.storage.createBucket(bucket, { public: false });
    expect(error).toBeNull();
  });
  afterAll(() => server?.stop());

  it('has the hosted path helpers for policies', async () => {
    const { rows } = await server.db.query<Record<string, unknown>>(
      `select to_jsonb(storage.foldername('a/b/c.png')) as folders, to_jsonb(storage.foldername('top.txt')) as none,
              storage.filename('a/b/c.png') as file, storage.extension('a/b/c.tar.gz') as ext,
              storage.extension('a/b/noext') as noext`,
    );
    expect(rows[0]).toEqual({ folders: ['a', 'b'], none: [], file: 'c.png', ext: 'gz', noext: '' });
  });

  describe('buckets', () => {
    it('creates with "1MB"-style limits and mime wildcards, gets, lists, updates', async () => {
      const id = uniqueBucket('limits');
      const created = await service.storage.createBucket(id, {
        public: false,
        fileSizeLimit: '1MB',
        allowedMimeTypes: ['image/*', 'text/plain'],
      });
      expect(created).toEqual({ data: { name: id }, error: null });
      const { data } = await service.storage.getBucket(id);
      expect(data).toMatchObject({
        id,
        name: id,
        public: false,
        // Decimal units, as the hosted service parses them.
        file_size_limit: 1_000_000,
        allowed_mime_types: ['image/*', 'text/plain'],
      });
      expect(data?.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const listed = await asAlice.storage.listBuckets();
      expect(listed.data?.find((b) => b.id === id)).toMatchObject({ type: 'STANDARD' });
      expect(
        await service.storage.updateBucket(id, {
          public: true,
          fileSizeLimit: 2048,
          allowedMimeTypes: ['image/png'],
        }),
      ).toEqual({ data: { message: 'Successfully updated' }, error: null });
      const after = await service.storage.getBucket(id);
      expect(after.data).toMatchObject({
        public: true,
        file_size_limit: 2048,
        allowed_mime_types: ['image/png'],
      });
    });

    it('answers duplicates, bad names, RLS and missing buckets with the hosted errors', async () => {
      const dup = await service.storage.createBucket(bucket);
      expect(dup.error).toMatchObject({
        status: 400,
        statusCode: '409',
        message: 'The resource already exists',
      });
      const bad = await service.storage.createBucket('no/slash');
      expect(bad.error).toMatchObject({ status: 400, statusCode: '400' });
      const denied = await asAlice.storage.createBucket(uniqueBucket('mine'));
      expect(denied.error).toMatchObject({
        status: 400,
        statusCode: '403',
        message: 'new row violates row-level security policy',
      });
      const missing = await service.storage.getBucket('no-such-bucket');
      expect(missing.error).toMatchObject({
        status: 400,
        statusCode: '404',
        message: 'Bucket not found',
      });
      const res = await fetch(`${storageUrl()}/bucket/no-such-bucket`, {
        headers: headers(server, 'service'),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        statusCode: '404',
        code: 'NoSuchBucket',
        error: 'Bucket not found',
        message: 'Bucket not found',
      });
    });

    it('empties (service role only) and deletes (409 while not empty)', async () => {
      const id = uniqueBucket('trash');
      await service.storage.createBucket(id);
      await service.storage.from(id).upload('a/one.txt', 'one');
      const notEmpty = await service.storage.deleteBucket(id);
      expect(notEmpty.error).toMatchObject({ status: 400, statusCode: '409' });
      const res = await fetch(`${storageUrl()}/bucket/${id}/empty`, {
        method: 'POST',
        headers: { ...headers(server, alice), 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({
        statusCode: '403',
        message: 'Access denied: Invalid role',
      });
      expect((await service.storage.emptyBucket(id)).error).toBeNull();
      expect(await service.storage.deleteBucket(id)).toEqual({
        data: { message: 'Successfully deleted' },
        error: null,
      });
      expect((await service.storage.getBucket(id)).error).toMatchObject({ statusCode: '404' });
    });
  });

  describe('objects', () => {
    it('round-trips a Blob upload (multipart) byte for byte, with headers and info', async () => {
      const path = `${alice.id}/notes/hello.txt`;
      const text = 'hello, storage ✓';
      const up = await asAlice.storage
        .from(bucket)
        .upload(path, new Blob([text], { type: 'text/plain' }), { metadata: { tag: 'x' } });
      expect(up.error).toBeNull();
      expect(up.data).toMatchObject({ path, fullPath: `${bucket}/${path}` });
      expect(up.data?.id).toMatch(/^[0-9a-f-]{36}$/);
      const down = await asAlice.storage.from(bucket).download(path);
      expect(await down.data?.text()).toBe(text);
      const res = await fetch(`${storageUrl()}/object/${bucket}/${path}`, {
        headers: headers(server, alice),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain');
      expect(res.headers.get('cache-control')).toBe('max-age=3600');
      expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
      expect(res.headers.get('last-modified')).toMatch(/GMT$/);
      expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
      await res.arrayBuffer();
      const info = await asAlice.storage.from(bucket).info(path);
      expect(info.data).toMatchObject({
        name: path,
        bucketId: bucket,
        size: Buffer.byteLength(text),
        contentType: 'text/plain',
        cacheControl: 'max-age=3600',
        metadata: { tag: 'x' },
      });
    });

    it('takes raw bodies with Content-Type, Cache-Control and base64 x-metadata', async () => {
      const path = `${alice.id}/raw/data.bin`;
      const bytes = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));
      const up = await asAlice.storage.from(bucket).upload(path, bytes, {
        contentType: 'application/octet-stream',
        cacheControl: '60',
        metadata: { kind: 'raw' },
      });
      expect(up.error).toBeNull();
      const down = await asAlice.storage.from(bucket).download(path);
      expect(sha256(new Uint8Array(await (down.data as Blob).arrayBuffer()))).toBe(sha256(bytes));
      const info = await asAlice.storage.from(bucket).info(path);
      expect(info.data).toMatchObject({
        cacheControl: 'max-age=60',
        metadata: { kind: 'raw' },
        size: 5000,
      });
    });

    it('uses multipart fields sent after the file part (contentType, metadata)', async () => {
      const form = new FormData();
      form.append('', new Blob(['<p>hi</p>']), 'page.html');
      form.append('contentType', 'text/html');
      form.append('metadata', JSON.stringify({ late: true }));
      const path = `${alice.id}/form/page.html`;
      const { error } = await asAlice.storage.from(bucket).upload(path, form);
      expect(error).toBeNull();
      const info = await asAlice.storage.from(bucket).info(path);
      expect(info.data).toMatchObject({ contentType: 'text/html', metadata: { late: true } });
    });

    it('refuses an existing key without upsert (409 Duplicate), replaces with upsert and update', async () => {
      const path = `${alice.id}/dup.txt`;
      const files = asAlice.storage.from(bucket);
      expect((await files.upload(path, 'v1')).error).toBeNull();
      const again = await files.upload(path, 'v2');
      expect(again.error).toMatchObject({
        status: 400,
        statusCode: '409',
        message: 'The resource already exists',
      });
      expect(await (await files.download(path)).data?.text()).toBe('v1');
      expect((await files.upload(path, 'v2', { upsert: true })).error).toBeNull();
      expect(await (await files.download(path)).data?.text()).toBe('v2');
      expect((await files.update(path, 'v3')).error).toBeNull();
      expect(await (await files.download(path)).data?.text()).toBe('v3');
      // Replaced versions leave no bytes behind.
      const { rows } = await server.db.query<{ n: string }>(
        'select count(*)::text as n from storage.retired_versions',
      );
      expect(rows[0]?.n).toBe('0');
    });

    it('lets RLS decide: other users and anon neither read nor write an owner folder', async () => {
      const path = `${alice.id}/private.txt`;
      await asAlice.storage.from(bucket).upload(path, 'secret');
      const read = await asBob.storage.from(bucket).download(path);
      expect(read.error).toMatchObject({ status: 400, statusCode: '404' });
      const write = await asBob.storage.from(bucket).upload(`${alice.id}/forged.txt`, 'x');
      expect(write.error).toMatchObject({
        status: 400,
        statusCode: '403',
        message: 'new row violates row-level security policy',
      });
      const anon = client(server, 'anon');
      expect((await anon.storage.from(bucket).download(path)).error).toMatchObject({
        statusCode: '404',
      });
      expect((await anon.storage.from(bucket).list(alice.id)).data).toEqual([]);
      expect(
        (await anon.storage.from('anon-drop').upload(`public/${bob.id}.txt`, 'drop')).error,
      ).toBeNull();
      expect(
        (await anon.storage.from('anon-drop').upload('private/x.txt', 'drop')).error,
      ).toMatchObject({
        statusCode: '403',
      });
      expect((await asBob.storage.from(bucket).remove([path])).data).toEqual([]);
      expect(await (await asAlice.storage.from(bucket).download(path)).data?.text()).toBe('secret');
    });

    it('enforces size and mime limits, and a refused upload writes nothing', async () => {
      const id = uniqueBucket('small');
      await service.storage.createBucket(id, {
        public: false,
        fileSizeLimit: '1KB',
        allowedMimeTypes: ['image/*', 'text/plain'],
      });
      const files = service.storage.from(id);
      const big = await files.upload('big.txt', 'x'.repeat(2000), { contentType: 'text/plain' });
      expect(big.error).toMatchObject({
        status: 400,
        statusCode: '413',
        message: 'The object exceeded the maximum allowed size',
      });
      const bigBlob = await files.upload(
        'big-blob.txt',
        new Blob(['y'.repeat(5000)], { type: 'text/plain' }),
      );
      expect(bigBlob.error).toMatchObject({ statusCode: '413' });
      const pdf = await files.upload('doc.pdf', 'x', { contentType: 'application/pdf' });
      expect(pdf.error).toMatchObject({
        status: 400,
        statusCode: '415',
        message: 'mime type application/pdf is not supported',
      });
      expect((await files.upload('pic.png', 'png', { contentType: 'image/png' })).error).toBeNull();
      const { rows } = await server.db.query<{ name: string }>(
        'select name from storage.objects where bucket_id = $1',
        [id],
      );
      expect(rows.map((r) => r.name)).toEqual(['pic.png']);
    });

    it('serves ranges, conditional requests, download names and HEAD', async () => {
      const path = `${alice.id}/range.txt`;
      await asAlice.storage.from(bucket).upload(path, '0123456789', { contentType: 'text/plain' });
      const url = `${storageUrl()}/object/authenticated/${bucket}/${path}`;
      const h = headers(server, alice);
      const part = await fetch(url, { headers: { ...h, range: 'bytes=2-5' } });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe('bytes 2-5/10');
      expect(await part.text()).toBe('2345');
      const tail = await fetch(url, { headers: { ...h, range: 'bytes=-3' } });
      expect(await tail.text()).toBe('789');
      const bad = await fetch(url, { headers: { ...h, range: 'bytes=50-' } });
      expect(bad.status).toBe(416);
      expect(await bad.json()).toMatchObject({ statusCode: '416', code: 'InvalidRange' });
      const full = await fetch(url, { headers: h });
      const etag = full.headers.get('etag') ?? '';
      await full.text();
      const cached = await fetch(url, { headers: { ...h, 'if-none-match': etag } });
      expect(cached.status).toBe(304);
      const since = await fetch(url, {
        headers: { ...h, 'if-modified-since': new Date(Date.now() + 60_000).toUTCString() },
      });
      expect(since.status).toBe(304);
      const named = await fetch(`${url}?download=report%20final.txt`, { headers: h });
      expect(named.headers.get('content-disposition')).toBe(
        "attachment; filename=report%20final.txt; filename*=UTF-8''report%20final.txt",
      );
      await named.text();
      const head = await fetch(url, { method: 'HEAD', headers: h });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe('10');
      expect(await asAlice.storage.from(bucket).exists(path)).toMatchObject({ data: true });
      expect(await asAlice.storage.from(bucket).exists(`${alice.id}/nope.txt`)).toMatchObject({
        data: false,
      });
      const missing = await fetch(`${storageUrl()}/object/${bucket}/${alice.id}/nope.txt`, {
        headers: h,
      });
      expect(missing.status).toBe(400);
      expect(missing.headers.get('cache-control')).toBe('no-store');
      expect(await missing.json()).toEqual({
        statusCode: '404',
        code: 'NoSuchKey',
        error: 'not_found',
        message: 'Object not found',
      });
    });

    it('lists one level (folders as id:null), with sortBy, search, limit and offset', async () => {
      const files = asAlice.storage.from(bucket);
      const base = `${alice.id}/tree`;
      for (const name of ['b.txt', 'a.txt', 'sub/x.txt', 'sub/deeper/y.txt', 'other/z.txt']) {
        expect((await files.upload(`${base}/${name}`, name)).error).toBeNull();
      }
      const { data } = await files.list(base);
      expect(data?.map((e) => [e.name, e.id === null])).toEqual([
        ['other', true],
        ['sub', true],
        ['a.txt', false],
        ['b.txt', false],
      ]);
      const file = data?.find((e) => e.name === 'a.txt');
      expect(file?.metadata).toMatchObject({ size: 5, mimetype: 'text/plain;charset=UTF-8' });
      const desc = await files.list(base, { sortBy: { column: 'name', order: 'desc' } });
      expect(desc.data?.map((e) => e.name)).toEqual(['sub', 'other', 'b.txt', 'a.txt']);
      const page = await files.list(base, { limit: 2, offset: 2 });
      expect(page.data?.map((e) => e.name)).toEqual(['a.txt', 'b.txt']);
      const search = await files.list(base, { search: 'B' });
      expect(search.data?.map((e) => e.name)).toEqual(['b.txt']);
      const sub = await files.list(`${base}/sub/`);
      expect(sub.data?.map((e) => e.name)).toEqual(['deeper', 'x.txt']);
    });

    it('lists v2 with a cursor and with delimiters', async () => {
      const files = asAlice.storage.from(bucket);
      const base = `${alice.id}/v2`;
      for (const name of ['1.txt', '2.txt', '3.txt', 'f/4.txt'])
        await files.upload(`${base}/${name}`, name);
      const first = await files.listV2({ prefix: `${base}/`, limit: 2 });
      expect(first.data?.hasNext).toBe(true);
      expect(first.data?.objects.map((o) => o.name)).toEqual([`${base}/1.txt`, `${base}/2.txt`]);
      const second = await files.listV2({
        prefix: `${base}/`,
        limit: 2,
        cursor: first.data?.nextCursor,
      });
      expect(second.data?.objects.map((o) => o.name)).toEqual([`${base}/3.txt`, `${base}/f/4.txt`]);
      expect(second.data?.hasNext).toBe(false);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 5; page++) {
        const next = await files.listV2({
          prefix: `${base}/`,
          limit: 1,
          sortBy: { column: 'created_at', order: 'desc' },
          ...(cursor ? { cursor } : {}),
        });
        seen.push(...(next.data?.objects.map((o) => o.name) ?? []));
        cursor = next.data?.nextCursor;
        if (!next.data?.hasNext) break;
      }
      expect(seen).toEqual([`${base}/f/4.txt`, `${base}/3.txt`, `${base}/2.txt`, `${base}/1.txt`]);
      const level = await files.listV2({ prefix: `${base}/`, with_delimiter: true });
      expect(level.data?.folders.map((f) => f.name)).toEqual([`${base}/f/`]);
      expect(level.data?.objects).toHaveLength(3);
    });

    it('moves, copies and removes (one and bulk, missing keys skipped)', async () => {
      const files = asAlice.storage.from(bucket);
      const p = (n: string) => `${alice.id}/mv/${n}`;
      await files.upload(p('a.txt'), 'A');
      const moved = await files.move(p('a.txt'), p('b.txt'));
      expect(moved).toEqual({
        data: { message: 'Successfully moved', Id: expect.any(String), Key: p('b.txt') },
        error: null,
      });
      expect((await files.download(p('a.txt'))).error).toMatchObject({ statusCode: '404' });
      expect(await (await files.download(p('b.txt'))).data?.text()).toBe('A');
      expect(await files.copy(p('b.txt'), p('c.txt'))).toEqual({
        data: { path: `${bucket}/${p('c.txt')}` },
        error: null,
      });
      expect(await (await files.download(p('c.txt'))).data?.text()).toBe('A');
      expect((await files.copy(p('b.txt'), p('c.txt'))).error).toMatchObject({ statusCode: '409' });
      expect(
        (await asBob.storage.from(bucket).move(p('b.txt'), `${bob.id}/stolen.txt`)).error,
      ).toMatchObject({
        statusCode: '404',
      });
      const removed = await files.remove([p('b.txt'), p('missing.txt')]);
      expect(removed.data?.map((o) => o.name)).toEqual([p('b.txt')]);
      const res = await fetch(`${storageUrl()}/object/${bucket}/${p('c.txt')}`, {
        method: 'DELETE',
        headers: headers(server, alice),
      });
      expect(await res.json()).toEqual({ message: 'Successfully deleted' });
      expect((await files.list(`${alice.id}/mv`)).data).toEqual([]);
    });

    it('signs download URLs (single and bulk) relative to /storage/v1, and checks tokens', async () => {
      const files = asAlice.storage.from(bucket);
      const path = `${alice.id}/signed.txt`;
      await files.upload(path, 'signed bytes');
      const signed = await files.createSignedUrl(path, 60, { download: 'mine.txt' });
      expect(
        signed.data?.signedUrl.startsWith(`${storageUrl()}/object/sign/${bucket}/${path}?token=`),
      ).toBe(true);
      const res = await fetch(signed.data?.signedUrl ?? '');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toContain('filename=mine.txt');
      expect(res.headers.get('expires')).toMatch(/GMT$/);
      expect(await res.text()).toBe('signed bytes');
      const raw = await fetch(`${storageUrl()}/object/sign/${bucket}/${path}`, {
        method: 'POST',
        headers: { ...headers(server, alice), 'content-type': 'application/json' },
        body: JSON.stringify({ expiresIn: 60 }),
      });
      const body = (await raw.json()) as { signedURL: string };
      expect(body.signedURL).toMatch(new RegExp(`^/object/sign/${bucket}/${path}\\?token=`));
      const token = new URL(signed.data?.signedUrl ?? '').searchParams.get('token') ?? '';
      const other = await fetch(
        `${storageUrl()}/object/sign/${bucket}/${alice.id}/dup.txt?token=${token}`,
      );
      expect(await other.json()).toMatchObject({ statusCode: '400', code: 'InvalidSignature' });
      const forged = await fetch(
        `${storageUrl()}/object/sign/${bucket}/${path}?token=${token.slice(0, -4)}AAAA`,
      );
      expect(await forged.json()).toMatchObject({ statusCode: '400', code: 'InvalidJWT' });
      const expired = await new SignJWT({ url: `${bucket}/${path}` })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt(Math.floor(Date.now() / 1000) - 120)
        .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
        .sign(new TextEncoder().encode(server.jwtSecret));
      const late = await fetch(`${storageUrl()}/object/sign/${bucket}/${path}?token=${expired}`);
      // The hosted service lets the JWT library reject it: InvalidJWT with jose's words.
      expect(late.status).toBe(400);
      expect(await late.json()).toMatchObject({
        statusCode: '400',
        code: 'InvalidJWT',
        message: '"exp" claim timestamp check failed',
      });
      const bulk = await files.createSignedUrls([path, `${alice.id}/none.txt`], 60);
      expect(bulk.data?.[0]?.signedUrl).toContain('token=');
      expect(bulk.data?.[1]).toMatchObject({
        signedUrl: null,
        error: 'Either the object does not exist or you do not have access to it',
      });
      expect((await asBob.storage.from(bucket).createSignedUrl(path, 60)).error).toMatchObject({
        statusCode: '404',
      });
    });

    it('signs upload URLs (RLS INSERT checked when signing) and accepts the upload with the token', async () => {
      const path = `${alice.id}/via-token.txt`;
      const signed = await asAlice.storage.from(bucket).createSignedUploadUrl(path);
      expect(signed.error).toBeNull();
      const anon = client(server, 'anon');
      const up = await anon.storage
        .from(bucket)
        .uploadToSignedUrl(path, signed.data?.token ?? '', 'by token');
      expect(up).toEqual({ data: { path, fullPath: `${bucket}/${path}` }, error: null });
      expect(await (await asAlice.storage.from(bucket).download(path)).data?.text()).toBe(
        'by token',
      );
      const { rows } = await server.db.query<{ owner_id: string }>(
        'select owner_id from storage.objects where bucket_id = $1 and name = $2',
        [bucket, path],
      );
      expect(rows[0]?.owner_id).toBe(alice.id);
      const again = await anon.storage
        .from(bucket)
        .uploadToSignedUrl(path, signed.data?.token ?? '', 'again');
      expect(again.error).toMatchObject({ statusCode: '409' });
      expect(
        (await asBob.storage.from(bucket).createSignedUploadUrl(`${alice.id}/x.txt`)).error,
      ).toMatchObject({
        statusCode: '403',
      });
    });

    it('serves public buckets without auth and refuses private ones as NoSuchBucket', async () => {
      const id = uniqueBucket('pub');
      await service.storage.createBucket(id, { public: true });
      await service.storage.from(id).upload('img/logo.txt', 'logo');
      const { data } = service.storage.from(id).getPublicUrl('img/logo.txt');
      expect(data.publicUrl).toBe(`${storageUrl()}/object/public/${id}/img/logo.txt`);
      const res = await fetch(data.publicUrl);
      expect(await res.text()).toBe('logo');
      const priv = await fetch(`${storageUrl()}/object/public/${bucket}/${alice.id}/signed.txt`);
      expect(priv.status).toBe(400);
      expect(await priv.json()).toMatchObject({ statusCode: '404', code: 'NoSuchBucket' });
    });

    it('answers malformed and oversized JSON bodies with 400 in the hosted shape', async () => {
      const post = (body: string) =>
        fetch(`${storageUrl()}/object/list/${bucket}`, {
          method: 'POST',
          headers: { ...headers(server, alice), 'content-type': 'application/json' },
          body,
        });
      const bad = await post('{not json');
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ statusCode: '400', code: 'InvalidRequest' });
      const noPrefix = await post('{}');
      expect(await noPrefix.json()).toMatchObject({
        statusCode: '400',
        message: "body must have required property 'prefix'",
      });
      const huge = await post(JSON.stringify({ prefix: '', pad: 'x'.repeat(2 * 1024 * 1024) }));
      expect(huge.status).toBe(400);
      expect(await huge.json()).toMatchObject({ statusCode: '400', message: 'Body is too large' });
      const route = await fetch(`${storageUrl()}/nothing/here`, {
        headers: headers(server, alice),
      });
      expect(route.status).toBe(404);
    });

    it('rejects bad tokens with AccessDenied and traversal keys with InvalidKey', async () => {
      const res = await fetch(`${storageUrl()}/object/${bucket}/${alice.id}/x.txt`, {
        headers: { apikey: server.anonKey, authorization: 'Bearer not.a.jwt' },
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ statusCode: '403', code: 'AccessDenied' });
      // Dot segments, encoded so that they reach the server as sent, and bytes outside the key set.
      for (const key of [
        `${alice.id}/%2e%2e%2F%2e%2e%2Fescape.txt`,
        `${alice.id}/%2E%2E%2Fescape.txt`,
        `${alice.id}/a%5C..%5Cb.txt`,
        `${alice.id}/nul%00.txt`,
        `${alice.id}//double.txt`,
      ]) {
        const attempt = await fetch(`${storageUrl()}/object/${bucket}/${key}`, {
          method: 'POST',
          headers: { ...headers(server, alice), 'content-type': 'text/plain' },
          body: 'x',
        });
        expect(attempt.status, key).toBe(400);
        expect(await attempt.json(), key).toMatchObject({ statusCode: '400', code: 'InvalidKey' });
      }
      const read = await fetch(
        `${storageUrl()}/object/${bucket}/%2E%2E%2F%2E%2E%2F%2E%2E%2Fetc%2Fpasswd`,
        {
          headers: headers(server, 'service'),
        },
      );
      expect(await read.json()).toMatchObject({ statusCode: '400', code: 'InvalidKey' });
      const files = await server.db.query<{ n: string }>(
        "select count(*)::text as n from storage.objects where name like '%..%'",
      );
      expect(files.rows[0]?.n).toBe('0');
    });
  });
});
