import { createHash, createHmac } from 'node:crypto';
import {
  CreateBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { expectS3Error, s3Client, userS3 } from './s3-support';
import { client, mintUser, policiesDir, type TestUser, uniqueBucket } from './support';

interface RawRequest {
  method: string;
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** The SDK's own SigV4 signer of a client (the oracle for raw requests). */
async function signer(s3: S3Client) {
  const get = s3.config.signer as unknown as () => Promise<{
    sign(r: unknown, o?: unknown): Promise<{ headers: Record<string, string> }>;
    presign(r: unknown, o?: unknown): Promise<{ query: Record<string, string> }>;
  }>;
  return get();
}

function httpRequest(server: RunningServer, r: RawRequest) {
  const url = new URL(server.url);
  return {
    method: r.method,
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path: `/storage/v1/s3${r.path}`,
    query: r.query ?? {},
    headers: { host: url.host, ...r.headers },
    body: r.body,
  };
}

const urlOf = (server: RunningServer, path: string, query: Record<string, string>) =>
  `${server.url}/storage/v1/s3${path}?${new URLSearchParams(query).toString().replace(/\+/g, '%20')}`;

describe(`S3 protocol: signatures, session tokens and RLS (${databaseKind()})`, () => {
  let server: RunningServer;
  let s3: S3Client;
  let alice: TestUser;
  let bob: TestUser;
  let service: SupabaseClient;
  let bucket: string;

  beforeAll(async () => {
    server = await startTestServer({ migrationsDir: await policiesDir() });
    s3 = s3Client(server);
    service = client(server, 'service');
    alice = await mintUser(server);
    bob = await mintUser(server);
    bucket = uniqueBucket('auth');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'secret.txt', Body: 'top secret' }));
  });
  afterAll(() => server?.stop());

  it('refuses a wrong secret, an unknown key id and a skewed clock', async () => {
    const wrongSecret = s3Client(server, { secretAccessKey: 'not-the-secret' });
    await expectS3Error(wrongSecret.send(new ListBucketsCommand({})), 'SignatureDoesNotMatch', 403);
    const unknown = s3Client(server, { accessKeyId: 'AKIAUNKNOWN' });
    await expectS3Error(unknown.send(new ListBucketsCommand({})), 'InvalidAccessKeyId', 403);
    const skewed = s3Client(server, { clockOffsetMs: -20 * 60_000 });
    await expectS3Error(skewed.send(new ListBucketsCommand({})), 'RequestTimeTooSkewed', 403);
    const slightly = s3Client(server, { clockOffsetMs: -10 * 60_000 });
    expect((await slightly.send(new ListBucketsCommand({}))).Buckets?.length).toBeGreaterThan(0);
  });

  it('serves presigned URLs until they expire; a changed URL is refused', async () => {
    const sign = await signer(s3);
    // As @aws-sdk/s3-request-presigner: the payload unsigned, said in the query.
    const request = httpRequest(server, {
      method: 'GET',
      path: `/${bucket}/secret.txt`,
      headers: { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
    });
    const fresh = await sign.presign(request, { expiresIn: 60 });
    const ok = await fetch(urlOf(server, `/${bucket}/secret.txt`, fresh.query));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('top secret');
    const tampered = await fetch(urlOf(server, `/${bucket}/secret.tx`, fresh.query));
    expect(tampered.status).toBe(403);
    expect(await tampered.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    const old = await sign.presign(request, {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 5 * 60_000),
    });
    const expired = await fetch(urlOf(server, `/${bucket}/secret.txt`, old.query));
    expect(expired.status).toBe(403);
    const text = await expired.text();
    expect(text).toContain('<Code>AccessDenied</Code>');
    expect(text).toContain('Request has expired');
    const unsigned = await fetch(`${server.url}/storage/v1/s3/${bucket}/secret.txt`);
    expect(unsigned.status).toBe(403);
    expect(unsigned.headers.get('content-type')).toBe('application/xml');
  });

  it('runs session-token requests as the user, under RLS', async () => {
    const asAlice = userS3(server, alice);
    const mine = `${alice.id}/notes.txt`;
    await asAlice.send(new PutObjectCommand({ Bucket: bucket, Key: mine, Body: 'mine' }));
    await expectS3Error(
      asAlice.send(new PutObjectCommand({ Bucket: bucket, Key: `${bob.id}/x.txt`, Body: 'no' })),
      'AccessDenied',
      403,
    );
    const listed = await asAlice.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect(listed.Contents?.map((c) => c.Key)).toEqual([mine]);
    await expectS3Error(
      asAlice.send(new GetObjectCommand({ Bucket: bucket, Key: 'secret.txt' })),
      'NoSuchKey',
      404,
    );
    const asBob = userS3(server, bob);
    await expectS3Error(
      asBob.send(new GetObjectCommand({ Bucket: bucket, Key: mine })),
      'NoSuchKey',
      404,
    );
    // The object is the one REST sees, owned by Alice.
    const info = await client(server, alice).storage.from(bucket).download(mine);
    expect(await info.data?.text()).toBe('mine');
    const { rows } = await server.db.query<{ owner_id: string }>(
      'select owner_id from storage.objects where bucket_id = $1 and name = $2',
      [bucket, mine],
    );
    expect(rows[0]?.owner_id).toBe(alice.id);
    // A bad JWT, or a signature made with something other than the anon key.
    const forged = s3Client(server, {
      accessKeyId: 'local-project',
      secretAccessKey: server.anonKey,
      sessionToken: `${alice.token.slice(0, -4)}AAAA`,
    });
    await expectS3Error(forged.send(new ListBucketsCommand({})), 'AccessDenied', 403);
    const wrongKey = s3Client(server, {
      accessKeyId: 'local-project',
      secretAccessKey: server.serviceRoleKey,
      sessionToken: alice.token,
    });
    await expectS3Error(wrongKey.send(new ListBucketsCommand({})), 'SignatureDoesNotMatch', 403);
  });

  it('answers bad XML with MalformedXML, not a 500', async () => {
    const bad = s3Client(server);
    bad.middlewareStack.add(
      (next) => async (args) => {
        (args.request as { body: unknown }).body = '<Delete><Object><Key>a</Key></Delete>';
        return next(args);
      },
      { step: 'build', priority: 'high' },
    );
    await expectS3Error(
      bad.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: [{ Key: 'a' }] } })),
      'MalformedXML',
      400,
    );
  });

  it('decodes signed aws-chunked uploads and checks every chunk signature', async () => {
    const secret = server.s3?.secretAccessKey ?? '';
    const upload = async (key: string, chunks: string[], tamper: boolean) => {
      const amzDate = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
      const day = amzDate.slice(0, 8);
      const scope = `${day}/local/s3/aws4_request`;
      const total = chunks.reduce((n, c) => n + c.length, 0);
      const request = httpRequest(server, {
        method: 'PUT',
        path: `/${bucket}/${key}`,
        headers: {
          'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
          'x-amz-decoded-content-length': String(total),
          'content-encoding': 'aws-chunked',
          'x-amz-date': amzDate,
        },
      });
      const sign = await signer(s3);
      const signed = await sign.sign(request, { signingDate: new Date() });
      const auth = signed.headers.authorization ?? '';
      let previous = /Signature=([0-9a-f]+)/.exec(auth)?.[1] ?? '';
      const hmac = (k: Buffer | string, d: string) => createHmac('sha256', k).update(d).digest();
      const key4 = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), 'local'), 's3'), 'aws4_request');
      const hex = (d: string) => createHash('sha256').update(d).digest('hex');
      const parts: string[] = [];
      for (const data of [...chunks, '']) {
        const toSign = ['AWS4-HMAC-SHA256-PAYLOAD', amzDate, scope, previous, hex(''), hex(data)];
        let sig = createHmac('sha256', key4).update(toSign.join('\n')).digest('hex');
        if (tamper && data === chunks[1]) sig = sig.replace(/^./, sig[0] === 'a' ? 'b' : 'a');
        parts.push(`${data.length.toString(16)};chunk-signature=${sig}\r\n${data}\r\n`);
        previous = sig;
      }
      return fetch(`${server.url}/storage/v1/s3/${bucket}/${key}`, {
        method: 'PUT',
        headers: signed.headers,
        body: parts.join(''),
      });
    };
    const good = await upload('chunked.txt', ['first chunk, ', 'second chunk, ', 'last'], false);
    expect(good.status).toBe(200);
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'chunked.txt' }));
    expect(await got.Body?.transformToString()).toBe('first chunk, second chunk, last');
    const bad = await upload('tampered.txt', ['one ', 'two ', 'three'], true);
    expect(bad.status).toBe(403);
    expect(await bad.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    const { data } = await service.storage.from(bucket).list('', { search: 'tampered' });
    expect(data).toEqual([]);
  });
});

describe(`S3 protocol turned off (${databaseKind()})`, () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ storage: { s3Protocol: { enabled: false } } });
  });
  afterAll(() => server?.stop());

  it('answers AccessDenied in S3 XML', async () => {
    expect(server.s3).toBeNull();
    const res = await fetch(`${server.url}/storage/v1/s3/`);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('<Code>AccessDenied</Code>');
  });
});
