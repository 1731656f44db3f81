import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { connect } from 'node:net';
import type { SupabaseClient } from '@supabase/supabase-js';
import { Upload } from 'tus-js-client';
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
import {
  bodySha256,
  CHUNK,
  cuttingProxy,
  MemoryUrlStorage,
  randomFile,
  startTus,
} from './tus-support';

/** Polls `ready` every 20 ms, for up to 30 s. */
async function waitFor(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 1500 && !ready(); i++) await new Promise((r) => setTimeout(r, 20));
  if (!ready()) throw new Error('timed out waiting');
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe(`tus resumable uploads (${databaseKind()})`, () => {
  let server: RunningServer;
  let alice: TestUser;
  let bob: TestUser;
  let service: SupabaseClient;
  let asAlice: SupabaseClient;
  let bucket: string;
  const endpoint = () => `${server.url}/storage/v1/upload/resumable`;
  const tusHeaders = (user: TestUser | 'anon' | 'service', extra: Record<string, string> = {}) => ({
    ...headers(server, user),
    ...extra,
  });
  const meta = (name: string, extra: Record<string, string> = {}) => ({
    bucketName: bucket,
    objectName: name,
    contentType: 'application/octet-stream',
    ...extra,
  });
  /** A raw tus POST creating an upload. */
  const create = (
    user: TestUser,
    name: string,
    length: number,
    extra: Record<string, string> = {},
  ) =>
    fetch(endpoint(), {
      method: 'POST',
      headers: {
        ...tusHeaders(user),
        'tus-resumable': '1.0.0',
        'upload-length': String(length),
        'upload-metadata': `bucketName ${b64(bucket)},objectName ${b64(name)},contentType ${b64('text/plain')}`,
        ...extra,
      },
    });
  const patch = (user: TestUser, url: string, offset: number, body: Buffer) =>
    fetch(url, {
      method: 'PATCH',
      headers: {
        ...tusHeaders(user),
        'tus-resumable': '1.0.0',
        'upload-offset': String(offset),
        'content-type': 'application/offset+octet-stream',
      },
      body,
    });
  const download = async (name: string) =>
    (await asAlice.storage.from(bucket).download(name)).data?.arrayBuffer();

  beforeAll(async () => {
    server = await startTestServer({ migrationsDir: await policiesDir() });
    alice = await mintUser(server);
    bob = await mintUser(server);
    service = client(server, 'service');
    asAlice = client(server, alice);
    bucket = uniqueBucket('tus');
    await service.storage.createBucket(bucket, { public: false });
  });
  afterAll(() => server?.stop());

  it('uploads in 6 MiB chunks with data during creation; the object is byte-exact', async () => {
    const data = randomBytes(2 * CHUNK + 12345);
    const name = `${alice.id}/tus/chunks.bin`;
    const run = startTus(data, {
      endpoint: endpoint(),
      headers: tusHeaders(alice),
      uploadDataDuringCreation: true,
      removeFingerprintOnSuccess: true,
      metadata: meta(name, { cacheControl: '120', metadata: JSON.stringify({ via: 'tus' }) }),
    });
    await run.done;
    expect(run.responses.map((r) => [r.method, r.status])).toEqual([
      ['POST', 201],
      ['PATCH', 204],
      ['PATCH', 204],
    ]);
    expect(run.responses.map((r) => r.complete)).toEqual([undefined, undefined, '1']);
    const url = run.upload.url ?? '';
    const id = url.slice(`${endpoint()}/`.length);
    const decoded = Buffer.from(id, 'base64url').toString('utf8');
    expect(decoded).toMatch(new RegExp(`^${bucket}/${name}/[0-9a-f-]{36}$`));
    expect(sha256(new Uint8Array((await download(name)) as ArrayBuffer))).toBe(sha256(data));
    const info = await asAlice.storage.from(bucket).info(name);
    expect(info.data).toMatchObject({
      size: data.length,
      contentType: 'application/octet-stream',
      cacheControl: 'max-age=120',
      metadata: { via: 'tus' },
    });
    // The finished upload answers as complete (as the hosted backend's does), so a client
    // that lost the last answer learns it is done.
    const head = await fetch(url, {
      method: 'HEAD',
      headers: { ...tusHeaders(alice), 'tus-resumable': '1.0.0' },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe(String(data.length));
    expect(head.headers.get('upload-length')).toBe(String(data.length));
  });

  it('finishes an upload whose creation request carries the whole file, in that one request', async () => {
    // Regression: the finished upload was forgotten before tus read it back after the finish
    // hook, so this POST answered 404 although the object was stored, and the client's new
    // attempt then got 409 (the object exists). Browsers send small files this way.
    const name = `${alice.id}/tus/whole.txt`;
    const data = randomBytes(1000);
    const res = await fetch(endpoint(), {
      method: 'POST',
      headers: {
        ...tusHeaders(alice),
        'tus-resumable': '1.0.0',
        'upload-length': String(data.length),
        'upload-metadata': `bucketName ${b64(bucket)},objectName ${b64(name)},contentType ${b64('text/plain')}`,
        'content-type': 'application/offset+octet-stream',
      },
      body: data,
    });
    expect(await res.text()).toBe('');
    expect(res.status).toBe(201);
    expect(res.headers.get('upload-offset')).toBe(String(data.length));
    expect(res.headers.get('tus-complete')).toBe('1');
    expect(res.headers.get('location')).toMatch(new RegExp(`^${endpoint()}/[A-Za-z0-9_-]+$`));
    expect(sha256(new Uint8Array((await download(name)) as ArrayBuffer))).toBe(sha256(data));
  });

  it('speaks the tus protocol: OPTIONS, 412, creation, HEAD, offsets, expiry, termination', async () => {
    const options = await fetch(endpoint(), { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('tus-version')).toBe('1.0.0');
    // The hosted backend's extensions, and concatenation (parallel parts), which it lacks.
    expect(options.headers.get('tus-extension')).toBe(
      'creation,creation-with-upload,creation-defer-length,termination,expiration,concatenation,concatenation-unfinished',
    );
    expect(Number(options.headers.get('tus-max-size'))).toBeGreaterThan(0);
    const noVersion = await fetch(endpoint(), { method: 'POST', headers: tusHeaders(alice) });
    expect(noVersion.status).toBe(412);
    expect(await noVersion.text()).toBe('Tus-Resumable Required\n');

    const name = `${alice.id}/tus/protocol.txt`;
    const asked = Date.now();
    const created = await create(alice, name, 10);
    const answered = Date.now();
    expect(created.status).toBe(201);
    const url = created.headers.get('location') ?? '';
    expect(url.startsWith(`${endpoint()}/`)).toBe(true);
    // 24 hours after the upload was created, between these (an HTTP date: whole seconds).
    const expires = Date.parse(created.headers.get('upload-expires') ?? '');
    const day = 24 * 3600 * 1000;
    expect(expires).toBeGreaterThanOrEqual(Math.floor((asked + day) / 1000) * 1000);
    expect(expires).toBeLessThanOrEqual(answered + day);
    const head = await fetch(url, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } });
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe('0');
    expect(head.headers.get('upload-length')).toBe('10');
    expect(head.headers.get('cache-control')).toBe('no-store');
    expect(head.headers.get('upload-metadata')).toContain(`objectName ${b64(name)}`);

    const first = await patch(alice, url, 0, Buffer.from('01234'));
    expect(first.status).toBe(204);
    expect(first.headers.get('upload-offset')).toBe('5');
    expect(first.headers.get('upload-expires')).toMatch(/GMT$/);
    const wrong = await patch(alice, url, 0, Buffer.from('xxxxx'));
    expect(wrong.status).toBe(409);
    expect(await wrong.text()).toBe('Upload-Offset conflict\n');
    const tooMuch = await patch(alice, url, 5, Buffer.from('too many bytes'));
    expect(tooMuch.status).toBe(413);
    const byBob = await patch(bob, url, 5, Buffer.from('56789'));
    expect(byBob.status).toBe(403);
    const deniedDelete = await fetch(url, {
      method: 'DELETE',
      headers: { ...tusHeaders(bob), 'tus-resumable': '1.0.0' },
    });
    expect(deniedDelete.status).toBe(403);
    const deleted = await fetch(url, {
      method: 'DELETE',
      headers: { ...tusHeaders(alice), 'tus-resumable': '1.0.0' },
    });
    expect(deleted.status).toBe(204);
    const gone = await fetch(url, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } });
    expect(gone.status).toBe(404);
    expect((await asAlice.storage.from(bucket).exists(name)).data).toBe(false);
    const unknown = await fetch(`${endpoint()}/${Buffer.from('x/y/z').toString('base64url')}`, {
      method: 'HEAD',
      headers: { 'tus-resumable': '1.0.0' },
    });
    expect(unknown.status).toBe(404);
  });

  it('builds upload URLs from X-Forwarded-Host/-Proto only when a trusted proxy sends them', async () => {
    const forwarded = { 'x-forwarded-host': 'drive.example', 'x-forwarded-proto': 'https' };
    const direct = await create(alice, `${alice.id}/tus/forwarded.txt`, 3, forwarded);
    expect(direct.status).toBe(201);
    expect(direct.headers.get('location')?.startsWith(`${endpoint()}/`)).toBe(true);
    // The same request through a server that trusts this peer as its load balancer.
    const behind = await startTestServer({
      migrationsDir: await policiesDir(),
      trustedProxies: ['127.0.0.1', '::1'],
    });
    try {
      const user = await mintUser(behind);
      const name = `${user.id}/tus/forwarded.txt`;
      await client(behind, 'service').storage.createBucket(bucket, { public: false });
      const res = await fetch(`${behind.url}/storage/v1/upload/resumable`, {
        method: 'POST',
        headers: {
          ...headers(behind, user),
          ...forwarded,
          'tus-resumable': '1.0.0',
          'upload-length': '3',
          'upload-metadata': `bucketName ${b64(bucket)},objectName ${b64(name)}`,
        },
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('location')).toMatch(
        /^https:\/\/drive\.example\/storage\/v1\/upload\/resumable\//,
      );
    } finally {
      await behind.stop();
    }
  });

  it('answers a finished upload as complete, and only once its object exists', async () => {
    for (let round = 0; round < 5; round++) {
      const name = `${alice.id}/tus/finished-${round}.bin`;
      const created = await create(alice, name, 6);
      const url = created.headers.get('location') ?? '';
      // The last PATCH and a HEAD race, as when a client pauses while its last chunk is in
      // flight and asks the offset when it resumes.
      const last = patch(alice, url, 0, Buffer.from('abcdef'));
      const head = fetch(url, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } });
      const seen = await head;
      if (seen.status === 200 && seen.headers.get('upload-offset') === '6') {
        expect((await asAlice.storage.from(bucket).exists(name)).data).toBe(true);
      }
      expect((await last).status).toBe(204);
      const after = await fetch(url, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } });
      expect(after.status).toBe(200);
      expect(after.headers.get('upload-offset')).toBe('6');
      expect(after.headers.get('upload-length')).toBe('6');
      expect(Buffer.from((await download(name)) as ArrayBuffer).toString()).toBe('abcdef');
    }
  });

  it('checks RLS, the bucket and its limits when an upload is created (plain-text errors)', async () => {
    const limited = uniqueBucket('tus-small');
    await service.storage.createBucket(limited, {
      public: false,
      fileSizeLimit: 1000,
      allowedMimeTypes: ['text/*'],
    });
    const post = (
      user: TestUser | 'anon',
      b: string,
      name: string,
      length: number,
      type = 'text/plain',
    ) =>
      fetch(endpoint(), {
        method: 'POST',
        headers: {
          ...tusHeaders(user),
          'tus-resumable': '1.0.0',
          'upload-length': String(length),
          'upload-metadata': `bucketName ${b64(b)},objectName ${b64(name)},contentType ${b64(type)}`,
        },
      });
    const rls = await post(bob, bucket, `${alice.id}/bob-was-here.txt`, 5);
    expect(rls.status).toBe(403);
    expect(await rls.text()).toBe('new row violates row-level security policy\n');
    expect((await post('anon', bucket, `${alice.id}/anon.txt`, 5)).status).toBe(403);
    const noBucket = await post(alice, 'no-such-bucket', `${alice.id}/x.txt`, 5);
    expect(noBucket.status).toBe(404);
    expect(await noBucket.text()).toBe('Bucket not found\n');
    expect((await post(alice, limited, `${alice.id}/big.txt`, 5000)).status).toBe(413);
    expect((await post(alice, limited, `${alice.id}/x.pdf`, 10, 'application/pdf')).status).toBe(
      415,
    );
    const deferred = await fetch(endpoint(), {
      method: 'POST',
      headers: {
        ...tusHeaders(alice),
        'tus-resumable': '1.0.0',
        'upload-defer-length': '1',
        'upload-metadata': `bucketName ${b64(limited)},objectName ${b64(`${alice.id}/later.txt`)},contentType ${b64('text/plain')}`,
      },
    });
    expect(deferred.status).toBe(201);
    const declared = await fetch(deferred.headers.get('location') ?? '', {
      method: 'PATCH',
      headers: {
        ...tusHeaders(alice),
        'tus-resumable': '1.0.0',
        'upload-offset': '0',
        'upload-length': '5000',
        'content-type': 'application/offset+octet-stream',
      },
      body: 'x',
    });
    expect(declared.status).toBe(413);
    const badKey = await post(alice, bucket, `${alice.id}/a\\b.txt`, 5);
    expect(badKey.status).toBe(400);
    const noMeta = await fetch(endpoint(), {
      method: 'POST',
      headers: { ...tusHeaders(alice), 'tus-resumable': '1.0.0', 'upload-length': '5' },
    });
    expect(noMeta.status).toBe(400);
    expect(await noMeta.text()).toBe('Metadata header is required\n');
    const existing = `${alice.id}/tus/existing.txt`;
    await asAlice.storage.from(bucket).upload(existing, 'already here');
    expect((await create(alice, existing, 5)).status).toBe(409);
    const upsert = await create(alice, existing, 5, { 'x-upsert': 'true' });
    expect(upsert.status).toBe(201);
    const done = await patch(alice, upsert.headers.get('location') ?? '', 0, Buffer.from('fresh'));
    expect(done.status).toBe(204);
    expect(done.headers.get('tus-complete')).toBe('1');
    expect(Buffer.from((await download(existing)) as ArrayBuffer).toString()).toBe('fresh');
  });

  it('uploads through /sign with an x-signature token (owner and upsert from the token)', async () => {
    const name = `${alice.id}/tus/signed.bin`;
    const signed = await asAlice.storage.from(bucket).createSignedUploadUrl(name);
    const token = signed.data?.token ?? '';
    const data = randomBytes(CHUNK + 10);
    const run = startTus(data, {
      endpoint: `${endpoint()}/sign`,
      headers: { apikey: server.anonKey, 'x-signature': token },
      metadata: meta(name),
      uploadDataDuringCreation: true,
    });
    await run.done;
    expect(run.upload.url?.startsWith(`${endpoint()}/sign/`)).toBe(true);
    expect(sha256(new Uint8Array((await download(name)) as ArrayBuffer))).toBe(sha256(data));
    const { rows } = await server.db.query<{ owner_id: string }>(
      'select owner_id from storage.objects where bucket_id = $1 and name = $2',
      [bucket, name],
    );
    expect(rows[0]?.owner_id).toBe(alice.id);
    const wrongPath = await fetch(`${endpoint()}/sign`, {
      method: 'POST',
      headers: {
        'x-signature': token,
        'tus-resumable': '1.0.0',
        'upload-length': '1',
        'upload-metadata': `bucketName ${b64(bucket)},objectName ${b64(`${alice.id}/elsewhere.bin`)}`,
      },
    });
    expect(wrongPath.status).toBe(400);
    expect(await wrongPath.text()).toBe('Invalid signature\n');
    const missing = await fetch(`${endpoint()}/sign`, {
      method: 'POST',
      headers: {
        'tus-resumable': '1.0.0',
        'upload-length': '1',
        'upload-metadata': `bucketName ${b64(bucket)},objectName ${b64(name)}`,
      },
    });
    expect(missing.status).toBe(403);
  });

  it('supports deferred length and empty uploads', async () => {
    const name = `${alice.id}/tus/deferred.txt`;
    const created = await fetch(endpoint(), {
      method: 'POST',
      headers: {
        ...tusHeaders(alice),
        'tus-resumable': '1.0.0',
        'upload-defer-length': '1',
        'upload-metadata': `bucketName ${b64(bucket)},objectName ${b64(name)},contentType ${b64('text/plain')}`,
      },
    });
    expect(created.status).toBe(201);
    const url = created.headers.get('location') ?? '';
    const head = await fetch(url, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } });
    expect(head.headers.get('upload-defer-length')).toBe('1');
    const first = await patch(alice, url, 0, Buffer.from('hello '));
    expect(first.status).toBe(204);
    const last = await fetch(url, {
      method: 'PATCH',
      headers: {
        ...tusHeaders(alice),
        'tus-resumable': '1.0.0',
        'upload-offset': '6',
        'upload-length': '11',
        'content-type': 'application/offset+octet-stream',
      },
      body: 'world',
    });
    expect(last.status).toBe(204);
    expect(last.headers.get('tus-complete')).toBe('1');
    expect(Buffer.from((await download(name)) as ArrayBuffer).toString()).toBe('hello world');

    const empty = `${alice.id}/tus/empty.txt`;
    const zero = await create(alice, empty, 0);
    expect(zero.status).toBe(201);
    expect(zero.headers.get('tus-complete')).toBe('1');
    const info = await asAlice.storage.from(bucket).info(empty);
    expect(info.data).toMatchObject({ size: 0, contentType: 'text/plain' });
  });

  it('lets one of two concurrent PATCHes win and answers the other 409', async () => {
    const name = `${alice.id}/tus/race.bin`;
    const created = await create(alice, name, 4 * 1024 * 1024);
    const url = created.headers.get('location') ?? '';
    const body = randomBytes(2 * 1024 * 1024);
    const results = await Promise.all([patch(alice, url, 0, body), patch(alice, url, 0, body)]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([204, 409]);
    const head = await fetch(url, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } });
    expect(head.headers.get('upload-offset')).toBe(String(body.length));
  });

  it('a request whose client has gone does not interrupt the request holding the upload', async () => {
    // A client whose PATCH was cut retries at once; the cut request may reach the upload's
    // lock only after the retry holds it. It must not make the retry stop early.
    const name = `${alice.id}/tus/stale.bin`;
    const piece = Buffer.alloc(64 * 1024, 7);
    const pieces = 18; // sent every 250 ms: longer than tus's 3 s lock drain
    const created = await create(alice, name, piece.length * pieces);
    const url = created.headers.get('location') ?? '';
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent > 0) await new Promise((r) => setTimeout(r, 250));
        if (sent++ === pieces) controller.close();
        else controller.enqueue(new Uint8Array(piece));
      },
    });
    const live = fetch(url, {
      method: 'PATCH',
      headers: {
        ...tusHeaders(alice),
        'tus-resumable': '1.0.0',
        'upload-offset': '0',
        'content-type': 'application/offset+octet-stream',
      },
      body,
      duplex: 'half',
    } as RequestInit);
    await waitFor(() => sent >= 3);
    // The stale request: headers and a few bytes, then its connection is gone.
    const { hostname, port, pathname } = new URL(url);
    const socket = connect(Number(port), hostname);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const head = Object.entries({
      ...tusHeaders(alice),
      host: `${hostname}:${port}`,
      'tus-resumable': '1.0.0',
      'upload-offset': '0',
      'content-type': 'application/offset+octet-stream',
      'content-length': String(piece.length),
    }).map(([k, v]) => `${k}: ${v}\r\n`);
    await new Promise((resolve) =>
      socket.write(`PATCH ${pathname} HTTP/1.1\r\n${head.join('')}\r\nabc`, resolve),
    );
    socket.destroy();
    const res = await live;
    expect(res.status).toBe(204);
    expect(res.headers.get('upload-offset')).toBe(String(piece.length * pieces));
    expect((await asAlice.storage.from(bucket).exists(name)).data).toBe(true);
  }, 30_000);

  it('two uploads to one path: the first to finish wins, unless x-upsert', async () => {
    const name = `${alice.id}/tus/twice.txt`;
    const a = (await create(alice, name, 1)).headers.get('location') ?? '';
    const b = (await create(alice, name, 1)).headers.get('location') ?? '';
    expect((await patch(alice, b, 0, Buffer.from('B'))).status).toBe(204);
    const loser = await patch(alice, a, 0, Buffer.from('A'));
    expect(loser.status).toBe(409);
    expect(Buffer.from((await download(name)) as ArrayBuffer).toString()).toBe('B');
    const up = { 'x-upsert': 'true' };
    const c = (await create(alice, name, 1, up)).headers.get('location') ?? '';
    const d = (await create(alice, name, 1, up)).headers.get('location') ?? '';
    expect((await patch(alice, c, 0, Buffer.from('C'))).status).toBe(204);
    expect((await patch(alice, d, 0, Buffer.from('D'))).status).toBe(204);
    expect(Buffer.from((await download(name)) as ArrayBuffer).toString()).toBe('D');
  });

  it('aborts and resumes from the stored URL (findPreviousUploads), and terminates', async () => {
    const data = randomBytes(3 * CHUNK + 99);
    const name = `${alice.id}/tus/resume.bin`;
    const urlStorage = new MemoryUrlStorage();
    const fingerprint = async () => `resume-${name}`;
    const options = {
      endpoint: endpoint(),
      headers: tusHeaders(alice),
      metadata: meta(name),
      urlStorage,
      fingerprint,
    };
    let chunks = 0;
    let aborted: Promise<void> | null = null;
    const first = startTus(data, {
      ...options,
      onChunkComplete: () => {
        if (++chunks === 1) aborted = first.upload.abort();
      },
    });
    await waitFor(() => aborted !== null);
    await aborted;
    const previous = await new Upload(data, options).findPreviousUploads();
    expect(previous).toHaveLength(1);
    const offsets: number[] = [];
    const second = startTus(data, {
      ...options,
      uploadUrl: previous[0]?.uploadUrl ?? null,
      onProgress: (sent) => offsets.push(sent),
    });
    await second.done;
    // It went on from where the first stopped: at least the first chunk was kept.
    expect(second.responses[0]?.method).toBe('HEAD');
    expect(second.responses[0]?.offset).toBeGreaterThanOrEqual(CHUNK);
    expect(sha256(new Uint8Array((await download(name)) as ArrayBuffer))).toBe(sha256(data));

    const doomedName = `${alice.id}/tus/terminated.bin`;
    let doomedChunks = 0;
    let terminated: Promise<void> | null = null;
    const doomed = startTus(data, {
      endpoint: endpoint(),
      headers: tusHeaders(alice),
      metadata: meta(doomedName),
      onChunkComplete: () => {
        if (++doomedChunks === 1) terminated = doomed.upload.abort(true);
      },
    });
    await waitFor(() => terminated !== null);
    await terminated;
    const url = doomed.upload.url ?? '';
    expect(url).not.toBe('');
    const head = await fetch(url, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } });
    expect(head.status).toBe(404);
    expect((await asAlice.storage.from(bucket).exists(doomedName)).data).toBe(false);
  });

  it('resumes after the connection is cut mid-PATCH', async () => {
    const proxy = await cuttingProxy(Number(new URL(server.url).port), 8 * 1024 * 1024);
    try {
      const data = randomBytes(3 * CHUNK);
      const name = `${alice.id}/tus/cut.bin`;
      const run = startTus(data, {
        endpoint: `${proxy.url}/storage/v1/upload/resumable`,
        headers: tusHeaders(alice),
        metadata: meta(name),
        retryDelays: [100, 500, 1000, 2000],
      });
      await run.done;
      expect(proxy.wasCut()).toBe(true);
      expect(run.responses.some((r) => r.method === 'HEAD')).toBe(true);
      expect(sha256(new Uint8Array((await download(name)) as ArrayBuffer))).toBe(sha256(data));
    } finally {
      await proxy.close();
    }
  });

  it('round-trips 100 MB byte-exact through tus and through one streamed upload', async () => {
    const file = await randomFile(100 * 1024 * 1024);
    const name = `${alice.id}/tus/big.bin`;
    const run = startTus(createReadStream(file.path), {
      endpoint: endpoint(),
      headers: tusHeaders(alice),
      metadata: meta(name),
      uploadSize: 100 * 1024 * 1024,
      uploadDataDuringCreation: true,
    });
    await run.done;
    const res = await fetch(`${server.url}/storage/v1/object/${bucket}/${name}`, {
      headers: headers(server, alice),
    });
    expect(await bodySha256(res)).toEqual({ sha256: file.sha256, size: 100 * 1024 * 1024 });

    const plain = `${alice.id}/plain/big.bin`;
    const up = await asAlice.storage.from(bucket).upload(plain, createReadStream(file.path), {
      contentType: 'application/octet-stream',
      duplex: 'half',
    });
    expect(up.error).toBeNull();
    const back = await fetch(`${server.url}/storage/v1/object/${bucket}/${plain}`, {
      headers: headers(server, alice),
    });
    expect(await bodySha256(back)).toEqual({ sha256: file.sha256, size: 100 * 1024 * 1024 });
  }, 120_000);
});
