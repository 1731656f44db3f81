import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { crc32c } from '../../src/storage/s3/checksum';
import { databaseKind, startTestServer } from '../support/server';
import { bytes, expectS3Error, s3Client } from './s3-support';
import { uniqueBucket } from './support';

const b64 = (n: number) => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(n >>> 0);
  return out.toString('base64');
};

/** The SDK's own SigV4 signer of a client (signs the raw requests below). */
async function signer(s3: S3Client) {
  const get = s3.config.signer as unknown as () => Promise<{
    sign(r: unknown): Promise<{ headers: Record<string, string> }>;
  }>;
  return get();
}

describe(`S3 protocol: the checksums clients send (${databaseKind()})`, () => {
  let server: RunningServer;
  let s3: S3Client;
  let bucket: string;

  beforeAll(async () => {
    server = await startTestServer();
    s3 = s3Client(server);
    bucket = uniqueBucket('sums');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  });
  afterAll(() => server?.stop());

  const read = async (key: string) => {
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return Buffer.from((await got.Body?.transformToByteArray()) ?? []);
  };

  it('verifies and echoes the SDK default checksum (CRC32 of a buffer)', async () => {
    const body = bytes(100_000, 3);
    const put = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a.bin', Body: body }));
    expect(put.ChecksumCRC32).toBe(b64(crc32(body)));
    expect((await read('a.bin')).equals(body)).toBe(true);
  });

  it('verifies CRC32C, SHA1 and SHA256 too', async () => {
    const body = bytes(5000, 4);
    const c = await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'c', Body: body, ChecksumAlgorithm: 'CRC32C' }),
    );
    expect(c.ChecksumCRC32C).toBe(b64(crc32c(body)));
    const s1 = await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 's1', Body: body, ChecksumAlgorithm: 'SHA1' }),
    );
    expect(s1.ChecksumSHA1).toBe(createHash('sha1').update(body).digest('base64'));
    const s2 = await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 's2', Body: body, ChecksumAlgorithm: 'SHA256' }),
    );
    expect(s2.ChecksumSHA256).toBe(createHash('sha256').update(body).digest('base64'));
  });

  it('verifies a checksum sent as an aws-chunked trailer (a stream body)', async () => {
    const body = bytes(200_000, 5);
    const put = await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: 'streamed',
        Body: Readable.from([body.subarray(0, 70_000), body.subarray(70_000)]),
        ContentLength: body.length,
      }),
    );
    expect(put.ChecksumCRC32).toBe(b64(crc32(body)));
    expect((await read('streamed')).equals(body)).toBe(true);
  });

  it('verifies and echoes the checksum of a multipart part', async () => {
    const body = bytes(10_000, 6);
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'parts' }),
    );
    const part = { Bucket: bucket, Key: 'parts', UploadId, PartNumber: 1, Body: body };
    const sent = await s3.send(new UploadPartCommand(part));
    expect(sent.ChecksumCRC32).toBe(b64(crc32(body)));
    const wrong = b64(crc32(body) ^ 1);
    await expectS3Error(
      s3.send(new UploadPartCommand({ ...part, ChecksumCRC32: wrong })),
      'BadDigest',
      400,
    );
    await s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: 'parts', UploadId }));
  });

  it('refuses a tampered checksum with BadDigest and stores nothing', async () => {
    const body = Buffer.from('the real bytes');
    const wrong = b64(crc32(Buffer.from('other bytes')));
    await expectS3Error(
      s3.send(
        new PutObjectCommand({ Bucket: bucket, Key: 'bad', Body: body, ChecksumCRC32: wrong }),
      ),
      'BadDigest',
      400,
    );
    await expectS3Error(
      s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'bad' })),
      'NoSuchKey',
      404,
    );
    await expectS3Error(
      s3.send(
        new PutObjectCommand({ Bucket: bucket, Key: 'bad', Body: body, ChecksumCRC32: 'AAA' }),
      ),
      'InvalidRequest',
      400,
    );
  });

  it('refuses a tampered trailer with BadDigest', async () => {
    const sign = await signer(s3);
    const url = new URL(server.url);
    const payload = 'hello world';
    const send = async (checksum: string) => {
      const body = `${payload.length.toString(16)}\r\n${payload}\r\n0\r\nx-amz-checksum-crc32:${checksum}\r\n\r\n`;
      const signed = await sign.sign({
        method: 'PUT',
        protocol: 'http:',
        hostname: url.hostname,
        port: Number(url.port),
        path: `/storage/v1/s3/${bucket}/trailed.txt`,
        query: {},
        headers: {
          host: url.host,
          'content-encoding': 'aws-chunked',
          'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
          'x-amz-trailer': 'x-amz-checksum-crc32',
          'x-amz-decoded-content-length': String(payload.length),
        },
        body,
      });
      return fetch(`${server.url}/storage/v1/s3/${bucket}/trailed.txt`, {
        method: 'PUT',
        headers: signed.headers,
        body,
      });
    };
    const bad = await send(b64(crc32(Buffer.from('hello worle'))));
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('<Code>BadDigest</Code>');
    const good = await send(b64(crc32(Buffer.from(payload))));
    expect(good.status).toBe(200);
    expect(good.headers.get('x-amz-checksum-crc32')).toBe(b64(crc32(Buffer.from(payload))));
    expect((await read('trailed.txt')).toString()).toBe(payload);
  });
});
