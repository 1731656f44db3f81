import { createHash } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { bytes, expectS3Error, s3Client, userS3 } from './s3-support';
import { client, mintUser, policiesDir, sha256, type TestUser, uniqueBucket } from './support';

const md5 = (data: Uint8Array) => createHash('md5').update(data).digest();

describe(`S3 protocol: multipart uploads (${databaseKind()})`, () => {
  let server: RunningServer;
  let s3: S3Client;
  let service: SupabaseClient;
  let alice: TestUser;
  let bob: TestUser;
  let bucket: string;

  beforeAll(async () => {
    server = await startTestServer({ migrationsDir: await policiesDir() });
    s3 = s3Client(server);
    service = client(server, 'service');
    alice = await mintUser(server);
    bob = await mintUser(server);
    bucket = uniqueBucket('mp');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  });
  afterAll(() => server?.stop());

  const partFiles = async () =>
    Number(
      (
        await server.db.query<{ n: string }>(
          'select count(*) as n from storage.s3_multipart_uploads_parts',
        )
      ).rows[0]?.n,
    );

  it("uploads 6 MiB with lib-storage's Upload (5 MiB parts); REST downloads the same bytes", async () => {
    const body = bytes(6 * 1024 * 1024 + 1234, 3);
    const upload = new Upload({
      client: s3,
      params: {
        Bucket: bucket,
        Key: 'big/blob.bin',
        Body: body,
        ContentType: 'application/x-blob',
      },
      partSize: 5 * 1024 * 1024,
      queueSize: 2,
    });
    const done = await upload.done();
    const parts = [body.subarray(0, 5 << 20), body.subarray(5 << 20)];
    const expected = createHash('md5')
      .update(Buffer.concat(parts.map((p) => md5(p))))
      .digest('hex');
    expect(done.ETag).toBe(`"${expected}-2"`);
    const { data, error } = await service.storage.from(bucket).download('big/blob.bin');
    expect(error).toBeNull();
    expect(sha256(new Uint8Array((await data?.arrayBuffer()) ?? new ArrayBuffer(0)))).toBe(
      sha256(body),
    );
    const info = await service.storage.from(bucket).info('big/blob.bin');
    expect(info.data).toMatchObject({ size: body.length, contentType: 'application/x-blob' });
    expect(await partFiles()).toBe(0);
  });

  it('creates, uploads and copies parts, lists them, completes; checks parts and order', async () => {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'src.txt', Body: '0123456789' }));
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({
        Bucket: bucket,
        Key: 'joined.txt',
        ContentType: 'text/plain',
        Metadata: { joined: 'yes' },
      }),
    );
    const key = { Bucket: bucket, Key: 'joined.txt', UploadId };
    const p1 = await s3.send(new UploadPartCommand({ ...key, PartNumber: 1, Body: 'alpha-' }));
    const p2 = await s3.send(
      new UploadPartCopyCommand({
        ...key,
        PartNumber: 2,
        CopySource: `${bucket}/src.txt`,
        CopySourceRange: 'bytes=2-5',
      }),
    );
    // Part 3 sent twice: the second one counts.
    await s3.send(new UploadPartCommand({ ...key, PartNumber: 3, Body: 'first' }));
    const p3 = await s3.send(new UploadPartCommand({ ...key, PartNumber: 3, Body: '-omega' }));
    const parts = await s3.send(new ListPartsCommand(key));
    expect(parts.Parts?.map((p) => [p.PartNumber, p.Size, p.ETag])).toEqual([
      [1, 6, p1.ETag],
      [2, 4, p2.CopyPartResult?.ETag],
      [3, 6, p3.ETag],
    ]);
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
    expect(uploads.Uploads?.map((u) => [u.Key, u.UploadId])).toContainEqual([
      'joined.txt',
      UploadId,
    ]);
    await expectS3Error(
      s3.send(
        new CompleteMultipartUploadCommand({
          ...key,
          MultipartUpload: {
            Parts: [{ PartNumber: 1, ETag: '"00000000000000000000000000000000"' }],
          },
        }),
      ),
      'InvalidPart',
      400,
    );
    await expectS3Error(
      s3.send(
        new CompleteMultipartUploadCommand({
          ...key,
          MultipartUpload: {
            Parts: [
              { PartNumber: 2, ETag: p2.CopyPartResult?.ETag },
              { PartNumber: 1, ETag: p1.ETag },
            ],
          },
        }),
      ),
      'InvalidPartOrder',
      400,
    );
    const done = await s3.send(
      new CompleteMultipartUploadCommand({
        ...key,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: p1.ETag },
            { PartNumber: 2, ETag: p2.CopyPartResult?.ETag },
            { PartNumber: 3, ETag: p3.ETag },
          ],
        },
      }),
    );
    expect(done.ETag).toMatch(/^"[0-9a-f]{32}-3"$/);
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'joined.txt' }));
    expect(await got.Body?.transformToString()).toBe('alpha-2345-omega');
    expect(got).toMatchObject({ ContentType: 'text/plain', Metadata: { joined: 'yes' } });
    await expectS3Error(s3.send(new ListPartsCommand(key)), 'NoSuchUpload', 404);
    expect(await partFiles()).toBe(0);
  });

  it('aborts: the upload and its parts go', async () => {
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'aborted.bin' }),
    );
    const key = { Bucket: bucket, Key: 'aborted.bin', UploadId };
    await s3.send(new UploadPartCommand({ ...key, PartNumber: 1, Body: bytes(1000) }));
    expect(await partFiles()).toBe(1);
    await s3.send(new AbortMultipartUploadCommand(key));
    expect(await partFiles()).toBe(0);
    await expectS3Error(
      s3.send(new UploadPartCommand({ ...key, PartNumber: 2, Body: 'late' })),
      'NoSuchUpload',
      404,
    );
  });

  it('keeps users to their own uploads and their RLS', async () => {
    const asAlice = userS3(server, alice);
    const asBob = userS3(server, bob);
    const Key = `${alice.id}/multi.txt`;
    await expectS3Error(
      asBob.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key })),
      'AccessDenied',
      403,
    );
    const { UploadId } = await asAlice.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key }),
    );
    const key = { Bucket: bucket, Key, UploadId };
    await expectS3Error(
      asBob.send(new UploadPartCommand({ ...key, PartNumber: 1, Body: 'intruder' })),
      'AccessDenied',
      403,
    );
    const bobsView = await asBob.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
    expect(bobsView.Uploads ?? []).toEqual([]);
    const part = await asAlice.send(new UploadPartCommand({ ...key, PartNumber: 1, Body: 'hers' }));
    await asAlice.send(
      new CompleteMultipartUploadCommand({
        ...key,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
      }),
    );
    const read = await client(server, alice).storage.from(bucket).download(Key);
    expect(await read.data?.text()).toBe('hers');
  });

  it('refuses parts past the bucket limit', async () => {
    const small = uniqueBucket('mp-small');
    expect(
      (await service.storage.createBucket(small, { public: false, fileSizeLimit: 1500 })).error,
    ).toBeNull();
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: small, Key: 'k' }),
    );
    const key = { Bucket: small, Key: 'k', UploadId };
    await s3.send(new UploadPartCommand({ ...key, PartNumber: 1, Body: bytes(1000) }));
    await expectS3Error(
      s3.send(new UploadPartCommand({ ...key, PartNumber: 2, Body: bytes(1000) })),
      'EntityTooLarge',
      400,
    );
    await s3.send(new AbortMultipartUploadCommand(key));
  });

  it('lets one of two concurrent completions join the parts; the other is refused, the object is whole', async () => {
    const Key = 'race/joined.bin';
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key }));
    const key = { Bucket: bucket, Key, UploadId };
    const first = bytes(5 * 1024 * 1024, 7);
    const second = bytes(300_000, 8);
    const p1 = await s3.send(new UploadPartCommand({ ...key, PartNumber: 1, Body: first }));
    const p2 = await s3.send(new UploadPartCommand({ ...key, PartNumber: 2, Body: second }));
    const complete = () =>
      s3.send(
        new CompleteMultipartUploadCommand({
          ...key,
          MultipartUpload: {
            Parts: [
              { PartNumber: 1, ETag: p1.ETag },
              { PartNumber: 2, ETag: p2.ETag },
            ],
          },
        }),
      );
    const results = await Promise.allSettled([complete(), complete()]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    // Refused while the other joins (OperationAborted), or gone once it has (NoSuchUpload).
    expect(['OperationAborted', 'NoSuchUpload']).toContain(lost[0]?.name);
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key }));
    const body = await got.Body?.transformToByteArray();
    expect(sha256(body ?? new Uint8Array())).toBe(sha256(Buffer.concat([first, second])));
    expect(await partFiles()).toBe(0);
  });

  it('refuses parts and a second completion while one completion holds the upload; a stale claim is taken over', async () => {
    const Key = 'race/claimed.txt';
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key }));
    const key = { Bucket: bucket, Key, UploadId };
    const p1 = await s3.send(new UploadPartCommand({ ...key, PartNumber: 1, Body: 'one' }));
    const claim = (at: string) =>
      server.db.query(
        `update storage.s3_multipart_uploads set completing_at = now() - $2::interval where id = $1`,
        [UploadId, at],
      );
    const done = { MultipartUpload: { Parts: [{ PartNumber: 1, ETag: p1.ETag }] } };
    // A completion in progress elsewhere (another request or replica) holds it.
    await claim('0 seconds');
    await expectS3Error(
      s3.send(new UploadPartCommand({ ...key, PartNumber: 2, Body: 'two' })),
      'OperationAborted',
      409,
    );
    await expectS3Error(
      s3.send(new CompleteMultipartUploadCommand({ ...key, ...done })),
      'OperationAborted',
      409,
    );
    // A failed completion lets go: the upload takes parts and completes again.
    await claim('20 minutes');
    await expectS3Error(
      s3.send(
        new CompleteMultipartUploadCommand({
          ...key,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: '"0000"' }] },
        }),
      ),
      'InvalidPart',
      400,
    );
    const p2 = await s3.send(new UploadPartCommand({ ...key, PartNumber: 2, Body: 'two' }));
    await s3.send(
      new CompleteMultipartUploadCommand({
        ...key,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: p1.ETag },
            { PartNumber: 2, ETag: p2.ETag },
          ],
        },
      }),
    );
    const { data } = await service.storage.from(bucket).download(Key);
    expect(await data?.text()).toBe('onetwo');
  });
});
