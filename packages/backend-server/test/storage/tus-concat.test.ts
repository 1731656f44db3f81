/**
 * tus's concatenation extension: parts uploaded at the same time as partial uploads, joined
 * by a final upload. tus-js-client's `parallelUploads` is the oracle; the raw requests check
 * the refusals, and that a refused final upload loses no part.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SupabaseClient } from '@supabase/supabase-js';
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
import { CHUNK, startTus } from './tus-support';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe(`tus concatenation (${databaseKind()})`, () => {
  let server: RunningServer;
  let alice: TestUser;
  let bob: TestUser;
  let service: SupabaseClient;
  let bucket: string;
  const endpoint = () => `${server.url}/storage/v1/upload/resumable`;
  const tus = (user: TestUser, extra: Record<string, string> = {}) => ({
    ...headers(server, user),
    'tus-resumable': '1.0.0',
    ...extra,
  });
  const metadata = (name: string, to = bucket) =>
    `bucketName ${b64(to)},objectName ${b64(name)},contentType ${b64('application/octet-stream')}`;
  /** Creates a partial upload of `name` carrying all of `data`; returns its URL. */
  const partial = async (
    user: TestUser,
    name: string,
    data: Buffer,
    send = data.length,
    extra: Record<string, string> = {},
  ) => {
    const res = await fetch(endpoint(), {
      method: 'POST',
      headers: tus(user, {
        ...extra,
        'upload-concat': 'partial',
        'upload-length': String(data.length),
        'upload-metadata': metadata(name),
        'content-type': 'application/offset+octet-stream',
      }),
      body: data.subarray(0, send),
    });
    expect(res.status).toBe(201);
    return res.headers.get('location') as string;
  };
  const final = (user: TestUser, name: string, urls: string[], extra = {}) =>
    fetch(endpoint(), {
      method: 'POST',
      headers: tus(user, {
        'upload-concat': `final;${urls.join(' ')}`,
        'upload-metadata': metadata(name),
        ...extra,
      }),
    });
  const download = async (user: TestUser, name: string) => {
    const { data, error } = await client(server, user).storage.from(bucket).download(name);
    if (error) throw error;
    return Buffer.from(await data.arrayBuffer());
  };
  /** The tus directory's files, but for the records of uploads done (kept until they expire). */
  const tusFiles = async () => {
    const dir = join(server.storageDir, 'tus');
    const names = await readdir(dir);
    const done = await Promise.all(
      names.map(
        async (n) =>
          n.endsWith('.json') &&
          (JSON.parse(await readFile(join(dir, n), 'utf8')) as { storage_done?: boolean })
            .storage_done === true,
      ),
    );
    return names.filter((_, i) => !done[i]);
  };

  beforeAll(async () => {
    server = await startTestServer({ migrationsDir: await policiesDir() });
    alice = await mintUser(server);
    bob = await mintUser(server);
    service = client(server, 'service');
    bucket = uniqueBucket('concat');
    await service.storage.createBucket(bucket, { public: false });
  });
  afterAll(() => server?.stop());

  it('says it has the extension', async () => {
    const res = await fetch(endpoint(), { method: 'OPTIONS' });
    expect(res.headers.get('tus-extension')?.split(',')).toContain('concatenation');
  });

  it("stores what tus-js-client's parallel uploads send, byte-exact, and keeps no part", async () => {
    const data = randomBytes(3 * CHUNK + 777);
    const name = `${alice.id}/parallel/three.bin`;
    const meta = { bucketName: bucket, objectName: name, contentType: 'application/x-test' };
    const before = await tusFiles();
    const run = startTus(data, {
      endpoint: endpoint(),
      headers: headers(server, alice),
      parallelUploads: 3,
      metadata: meta,
      metadataForPartialUploads: meta,
      removeFingerprintOnSuccess: true,
    });
    await run.done;
    const posts = run.responses.filter((r) => r.method === 'POST');
    expect(posts.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(sha256(await download(alice, name))).toBe(sha256(data));
    const info = await client(server, alice).storage.from(bucket).info(name);
    expect(info.data).toMatchObject({ size: data.length, contentType: 'application/x-test' });
    // The final upload answers as complete, and says what it is.
    const head = await fetch(run.upload.url as string, { method: 'HEAD', headers: tus(alice) });
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe(String(data.length));
    expect(head.headers.get('upload-concat')).toMatch(/^final;/);
    expect((await tusFiles()).sort()).toEqual(before.sort());
  });

  it('refuses a final upload over unknown or foreign parts, and loses no part', async () => {
    const name = `${alice.id}/parallel/checked.bin`;
    const a = randomBytes(1000);
    const b = randomBytes(2000);
    const first = await partial(alice, name, a);
    const second = await partial(alice, name, b, 500);
    const head = await fetch(second, { method: 'HEAD', headers: tus(alice) });
    expect(head.headers.get('upload-concat')).toBe('partial');
    expect(head.headers.get('upload-offset')).toBe('500');

    const elsewhere = await partial(alice, `${alice.id}/parallel/other.bin`, a);
    const foreign = await final(alice, name, [first, elsewhere]);
    expect(foreign.status).toBe(400);
    expect(await foreign.text()).toMatch(/another object/);

    const gone = `${first.slice(0, first.lastIndexOf('/'))}/${Buffer.from(
      `${bucket}/${name}/00000000-0000-4000-8000-000000000000`,
    ).toString('base64url')}`;
    expect((await final(alice, name, [first, gone])).status).toBe(404);
    expect((await final(alice, name, [first, first])).status).toBe(400);

    // A whole upload is not a part.
    const whole = await fetch(endpoint(), {
      method: 'POST',
      headers: tus(alice, { 'upload-length': '10', 'upload-metadata': metadata(name) }),
    });
    expect(
      (await final(alice, name, [first, whole.headers.get('location') as string])).status,
    ).toBe(400);
    // Bob may not join Alice's parts into her folder, nor make parts there.
    expect((await final(bob, name, [first, second])).status).toBe(403);
    const bobs = await fetch(endpoint(), {
      method: 'POST',
      headers: tus(bob, {
        'upload-concat': 'partial',
        'upload-length': '10',
        'upload-metadata': metadata(name),
      }),
    });
    expect(bobs.status).toBe(403);

    // Every refusal left the parts as they were: finishing the second part, the join works.
    const rest = await fetch(second, {
      method: 'PATCH',
      headers: tus(alice, {
        'upload-offset': '500',
        'content-type': 'application/offset+octet-stream',
      }),
      body: b.subarray(500),
    });
    expect(rest.status).toBe(204);
    const joined = await final(alice, name, [first, second], { 'upload-length': '3000' });
    expect(joined.status).toBe(201);
    expect(sha256(await download(alice, name))).toBe(sha256(Buffer.concat([a, b])));
    // A final upload takes no more bytes.
    const patch = await fetch(joined.headers.get('location') as string, {
      method: 'PATCH',
      headers: tus(alice, {
        'upload-offset': '3000',
        'content-type': 'application/offset+octet-stream',
      }),
      body: Buffer.from('x'),
    });
    expect(patch.status).toBe(403);
    // The parts were taken: they cannot be joined again.
    expect((await final(alice, name, [first, second], { 'x-upsert': 'true' })).status).toBe(404);
  });

  it('takes a final upload before its parts are sent, and commits with the last byte', async () => {
    const name = `${alice.id}/parallel/early.bin`;
    const [a, b, c] = [randomBytes(3000), randomBytes(3000), randomBytes(1234)];
    const before = await tusFiles();
    // The first part has some bytes before the final upload: they are moved into place.
    const parts = [
      await partial(alice, name, a, 1000),
      await partial(alice, name, b, 0),
      await partial(alice, name, c, 0),
    ];
    const early = await final(alice, name, parts);
    expect(early.status).toBe(201);
    const url = early.headers.get('location') as string;
    expect(early.headers.get('upload-concat')).toBe(`final;${parts.join(' ')}`);
    // Asked again (a client resuming), it is the same final upload.
    const again = await final(alice, name, parts);
    expect(again.headers.get('location')).toBe(url);
    // Not complete yet: HEAD tells no offset, PATCH is refused, the parts keep theirs.
    const head = await fetch(url, { method: 'HEAD', headers: tus(alice) });
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBeNull();
    expect(head.headers.get('upload-concat')).toBe(`final;${parts.join(' ')}`);
    const patchFinal = await fetch(url, {
      method: 'PATCH',
      headers: tus(alice, {
        'upload-offset': '0',
        'content-type': 'application/offset+octet-stream',
      }),
      body: Buffer.from('x'),
    });
    expect(patchFinal.status).toBe(403);
    const offset = async (part: string) =>
      (await fetch(part, { method: 'HEAD', headers: tus(alice) })).headers.get('upload-offset');
    expect(await Promise.all(parts.map(offset))).toEqual(['1000', '0', '0']);
    const send = (part: string, at: number, bytes: Buffer) =>
      fetch(part, {
        method: 'PATCH',
        headers: tus(alice, {
          'upload-offset': String(at),
          'content-type': 'application/offset+octet-stream',
        }),
        body: bytes,
      });
    expect((await send(parts[1] as string, 0, b)).status).toBe(204);
    expect((await send(parts[0] as string, 1000, a.subarray(1000, 2000))).status).toBe(204);
    expect((await client(server, alice).storage.from(bucket).exists(name)).data).toBe(false);
    // The two last parts finish at the same time: the object is committed once, whole.
    const last = await Promise.all([
      send(parts[0] as string, 2000, a.subarray(2000)),
      send(parts[2] as string, 0, c),
    ]);
    expect(last.map((r) => r.status)).toEqual([204, 204]);
    expect(sha256(await download(alice, name))).toBe(sha256(Buffer.concat([a, b, c])));
    const done = await fetch(url, { method: 'HEAD', headers: tus(alice) });
    expect(done.headers.get('upload-offset')).toBe(String(7234));
    expect(await Promise.all(parts.map(offset))).toEqual(['3000', '3000', '1234']);
    expect((await final(alice, name, parts)).headers.get('location')).toBe(url);
    expect((await tusFiles()).sort()).toEqual(before.sort());
  });

  it('refuses a final upload before its parts when a part has no known length', async () => {
    const name = `${alice.id}/parallel/deferred.bin`;
    const known = await partial(alice, name, randomBytes(10), 0);
    const deferred = await fetch(endpoint(), {
      method: 'POST',
      headers: tus(alice, {
        'upload-concat': 'partial',
        'upload-defer-length': '1',
        'upload-metadata': metadata(name),
      }),
    });
    expect(deferred.status).toBe(201);
    const res = await final(alice, name, [known, deferred.headers.get('location') as string]);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/unknown length/);
  });

  it('terminates a finished part (it is no object), and its owner only', async () => {
    const name = `${alice.id}/parallel/dropped.bin`;
    const part = await partial(alice, name, randomBytes(100));
    const del = (user: TestUser) => fetch(part, { method: 'DELETE', headers: tus(user) });
    expect((await del(bob)).status).toBe(403);
    expect((await del(alice)).status).toBe(204);
    expect((await fetch(part, { method: 'HEAD', headers: tus(alice) })).status).toBe(404);
  });

  it("keeps the bucket's size limit over the whole, and the object's upsert rule", async () => {
    const small = uniqueBucket('concat-small');
    await service.storage.createBucket(small, { public: false, fileSizeLimit: 1500 });
    const name = `${alice.id}/limit.bin`;
    const part = async (data: Buffer) => {
      const res = await fetch(endpoint(), {
        method: 'POST',
        headers: tus(alice, {
          'upload-concat': 'partial',
          'upload-length': String(data.length),
          'upload-metadata': metadata(name, small),
          'content-type': 'application/offset+octet-stream',
        }),
        body: data,
      });
      expect(res.status).toBe(201);
      return res.headers.get('location') as string;
    };
    const parts = [await part(randomBytes(1000)), await part(randomBytes(1000))];
    const over = await fetch(endpoint(), {
      method: 'POST',
      headers: tus(alice, {
        'upload-concat': `final;${parts.join(' ')}`,
        'upload-metadata': metadata(name, small),
      }),
    });
    expect(over.status).toBe(413);

    const existing = `${alice.id}/parallel/existing.bin`;
    await client(server, alice)
      .storage.from(bucket)
      .upload(existing, new Blob(['old']));
    // An existing object is refused at the first part already, unless it is replaced.
    const refused = await fetch(endpoint(), {
      method: 'POST',
      headers: tus(alice, {
        'upload-concat': 'partial',
        'upload-length': '4',
        'upload-metadata': metadata(existing),
      }),
    });
    expect(refused.status).toBe(409);
    const upsert = { 'x-upsert': 'true' };
    const parts2 = [
      await partial(alice, existing, Buffer.from('new '), undefined, upsert),
      await partial(alice, existing, Buffer.from('bytes'), undefined, upsert),
    ];
    expect((await final(alice, existing, parts2, upsert)).status).toBe(201);
    expect((await download(alice, existing)).toString()).toBe('new bytes');
  });
});
