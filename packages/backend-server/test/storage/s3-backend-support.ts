import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { inject } from 'vitest';
import type { S3StorageOptions } from '../../src/config/index';

/** The run's radosgw (test/support/global-ceph.ts), or why there is none. */
export type S3Server =
  | { available: false; reason: string }
  | {
      available: true;
      endpoint: string;
      region: string;
      accessKeyId: string;
      secretAccessKey: string;
    };

/**
 * Asks the run's globalSetup for radosgw, starting the cluster if this is the first file
 * to ask. Unavailable only when Ceph is not installed; a cluster that fails to start throws.
 */
export async function s3Server(): Promise<S3Server> {
  const res = await fetch(inject('cephControlUrl'));
  if (!res.ok) throw new Error(`ceph did not start: ${await res.text()}`);
  return (await res.json()) as S3Server;
}

/** An S3 client of the test user (path style, as radosgw on an IP address needs). */
export function s3Client(s: Extract<S3Server, { available: true }>): S3Client {
  return new S3Client({
    endpoint: s.endpoint,
    region: s.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
  });
}

/** A new bucket on radosgw and the server's `storage.s3` settings for it. */
export async function freshBucket(
  s: Extract<S3Server, { available: true }>,
): Promise<S3StorageOptions> {
  const bucket = `objects-${randomBytes(5).toString('hex')}`;
  await s3Client(s).send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    bucket,
    endpoint: s.endpoint,
    region: s.region,
    forcePathStyle: true,
    accessKeyId: s.accessKeyId,
    secretAccessKey: s.secretAccessKey,
  };
}

/** The keys in a radosgw bucket. */
export async function keysIn(client: S3Client, bucket: string): Promise<string[]> {
  const keys: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken }));
    for (const item of page.Contents ?? []) if (item.Key) keys.push(item.Key);
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return keys.sort();
}
