import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketLocationCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { bytes, expectS3Error, s3Client } from './s3-support';
import { client, sha256, uniqueBucket } from './support';

describe(`S3 protocol: buckets and objects (${databaseKind()})`, () => {
  let server: RunningServer;
  let s3: S3Client;
  let service: SupabaseClient;
  let bucket: string;

  beforeAll(async () => {
    server = await startTestServer({});
    s3 = s3Client(server);
    service = client(server, 'service');
    bucket = uniqueBucket('s3');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  });
  afterAll(() => server?.stop());

  it('creates, heads, lists, locates and deletes buckets', async () => {
    const id = uniqueBucket('b');
    await s3.send(new CreateBucketCommand({ Bucket: id }));
    const head = await s3.send(new HeadBucketCommand({ Bucket: id }));
    expect(head.BucketRegion).toBe('local');
    const list = await s3.send(new ListBucketsCommand({}));
    expect(list.Buckets?.map((b) => b.Name)).toEqual(expect.arrayContaining([id, bucket]));
    expect(list.Buckets?.find((b) => b.Name === id)?.CreationDate).toBeInstanceOf(Date);
    const location = await s3.send(new GetBucketLocationCommand({ Bucket: id }));
    expect(location.LocationConstraint).toBe('local');
    const versioning = await s3.send(new GetBucketVersioningCommand({ Bucket: id }));
    expect(versioning.Status).toBeUndefined();
    await expectS3Error(
      s3.send(new CreateBucketCommand({ Bucket: id })),
      'BucketAlreadyOwnedByYou',
      409,
    );
    // The REST API sees the bucket S3 made.
    expect((await service.storage.getBucket(id)).data).toMatchObject({ id, public: false });
    await s3.send(new PutObjectCommand({ Bucket: id, Key: 'x.txt', Body: 'x' }));
    await expectS3Error(s3.send(new DeleteBucketCommand({ Bucket: id })), 'BucketNotEmpty', 409);
    await s3.send(new DeleteObjectCommand({ Bucket: id, Key: 'x.txt' }));
    await s3.send(new DeleteBucketCommand({ Bucket: id }));
    await expectS3Error(s3.send(new HeadBucketCommand({ Bucket: id })), 'NotFound', 404);
    await expectS3Error(s3.send(new ListObjectsV2Command({ Bucket: id })), 'NoSuchBucket', 404);
  });

  it('puts with type, caching and metadata; REST reads the same object', async () => {
    const body = bytes(200_000, 7);
    const put = await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: 'docs/report v1.bin',
        Body: body,
        ContentType: 'application/x-report',
        CacheControl: 'max-age=60',
        Metadata: { author: 'ada', draft: 'yes' },
      }),
    );
    const md5 = (await import('node:crypto')).createHash('md5').update(body).digest('hex');
    expect(put.ETag).toBe(`"${md5}"`);
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'docs/report v1.bin' }));
    expect(got.ContentType).toBe('application/x-report');
    expect(got.CacheControl).toBe('max-age=60');
    expect(got.ContentLength).toBe(body.length);
    expect(got.ETag).toBe(`"${md5}"`);
    expect(got.Metadata).toEqual({ author: 'ada', draft: 'yes' });
    expect(sha256((await got.Body?.transformToByteArray()) ?? '')).toBe(sha256(body));
    const download = await service.storage.from(bucket).download('docs/report v1.bin');
    expect(sha256(new Uint8Array((await download.data?.arrayBuffer()) ?? new ArrayBuffer(0)))).toBe(
      sha256(body),
    );
    const info = await service.storage.from(bucket).info('docs/report v1.bin');
    expect(info.data).toMatchObject({
      size: body.length,
      contentType: 'application/x-report',
      cacheControl: 'max-age=60',
      etag: `"${md5}"`,
      metadata: { author: 'ada', draft: 'yes' },
    });
  });

  it('gets what REST wrote: ranges, conditionals, HEAD, response overrides', async () => {
    const text = 'hello from supabase-js, read over S3';
    const up = await service.storage
      .from(bucket)
      .upload('rest/hello.txt', new Blob([text], { type: 'text/plain' }), {
        metadata: { origin: 'rest' },
      });
    expect(up.error).toBeNull();
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'rest/hello.txt' }));
    expect(head).toMatchObject({ ContentLength: text.length, ContentType: 'text/plain' });
    expect(head.Metadata).toEqual({ origin: 'rest' });
    const range = await s3.send(
      new GetObjectCommand({ Bucket: bucket, Key: 'rest/hello.txt', Range: 'bytes=6-9' }),
    );
    expect(range.$metadata.httpStatusCode).toBe(206);
    expect(range.ContentRange).toBe(`bytes 6-9/${text.length}`);
    expect(await range.Body?.transformToString()).toBe('from');
    await expectS3Error(
      s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'rest/hello.txt', Range: 'bytes=999-' })),
      'InvalidRange',
      416,
    );
    const notModified = await s3
      .send(new GetObjectCommand({ Bucket: bucket, Key: 'rest/hello.txt', IfNoneMatch: head.ETag }))
      .catch((e: { $metadata: { httpStatusCode: number } }) => e.$metadata.httpStatusCode);
    expect(notModified).toBe(304);
    await expectS3Error(
      s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'rest/hello.txt', IfMatch: '"nope"' })),
      'PreconditionFailed',
      412,
    );
    const override = await s3.send(
      new GetObjectCommand({
        Bucket: bucket,
        Key: 'rest/hello.txt',
        ResponseContentDisposition: 'attachment; filename="h.txt"',
      }),
    );
    expect(override.ContentDisposition).toBe('attachment; filename="h.txt"');
    await override.Body?.transformToString();
    await expectS3Error(
      s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'rest/missing.txt' })),
      'NoSuchKey',
      404,
    );
    await expectS3Error(
      s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'rest/missing.txt' })),
      'NotFound',
      404,
    );
  });

  it('lists v2 with prefix, delimiter, paging and start-after; v1 with a marker', async () => {
    const b = uniqueBucket('list');
    await s3.send(new CreateBucketCommand({ Bucket: b }));
    const keys = ['a.txt', 'dir/one.txt', 'dir/sub/two.txt', 'dir/three.txt', 'e.txt', 'f/g.txt'];
    for (const Key of keys) await s3.send(new PutObjectCommand({ Bucket: b, Key, Body: Key }));
    const top = await s3.send(new ListObjectsV2Command({ Bucket: b, Delimiter: '/' }));
    expect(top.Contents?.map((c) => c.Key)).toEqual(['a.txt', 'e.txt']);
    expect(top.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['dir/', 'f/']);
    expect(top.KeyCount).toBe(4);
    expect(top.Contents?.[0]).toMatchObject({ Size: 5, StorageClass: 'STANDARD' });
    const dir = await s3.send(
      new ListObjectsV2Command({ Bucket: b, Prefix: 'dir/', Delimiter: '/' }),
    );
    expect(dir.Contents?.map((c) => c.Key)).toEqual(['dir/one.txt', 'dir/three.txt']);
    expect(dir.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['dir/sub/']);
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({ Bucket: b, MaxKeys: 2, ContinuationToken: token }),
      );
      seen.push(...(page.Contents ?? []).map((c) => c.Key ?? ''));
      token = page.NextContinuationToken;
      expect(page.IsTruncated).toBe(token !== undefined);
    } while (token);
    expect(seen).toEqual([...keys].sort());
    const after = await s3.send(
      new ListObjectsV2Command({ Bucket: b, StartAfter: 'dir/three.txt' }),
    );
    expect(after.Contents?.map((c) => c.Key)).toEqual(['e.txt', 'f/g.txt']);
    const v1 = await s3.send(
      new ListObjectsCommand({ Bucket: b, Marker: 'dir/three.txt', MaxKeys: 1 }),
    );
    expect(v1.Contents?.map((c) => c.Key)).toEqual(['e.txt']);
    expect(v1.IsTruncated).toBe(true);
  });

  it('copies within and between buckets, deletes one and many', async () => {
    const other = uniqueBucket('copy');
    await s3.send(new CreateBucketCommand({ Bucket: other }));
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: 'copy/src.txt',
        Body: 'copy me',
        ContentType: 'text/plain',
        Metadata: { k: 'v' },
      }),
    );
    await s3.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: 'copy/dst.txt',
        CopySource: `${bucket}/copy/src.txt`,
      }),
    );
    const copied = await s3.send(
      new CopyObjectCommand({
        Bucket: other,
        Key: 'there.txt',
        CopySource: `/${bucket}/copy/src.txt`,
        MetadataDirective: 'REPLACE',
        ContentType: 'text/x-copied',
        Metadata: { n: '2' },
      }),
    );
    expect(copied.CopyObjectResult?.ETag).toMatch(/^"[0-9a-f]{32}"$/);
    const dst = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'copy/dst.txt' }));
    expect(await dst.Body?.transformToString()).toBe('copy me');
    expect(dst.Metadata).toEqual({ k: 'v' });
    const there = await s3.send(new HeadObjectCommand({ Bucket: other, Key: 'there.txt' }));
    expect(there).toMatchObject({ ContentType: 'text/x-copied', Metadata: { n: '2' } });
    await expectS3Error(
      s3.send(
        new CopyObjectCommand({ Bucket: bucket, Key: 'copy/x', CopySource: `${bucket}/nope` }),
      ),
      'NoSuchKey',
      404,
    );
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'copy/dst.txt' }));
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'copy/never-was.txt' }));
    const many = await s3.send(
      new DeleteObjectsCommand({
        Bucket: bucket,
        Delete: { Objects: [{ Key: 'copy/src.txt' }, { Key: 'copy/absent.txt' }] },
      }),
    );
    expect(many.Deleted?.map((d) => d.Key).sort()).toEqual(['copy/absent.txt', 'copy/src.txt']);
    const { data } = await service.storage.from(bucket).list('copy');
    expect(data).toEqual([]);
  });

  it('enforces bucket size limits and MIME types as REST does', async () => {
    const limited = uniqueBucket('lim');
    const made = await service.storage.createBucket(limited, {
      public: false,
      fileSizeLimit: 1000,
      allowedMimeTypes: ['text/plain'],
    });
    expect(made.error).toBeNull();
    await expectS3Error(
      s3.send(
        new PutObjectCommand({
          Bucket: limited,
          Key: 'big.txt',
          Body: bytes(1001),
          ContentType: 'text/plain',
        }),
      ),
      'EntityTooLarge',
      400,
    );
    await expectS3Error(
      s3.send(
        new PutObjectCommand({
          Bucket: limited,
          Key: 'a.png',
          Body: 'x',
          ContentType: 'image/png',
        }),
      ),
      'InvalidMimeType',
      415,
    );
    await s3.send(
      new PutObjectCommand({
        Bucket: limited,
        Key: 'ok.txt',
        Body: 'fine',
        ContentType: 'text/plain',
      }),
    );
    await expectS3Error(
      s3.send(new PutObjectCommand({ Bucket: 'no-such-bucket', Key: 'k', Body: 'x' })),
      'NoSuchBucket',
      404,
    );
  });
});
