import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createClient } from '../../src/client';
import { StorageError } from '../../src/storage/index';
import { bytes, ownerBucket, type RunningServer, sha256, startBackend } from '../tus/support';

let server: RunningServer;
let admin: Client;

beforeAll(async () => {
  server = await startBackend();
  await ownerBucket(server, 'files');
  admin = createClient(server.url, server.serviceRoleKey, {
    auth: { persistSession: false, autoRefreshToken: false },
  });
}, 60_000);

afterAll(() => server?.stop());

/** A signed-up, signed-in user with their client (session in memory). */
async function user() {
  const client = createClient(server.url, server.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
  });
  const { data, error } = await client.auth.signUp({
    email: `u-${randomUUID()}@example.test`,
    password: 'correct horse battery staple',
  });
  if (error) throw error;
  return { client, id: data.user?.id as string, storage: client.storage };
}

describe('storage through createClient', () => {
  it('manages buckets (service role) with the hosted response shapes', async () => {
    const id = `b-${randomUUID().slice(0, 8)}`;
    const created = await admin.storage.createBucket(id, {
      public: true,
      fileSizeLimit: 123_456,
      allowedMimeTypes: ['image/*'],
    });
    expect(created).toEqual({ data: { name: id }, error: null });
    const { data: bucket } = await admin.storage.getBucket(id);
    expect(bucket).toMatchObject({ id, name: id, public: true, allowed_mime_types: ['image/*'] });
    expect(bucket?.file_size_limit).toBe(123_456);
    const { data: list } = await admin.storage.listBuckets({ search: id });
    expect(list?.map((b) => b.id)).toEqual([id]);
    expect((await admin.storage.updateBucket(id, { public: false })).error).toBeNull();
    expect((await admin.storage.getBucket(id)).data?.public).toBe(false);
    await admin.storage.from(id).upload('a.png', new Blob([bytes(10)], { type: 'image/png' }));
    const notEmpty = await admin.storage.deleteBucket(id);
    expect(notEmpty.error).toBeInstanceOf(StorageError);
    expect(notEmpty.error?.statusCode).toBe('409');
    expect((await admin.storage.emptyBucket(id)).error).toBeNull();
    await expect.poll(async () => (await admin.storage.from(id).list()).data?.length).toBe(0);
    expect((await admin.storage.deleteBucket(id)).error).toBeNull();
    const gone = await admin.storage.getBucket(id);
    expect(gone.error).toMatchObject({ status: 400, statusCode: '404' });
  });

  it('uploads every body kind byte-exact, with content type, cache control and metadata', async () => {
    const { storage, id } = await user();
    const files = storage.from('files');
    const data = bytes(70_000, 3);
    const bodies: Array<[string, Parameters<typeof files.upload>[1], Uint8Array]> = [
      ['blob', new Blob([data]), data],
      ['arraybuffer', data.slice().buffer, data],
      ['typed', new Uint8Array(data.buffer, 1000, 5000), data.subarray(1000, 6000)],
      ['string', 'héllo wörld', new TextEncoder().encode('héllo wörld')],
      ['readable-stream', new Blob([data]).stream(), data],
      ['node-stream', Readable.from([data.subarray(0, 30_000), data.subarray(30_000)]), data],
    ];
    for (const [name, body, expected] of bodies) {
      const path = `${id}/kinds/${name}.bin`;
      const { data: up, error } = await files.upload(path, body, {
        cacheControl: 60,
        metadata: { kind: name, ünï: 'côdé' },
      });
      expect(error, name).toBeNull();
      expect(up).toMatchObject({ path, fullPath: `files/${path}` });
      expect(typeof up?.id).toBe('string');
      const { data: blob } = await files.download(path);
      expect(sha256(await (blob as Blob).arrayBuffer()), name).toBe(sha256(expected));
      const { data: info } = await files.info(path);
      expect(info).toMatchObject({ size: expected.length, cacheControl: 'max-age=60' });
      expect(info?.metadata).toEqual({ kind: name, ünï: 'côdé' });
    }
    const { data: info } = await files.info(`${id}/kinds/string.bin`);
    expect(info?.contentType).toMatch(/^text\/plain/);
  });

  it('reports upload progress on plain uploads', async () => {
    const { storage, id } = await user();
    const data = bytes(1_000_000, 8);
    const seen: Array<{ loaded: number; total: number | undefined }> = [];
    const { error } = await storage.from('files').upload(`${id}/progress.bin`, new Blob([data]), {
      onUploadProgress: (p) => seen.push(p),
    });
    expect(error).toBeNull();
    expect(seen.length).toBeGreaterThan(3);
    expect(seen[0]).toEqual({ loaded: 0, total: 1_000_000 });
    expect(seen.at(-1)).toEqual({ loaded: 1_000_000, total: 1_000_000 });
    const loaded = seen.map((p) => p.loaded);
    expect([...loaded].sort((a, b) => a - b)).toEqual(loaded);
  });

  it('upserts only when asked, and update replaces', async () => {
    const { storage, id } = await user();
    const files = storage.from('files');
    const path = `${id}/same.txt`;
    expect((await files.upload(path, 'one')).error).toBeNull();
    const dup = await files.upload(path, 'two');
    expect(dup.error).toMatchObject({ name: 'StorageApiError', status: 400, statusCode: '409' });
    expect((await files.upload(path, 'three', { upsert: true })).error).toBeNull();
    expect(await (await files.download(path)).data?.text()).toBe('three');
    expect((await files.update(path, 'four')).error).toBeNull();
    expect(await (await files.download(path)).data?.text()).toBe('four');
  });

  it('uploads a FormData body as multipart (the file part is stored, as with supabase-js)', async () => {
    const { storage, id } = await user();
    const files = storage.from('files');
    const form = new FormData();
    form.append('', new Blob(['form body'], { type: 'text/plain' }), 'form.txt');
    expect((await files.upload(`${id}/form.txt`, form, { cacheControl: '60' })).error).toBeNull();
    const { data } = await files.download(`${id}/form.txt`);
    expect(await data?.text()).toBe('form body');
    expect((await files.info(`${id}/form.txt`)).data).toMatchObject({ cacheControl: 'max-age=60' });
  });

  it('downloads as a stream, checks existence, and maps missing objects', async () => {
    const { storage, id } = await user();
    const files = storage.from('files');
    const data = bytes(300_000, 4);
    await files.upload(`${id}/s.bin`, data);
    const { data: stream } = await files.downloadStream(`${id}/s.bin`);
    const chunks: Uint8Array[] = [];
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
    expect(sha256(Buffer.concat(chunks))).toBe(sha256(data));
    expect(await files.exists(`${id}/s.bin`)).toEqual({ data: true, error: null });
    expect(await files.exists(`${id}/nope.bin`)).toEqual({ data: false, error: null });
    const missing = await files.download(`${id}/nope.bin`);
    expect(missing.error).toMatchObject({ status: 400, statusCode: '404' });
    expect(missing.error?.code).toMatch(/NoSuchKey|not_found/);
  });

  it('lists folders and files (v1 and v2 paging), moves, copies and removes', async () => {
    const { storage, id } = await user();
    const files = storage.from('files');
    for (const name of ['a.txt', 'b.txt', 'c.txt', 'sub/d.txt'])
      await files.upload(`${id}/l/${name}`, name);
    const { data: list } = await files.list(`${id}/l`);
    expect(list?.map((f) => f.name).sort()).toEqual(['a.txt', 'b.txt', 'c.txt', 'sub']);
    expect(list?.find((f) => f.name === 'sub')?.id).toBeNull();
    const page1 = await files.listV2({ prefix: `${id}/l/`, limit: 2, with_delimiter: true });
    expect(page1.error).toBeNull();
    expect(page1.data?.hasNext).toBe(true);
    const page2 = await files.listV2({
      prefix: `${id}/l/`,
      limit: 10,
      with_delimiter: true,
      cursor: page1.data?.nextCursor,
    });
    const names = [
      ...(page1.data?.folders ?? []),
      ...(page1.data?.objects ?? []),
      ...(page2.data?.folders ?? []),
      ...(page2.data?.objects ?? []),
    ].map((e) => e.name);
    const relative = names.map((n) => n.replace(`${id}/l/`, '').replace(/\/$/, ''));
    expect(relative.sort()).toEqual(['a.txt', 'b.txt', 'c.txt', 'sub']);

    expect((await files.move(`${id}/l/a.txt`, `${id}/l/moved.txt`)).error).toBeNull();
    expect((await files.exists(`${id}/l/a.txt`)).data).toBe(false);
    const copied = await files.copy(`${id}/l/b.txt`, `${id}/l/copy.txt`);
    expect(copied).toEqual({ data: { path: `files/${id}/l/copy.txt` }, error: null });
    expect(await (await files.download(`${id}/l/copy.txt`)).data?.text()).toBe('b.txt');
    const { data: removed } = await files.remove([`${id}/l/moved.txt`, `${id}/l/none.txt`]);
    expect(removed?.map((r) => r.name)).toEqual([`${id}/l/moved.txt`]);
  });

  it('respects RLS: another user can neither read nor write my folder', async () => {
    const me = await user();
    const other = await user();
    await me.storage.from('files').upload(`${me.id}/private.txt`, 'mine');
    const read = await other.storage.from('files').download(`${me.id}/private.txt`);
    expect(read.error?.statusCode).toBe('404');
    const write = await other.storage.from('files').upload(`${me.id}/evil.txt`, 'x');
    expect(write.error).toMatchObject({ statusCode: '403' });
    expect((await other.storage.from('files').list(me.id)).data).toEqual([]);
  });

  it('signs download URLs (one and many) and upload URLs usable without a session', async () => {
    const { storage, id } = await user();
    const files = storage.from('files');
    await files.upload(`${id}/signed.txt`, 'signed body');
    const { data: one } = await files.createSignedUrl(`${id}/signed.txt`, 60, {
      download: 'x.txt',
    });
    expect(one?.signedUrl).toMatch(
      /\/storage\/v1\/object\/sign\/files\/.+\?token=.+&download=x\.txt$/,
    );
    const res = await fetch(one?.signedUrl as string);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('signed body');
    expect(res.headers.get('content-disposition')).toMatch(/attachment/);
    const { data: many } = await files.createSignedUrls(
      [`${id}/signed.txt`, `${id}/missing.txt`],
      60,
    );
    expect(many?.[0]?.error).toBeNull();
    expect(many?.[1]?.signedUrl).toBeNull();
    expect(many?.[1]?.error).toBeTruthy();

    const { data: upload } = await files.createSignedUploadUrl(`${id}/via-token.txt`);
    expect(upload?.signedUrl).toContain(
      `/storage/v1/object/upload/sign/files/${id}/via-token.txt?token=`,
    );
    const anonymous = createClient(server.url, server.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false },
    });
    const put = await anonymous.storage
      .from('files')
      .uploadToSignedUrl(`${id}/via-token.txt`, upload?.token as string, 'from a link');
    expect(put).toEqual({
      data: { path: `${id}/via-token.txt`, fullPath: `files/${id}/via-token.txt` },
      error: null,
    });
    expect(await (await files.download(`${id}/via-token.txt`)).data?.text()).toBe('from a link');
  });

  it('builds public URLs that serve objects of public buckets', async () => {
    const id = `pub-${randomUUID().slice(0, 8)}`;
    await admin.storage.createBucket(id, { public: true });
    await admin.storage.from(id).upload('dir/p q.txt', 'public!');
    const { data } = admin.storage.from(id).getPublicUrl('dir/p q.txt');
    expect(data.publicUrl).toBe(`${server.url}/storage/v1/object/public/${id}/dir/p%20q.txt`);
    expect(await (await fetch(data.publicUrl)).text()).toBe('public!');
    expect(
      admin.storage.from(id).getPublicUrl('a.png', { transform: { width: 100 }, download: true })
        .data.publicUrl,
    ).toBe(`${server.url}/storage/v1/render/image/public/${id}/a.png?download=&width=100`);
  });

  it('runs resumable uploads with the signed-in session', async () => {
    const { storage, id } = await user();
    const data = bytes(2_000_000, 12);
    const upload = storage.from('files').uploadResumable(`${id}/tus.bin`, new Blob([data]), {
      urlStore: false,
      chunkSize: 512 * 1024,
      metadata: { via: 'tus' },
      contentType: 'application/x-test',
    });
    const { error } = await upload.result;
    expect(error).toBeNull();
    const { data: info } = await storage.from('files').info(`${id}/tus.bin`);
    expect(info).toMatchObject({
      size: data.length,
      contentType: 'application/x-test',
      metadata: { via: 'tus' },
    });
  });
});
