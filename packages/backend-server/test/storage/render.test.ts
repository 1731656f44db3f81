import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SupabaseClient } from '@supabase/supabase-js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { client, headers, mintUser, policiesDir, type TestUser, uniqueBucket } from './support';

/** A solid-colour test image (noise when `noise`, for images that do not compress). */
async function image(
  width: number,
  height: number,
  options: { format?: 'jpeg' | 'png'; rgb?: [number, number, number]; alpha?: boolean } = {},
): Promise<Buffer> {
  const [r, g, b] = options.rgb ?? [200, 30, 30];
  const channels = options.alpha ? 4 : 3;
  const base = sharp({
    create: {
      width,
      height,
      channels,
      background: options.alpha ? { r, g, b, alpha: 0.5 } : { r, g, b },
    },
  });
  return options.format === 'png' ? base.png().toBuffer() : base.jpeg().toBuffer();
}

/** Random pixels, as a JPEG of about `width * height * 0.8` bytes. */
async function noise(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 7919 + (i >> 5) * 104729) % 251;
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 100 })
    .toBuffer();
}

const meta = async (res: Response) => {
  const bytes = Buffer.from(await res.arrayBuffer());
  const m = await sharp(bytes).metadata();
  return { format: m.format, width: m.width, height: m.height, bytes };
};

/** Files under the render cache dir. */
async function cached(storageDir: string): Promise<string[]> {
  const root = join(storageDir, 'render');
  const out: string[] = [];
  for (const shard of await readdir(root)) {
    if (shard === 'tmp') continue;
    for (const version of await readdir(join(root, shard))) {
      for (const name of await readdir(join(root, shard, version))) {
        out.push(join(root, shard, version, name));
      }
    }
  }
  return out;
}

describe(`image transformations (${databaseKind()})`, () => {
  let server: RunningServer;
  let dataDir: string;
  let alice: TestUser;
  let bob: TestUser;
  let asAlice: SupabaseClient;
  let service: SupabaseClient;
  let bucket: string;
  let publicBucket: string;
  const storageDir = () => join(dataDir, 'storage');
  const url = (path: string) => `${server.url}/storage/v1${path}`;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'render-test-'));
    server = await startTestServer({
      dataDir,
      migrationsDir: await policiesDir(),
      storage: {
        imageTransformation: {
          maxSourceBytes: 400_000,
          maxSourcePixels: 4_000_000,
          maxDimension: 1000,
        },
      },
    });
    alice = await mintUser(server);
    bob = await mintUser(server);
    asAlice = client(server, alice);
    service = client(server, 'service');
    bucket = uniqueBucket('img');
    publicBucket = uniqueBucket('pubimg');
    expect((await service.storage.createBucket(bucket)).error).toBeNull();
    expect((await service.storage.createBucket(publicBucket, { public: true })).error).toBeNull();
  });
  afterAll(() => server?.stop());

  const put = async (path: string, bytes: Buffer, type = 'image/jpeg') => {
    const { error } = await asAlice.storage
      .from(bucket)
      .upload(path, bytes, { contentType: type, upsert: true, cacheControl: '120' });
    expect(error).toBeNull();
  };
  const render = (path: string, query: string, as: TestUser | 'anon' = alice, extra = {}) =>
    fetch(url(`/render/image/authenticated/${bucket}/${path}?${query}`), {
      headers: { ...headers(server, as), ...extra },
    });

  it('resizes with cover, contain and fill as the hosted service does, with its headers', async () => {
    const path = `${alice.id}/photo.jpg`;
    await put(path, await image(400, 300));
    const cover = await render(path, 'width=200&height=200');
    expect(cover.status).toBe(200);
    expect(cover.headers.get('content-type')).toBe('image/jpeg');
    expect(cover.headers.get('x-transformations')).toBe('height:200,width:200,resizing_type:fill');
    expect(cover.headers.get('cache-control')).toBe('max-age=120');
    expect(cover.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
    const coverImage = await meta(cover);
    expect(coverImage).toMatchObject({ format: 'jpeg', width: 200, height: 200 });
    expect(cover.headers.get('content-length')).toBe(String(coverImage.bytes.length));

    const contain = await render(path, 'width=200&height=200&resize=contain');
    expect(contain.headers.get('x-transformations')).toBe('height:200,width:200,resizing_type:fit');
    expect(await meta(contain)).toMatchObject({ width: 200, height: 150 });
    const fill = await render(path, 'width=200&height=100&resize=fill&quality=50');
    expect(fill.headers.get('x-transformations')).toBe(
      'height:100,width:200,resizing_type:force,quality:50',
    );
    expect(await meta(fill)).toMatchObject({ width: 200, height: 100 });
    expect(await meta(await render(path, 'width=100'))).toMatchObject({ width: 100, height: 75 });
    // Never enlarged; dimensions past the limit are clamped to it (here 1000).
    const big = await render(path, 'width=5000');
    expect(big.headers.get('x-transformations')).toBe('width:1000,resizing_type:fill');
    expect(await meta(big)).toMatchObject({ width: 400, height: 300 });

    const head = await fetch(url(`/render/image/authenticated/${bucket}/${path}?width=100`), {
      method: 'HEAD',
      headers: headers(server, alice),
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('image/jpeg');
    const named = await render(path, 'width=100&download=thumb.jpg');
    expect(named.headers.get('content-disposition')).toBe(
      "attachment; filename=thumb.jpg; filename*=UTF-8''thumb.jpg",
    );
  });

  it('answers WebP to clients that accept it, the source format for origin, and avif/webp on request', async () => {
    const path = `${alice.id}/format.jpg`;
    await put(path, await image(300, 300));
    const accept = { accept: 'image/avif,image/webp,image/apng,*/*;q=0.8' };
    const auto = await render(path, 'width=100', alice, accept);
    expect(auto.headers.get('content-type')).toBe('image/webp');
    expect((await meta(auto)).format).toBe('webp');
    const origin = await render(path, 'width=100&format=origin', alice, accept);
    expect(origin.headers.get('content-type')).toBe('image/jpeg');
    expect(origin.headers.get('x-transformations')).toBe('width:100,resizing_type:fill');
    const avif = await render(path, 'width=100&format=avif');
    expect(avif.headers.get('content-type')).toBe('image/avif');
    expect(avif.headers.get('x-transformations')).toBe('width:100,resizing_type:fill,format:avif');
    expect((await meta(avif)).format).toBe('heif');
    const webp = await render(path, 'width=100&format=webp', alice, { accept: 'image/png' });
    expect(webp.headers.get('content-type')).toBe('image/webp');

    const png = `${alice.id}/alpha.png`;
    await put(png, await image(120, 80, { format: 'png', alpha: true }), 'image/png');
    const kept = await render(png, 'width=60');
    expect(kept.headers.get('content-type')).toBe('image/png');
    expect(await meta(kept)).toMatchObject({ format: 'png', width: 60, height: 40 });
  });

  it('decides access as a download does: RLS for authenticated, public buckets, tokens', async () => {
    const path = `${alice.id}/private.jpg`;
    await put(path, await image(100, 100));
    const denied = await render(path, 'width=50', bob);
    expect(denied.status).toBe(400);
    expect(await denied.json()).toEqual({
      statusCode: '404',
      code: 'NoSuchKey',
      error: 'not_found',
      message: 'Object not found',
    });
    const noToken = await fetch(url(`/render/image/authenticated/${bucket}/${path}?width=50`));
    expect(noToken.status).toBe(400);
    expect(await noToken.json()).toMatchObject({
      statusCode: '403',
      code: 'AccessDenied',
      message: 'Invalid Compact JWS',
    });
    const notPublic = await fetch(url(`/render/image/public/${bucket}/${path}?width=50`));
    expect(await notPublic.json()).toMatchObject({ statusCode: '404', code: 'NoSuchBucket' });

    const { error } = await service.storage
      .from(publicBucket)
      .upload('open.jpg', await image(100, 100), { contentType: 'image/jpeg' });
    expect(error).toBeNull();
    const { data } = service.storage
      .from(publicBucket)
      .getPublicUrl('open.jpg', { transform: { width: 40, height: 40 } });
    expect(data.publicUrl).toBe(
      url(`/render/image/public/${publicBucket}/open.jpg?width=40&height=40`),
    );
    const open = await fetch(data.publicUrl);
    expect(open.status).toBe(200);
    expect(await meta(open)).toMatchObject({ width: 40, height: 40 });
    const missing = await fetch(url(`/render/image/public/${publicBucket}/none.jpg?width=40`));
    expect(await missing.json()).toMatchObject({ statusCode: '404', code: 'NoSuchKey' });
  });

  it('signs render URLs whose token carries the transformation', async () => {
    const path = `${alice.id}/signed.jpg`;
    await put(path, await image(300, 200));
    const { data, error } = await asAlice.storage.from(bucket).createSignedUrl(path, 600, {
      transform: { width: 100, height: 100, quality: 60 },
      download: 'small.jpg',
    });
    expect(error).toBeNull();
    const signed = data?.signedUrl ?? '';
    expect(signed).toContain(`/storage/v1/render/image/sign/${bucket}/${path}?token=`);
    const res = await fetch(signed);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-transformations')).toBe(
      'height:100,width:100,resizing_type:fill,quality:60',
    );
    expect(res.headers.get('expires')).toMatch(/GMT$/);
    expect(res.headers.get('cache-control')).toBeNull();
    expect(res.headers.get('content-disposition')).toContain('filename=small.jpg');
    expect(await meta(res)).toMatchObject({ width: 100, height: 100 });
    // The options are the token's: the query cannot change them.
    const tampered = await fetch(`${signed}&width=900&height=900`);
    expect(await meta(tampered)).toMatchObject({ width: 100, height: 100 });
    const token = new URL(signed).searchParams.get('token');
    const elsewhere = await fetch(
      url(`/render/image/sign/${bucket}/${alice.id}/other.jpg?token=${token}`),
    );
    expect(await elsewhere.json()).toMatchObject({
      statusCode: '400',
      code: 'InvalidSignature',
      message: 'Invalid signature',
    });

    const plain = await asAlice.storage.from(bucket).createSignedUrl(path, 600, { transform: {} });
    expect(plain.data?.signedUrl).toContain(`/storage/v1/object/sign/${bucket}/${path}?token=`);
    const bad = await fetch(url(`/object/sign/${bucket}/${path}`), {
      method: 'POST',
      headers: { ...headers(server, alice), 'content-type': 'application/json' },
      body: JSON.stringify({ expiresIn: 60, transform: { width: 10, quality: 5 } }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      statusCode: '400',
      message: 'body/transform/quality must be >= 20',
    });
  });

  it('answers bad options, non-images, corrupt images and oversized sources with a hosted 400', async () => {
    const shape = (message: string) => ({
      statusCode: '400',
      code: 'InvalidRequest',
      error: 'InvalidRequest',
      message,
    });
    const path = `${alice.id}/ok.jpg`;
    await put(path, await image(50, 50));
    for (const [query, message] of [
      ['width=abc', 'querystring/width must be integer'],
      ['height=-1', 'querystring/height must be >= 0'],
      ['resize=crop', 'querystring/resize must be equal to one of the allowed values'],
      ['format=gif', 'querystring/format must be equal to one of the allowed values'],
      ['quality=101', 'querystring/quality must be <= 100'],
    ] as const) {
      const res = await render(path, query);
      expect(res.status, query).toBe(400);
      expect(await res.json(), query).toMatchObject({ statusCode: '400', message });
    }

    const text = `${alice.id}/notes.txt`;
    await put(text, Buffer.from('not an image at all'), 'text/plain');
    const notImage = await render(text, 'width=10');
    expect(notImage.status).toBe(400);
    expect(await notImage.json()).toEqual(
      shape('The source image is invalid or unsupported for rendering'),
    );
    const whole = await image(200, 200);
    const broken = `${alice.id}/broken.jpg`;
    await put(broken, Buffer.concat([whole.subarray(0, 200), Buffer.alloc(300, 7)]));
    const corrupt = await render(broken, 'width=10');
    expect(corrupt.status).toBe(400);
    expect(await corrupt.json()).toEqual(
      shape('The source image is invalid or unsupported for rendering'),
    );

    const huge = `${alice.id}/huge.png`;
    await put(huge, await image(2100, 2000, { format: 'png' }), 'image/png');
    const pixels = await render(huge, 'width=10');
    expect(pixels.status).toBe(400);
    expect(await pixels.json()).toEqual(
      shape('The source image resolution is too large to process'),
    );
    const heavy = `${alice.id}/heavy.jpg`;
    const heavyBytes = await noise(700, 700);
    expect(heavyBytes.length).toBeGreaterThan(400_000);
    await put(heavy, heavyBytes);
    const bytes = await render(heavy, 'width=10');
    expect(bytes.status).toBe(400);
    expect(await bytes.json()).toEqual(shape('The source image file is too large to process'));
    // The server is still fine.
    expect((await render(path, 'width=10')).status).toBe(200);
  });

  it('caches rendered variants on disk and drops them when the object changes', async () => {
    const path = `${alice.id}/cached.jpg`;
    const files = asAlice.storage.from(bucket);
    await put(path, await image(200, 200, { rgb: [250, 0, 0] }));
    const before = new Set(await cached(storageDir()));
    const first = await meta(await render(path, 'width=64&height=64'));
    const added = (await cached(storageDir())).filter((f) => !before.has(f));
    expect(added).toHaveLength(1);
    const [file] = added as [string];
    expect(await readFile(file)).toEqual(first.bytes);
    // A second request is served from that file: mark it and see the mark come back.
    const marked = Buffer.concat([first.bytes, Buffer.from('cache-mark')]);
    await writeFile(file, marked);
    const second = await render(path, 'width=64&height=64');
    expect(Buffer.from(await second.arrayBuffer())).toEqual(marked);

    // Overwritten: a new version, rendered anew (blue now), the old variants gone.
    await put(path, await image(200, 200, { rgb: [0, 0, 250] }));
    await expect.poll(async () => (await cached(storageDir())).includes(file)).toBe(false);
    const blue = await render(path, 'width=64&height=64');
    const { data, info } = await sharp(Buffer.from(await blue.arrayBuffer()))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(info.width).toBe(64);
    expect(data[2]).toBeGreaterThan(200);
    expect(data[0]).toBeLessThan(50);

    const variants = async () => (await cached(storageDir())).filter((f) => !before.has(f));
    expect(await variants()).toHaveLength(1);
    // Moved: the variants of that version go too; the new path renders.
    expect((await files.move(path, `${alice.id}/moved.jpg`)).error).toBeNull();
    expect(await variants()).toHaveLength(0);
    expect((await render(`${alice.id}/moved.jpg`, 'width=32')).status).toBe(200);
    expect(await variants()).toHaveLength(1);
    // Deleted: gone.
    expect((await files.remove([`${alice.id}/moved.jpg`])).error).toBeNull();
    expect(await variants()).toHaveLength(0);
    // Emptied bucket: gone.
    await put(`${alice.id}/again.jpg`, await image(100, 100));
    expect((await render(`${alice.id}/again.jpg`, 'width=32')).status).toBe(200);
    expect(await variants()).toHaveLength(1);
    expect((await service.storage.emptyBucket(bucket)).error).toBeNull();
    expect(await variants()).toHaveLength(0);
  });
});
