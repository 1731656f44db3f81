/**
 * Image transformations through the SDK (`transform` on getPublicUrl, createSignedUrl(s),
 * download and downloadStream) against a real server, next to the official client where it
 * has the call.
 */
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StorageClient } from '../../src/storage/index';
import { officialClient } from '../support/official';
import {
  clientFor,
  newUser,
  ownerBucket,
  type RunningServer,
  startBackend,
  type TestUser,
} from '../tus/support';

let server: RunningServer;
let user: TestUser;
let ours: StorageClient;
let official: ReturnType<typeof officialClient>['storage'];
let publicBucket: string;
let photo: string;

const jpeg = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 20, g: 120, b: 220 } } })
    .jpeg()
    .toBuffer();

const dims = async (blob: Blob | null) => {
  const m = await sharp(Buffer.from(await (blob as Blob).arrayBuffer())).metadata();
  return { format: m.format, width: m.width, height: m.height };
};

beforeAll(async () => {
  server = await startBackend();
  await ownerBucket(server, 'pics');
  user = newUser(server);
  const withToken = (input: Request | string | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${user.token}`);
    return fetch(input, { ...init, headers });
  };
  ours = clientFor(server, user).storage;
  official = officialClient(server.url, server.anonKey, { fetch: withToken }).storage;
  photo = `${user.id}/photo.jpg`;
  const up = await ours.from('pics').upload(photo, new Blob([await jpeg(400, 300)]), {
    contentType: 'image/jpeg',
  });
  expect(up.error).toBeNull();
  publicBucket = `pub-${randomUUID().slice(0, 8)}`;
  await server.db.query('insert into storage.buckets (id, name, public) values ($1, $1, true)', [
    publicBucket,
  ]);
  await server.db.query(
    `create policy "service writes ${publicBucket}" on storage.objects for insert to authenticated
       with check (bucket_id = '${publicBucket}')`,
  );
  const pub = await ours
    .from(publicBucket)
    .upload('cat.jpg', new Blob([await jpeg(300, 300)]), { contentType: 'image/jpeg' });
  expect(pub.error).toBeNull();
}, 60_000);

afterAll(() => server?.stop());

describe('storage transform', () => {
  it('builds the same public URLs as the official client, and they serve the transformed image', async () => {
    const cases = [
      { transform: { width: 200, height: 100 } },
      { transform: { width: 120, resize: 'contain' as const, quality: 70 }, download: true },
      { transform: { height: 50, format: 'origin' as const }, cacheNonce: '7' },
      { transform: {} },
      { download: 'cat.jpg' },
    ];
    for (const options of cases) {
      const mine = ours.from(publicBucket).getPublicUrl('cat.jpg', options).data.publicUrl;
      const theirs = official.from(publicBucket).getPublicUrl('cat.jpg', options).data.publicUrl;
      expect(mine, JSON.stringify(options)).toBe(theirs);
    }
    const { data } = ours
      .from(publicBucket)
      .getPublicUrl('cat.jpg', { transform: { width: 100, height: 60 } });
    expect(data.publicUrl).toBe(
      `${server.url}/storage/v1/render/image/public/${publicBucket}/cat.jpg?width=100&height=60`,
    );
    const res = await fetch(data.publicUrl);
    expect(res.status).toBe(200);
    expect(await dims(await res.blob())).toEqual({ format: 'jpeg', width: 100, height: 60 });
  });

  it('downloads transformed images as the official client does (Blob and stream)', async () => {
    const transform = { width: 200, height: 200 };
    const mine = await ours.from('pics').download(photo, { transform });
    const theirs = await official.from('pics').download(photo, { transform });
    expect(mine.error).toBeNull();
    expect(theirs.error).toBeNull();
    expect(mine.data?.type).toBe('image/jpeg');
    expect(await dims(mine.data)).toEqual({ format: 'jpeg', width: 200, height: 200 });
    expect(Buffer.from(await (mine.data as Blob).arrayBuffer())).toEqual(
      Buffer.from(await (theirs.data as Blob).arrayBuffer()),
    );
    const stream = await ours
      .from('pics')
      .downloadStream(photo, { transform: { width: 80, resize: 'contain' } });
    expect(stream.error).toBeNull();
    const streamed = await new Response(stream.data).blob();
    expect(await dims(streamed)).toEqual({ format: 'jpeg', width: 80, height: 60 });
    // An empty transform is a plain download.
    const plain = await ours.from('pics').download(photo, { transform: {} });
    expect(await dims(plain.data)).toEqual({ format: 'jpeg', width: 400, height: 300 });
    const missing = await ours.from('pics').download(`${user.id}/none.jpg`, { transform });
    expect(missing.error).toMatchObject({ status: 400, statusCode: '404', code: 'NoSuchKey' });
    const bad = await ours.from('pics').download(photo, { transform: { width: 10, quality: 5 } });
    expect(bad.error).toMatchObject({ status: 400, statusCode: '400' });
  });

  it('signs render URLs like the official client; the token carries the transformation', async () => {
    const options = { transform: { width: 100, height: 100, quality: 60 }, download: true };
    const mine = await ours.from('pics').createSignedUrl(photo, 600, options);
    const theirs = await official.from('pics').createSignedUrl(photo, 600, options);
    expect(mine.error).toBeNull();
    const withoutToken = (u: string) => u.replace(/token=[^&]+/, 'token=T');
    expect(withoutToken(mine.data?.signedUrl ?? '')).toBe(
      withoutToken(theirs.data?.signedUrl ?? ''),
    );
    expect(mine.data?.signedUrl).toMatch(
      new RegExp(`/storage/v1/render/image/sign/pics/${photo}\\?token=[^&]+&download=$`),
    );
    const res = await fetch(mine.data?.signedUrl as string);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-transformations')).toBe(
      'height:100,width:100,resizing_type:fill,quality:60',
    );
    expect(await dims(await res.blob())).toEqual({ format: 'jpeg', width: 100, height: 100 });
  });

  it('signs several render URLs (each on its own), with per-path errors', async () => {
    const second = `${user.id}/second.jpg`;
    await ours.from('pics').upload(second, new Blob([await jpeg(90, 90)]), {
      contentType: 'image/jpeg',
    });
    const missing = `${user.id}/missing.jpg`;
    const { data, error } = await ours
      .from('pics')
      .createSignedUrls([photo, missing, second], 600, {
        transform: { width: 40, height: 40 },
        cacheNonce: 'n1',
      });
    expect(error).toBeNull();
    expect(data?.map((d) => [d.path, d.error])).toEqual([
      [photo, null],
      [missing, 'Either the object does not exist or you do not have access to it'],
      [second, null],
    ]);
    expect(data?.[1]?.signedUrl).toBeNull();
    for (const entry of [data?.[0], data?.[2]]) {
      expect(entry?.signedUrl).toMatch(
        /\/render\/image\/sign\/pics\/.+\?token=[^&]+&cacheNonce=n1$/,
      );
      const res = await fetch(entry?.signedUrl as string);
      expect(await dims(await res.blob())).toEqual({ format: 'jpeg', width: 40, height: 40 });
    }
    // Without a transform: the batch endpoint, plain object URLs.
    const plain = await ours.from('pics').createSignedUrls([photo], 600);
    expect(plain.data?.[0]?.signedUrl).toContain(`/storage/v1/object/sign/pics/${photo}?token=`);
    // A failure that is not about one path fails the call.
    const anon = clientFor(server, { token: 'not-a-jwt' }).storage;
    const denied = await anon.from('pics').createSignedUrls([photo], 60, {
      transform: { width: 10 },
    });
    expect(denied.data).toBeNull();
    expect(denied.error).toMatchObject({ statusCode: '403', message: 'Invalid Compact JWS' });
  });
});
