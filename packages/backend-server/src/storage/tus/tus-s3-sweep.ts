/**
 * The collector of tus uploads in the bucket (S3 backend; tus-s3-store.ts), run at start-up
 * and every hour by each replica. It removes expired uploads (their multipart upload is
 * aborted, their pending bytes and record deleted; a finished part's object too), records
 * whose multipart upload is gone, and records of uploads whose commit never ended (a crash
 * between the last byte and the commit: their bytes are left to the backend's sweep, which
 * removes them if no row took them). Uploads that became objects keep their record until they
 * expire, as on disk (tus-sweep.ts); so do complete partial uploads.
 *
 * As on disk, an upload is only removed under its lock, taken without waiting, and unless it
 * expired only once its record and pending bytes were untouched for the grace period.
 */
import { DeleteObjectCommand, HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { UUID } from './tus-ids';
import type { ObjectS3Store } from './tus-s3-store';
import type { SweepOptions } from './tus-sweep';

/** Sweeps the uploads of `store` (see above); resolves to the number of uploads removed. */
export async function sweepS3Tus(store: ObjectS3Store, options: SweepOptions = {}) {
  const { tryLock = async () => ({ unlock: async () => {} }), graceMs = 0 } = options;
  const now = options.now ?? Date.now();
  const expiryMs = store.getExpiration();
  const { client, settings } = store.backend;
  const Bucket = settings.bucket;

  /** When `key` was last written (ms), null when it is not there. */
  const written = async (Key: string) =>
    (
      await client.send(new HeadObjectCommand({ Bucket, Key })).catch(() => null)
    )?.LastModified?.getTime() ?? null;
  const idle = async (...keys: string[]) =>
    (await Promise.all(keys.map(written))).every((t) => t === null || now - t >= graceMs);

  /** Whether upload `id` is to go: expired, or dead and idle. */
  const doomed = async (id: string): Promise<boolean> => {
    const record = await store.record(id).catch(() => undefined);
    if (!record) return false;
    const created = record.creation_date ? Date.parse(record.creation_date) : 0;
    if (expiryMs > 0 && now > created + expiryMs) return true;
    if (record.storage_done) return false;
    const finishing = record.storage_finishing !== undefined;
    const gone = !record.storage_s3_complete && !(await store.state(id, record));
    if (!finishing && !gone) return false;
    return idle(store.configstore.key(id), store.pendingKey(id));
  };

  const ids = new Set<string>();
  const strays: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket, Prefix: 'tus/', ContinuationToken }),
    );
    for (const item of page.Contents ?? []) {
      const name = item.Key?.slice('tus/'.length) ?? '';
      const id = name.replace(/\.(json|part)$/, '');
      if (!UUID.test(id)) continue;
      if (name.endsWith('.json')) ids.add(id);
      else if (now - (item.LastModified?.getTime() ?? now) >= graceMs) strays.push(id);
    }
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);

  let removed = 0;
  for (const id of ids) {
    if (!(await doomed(id))) continue;
    const lock = await tryLock(id);
    if (!lock) continue;
    try {
      // Looked at again under the lock: a request may have finished with it meanwhile.
      if (!(await doomed(id))) continue;
      const record = await store.record(id);
      // An object's bytes stay (a row may hold them); an unfinished upload's go.
      if (record && !record.storage_done && !record.storage_finishing) {
        await store.dropUpload(id, record);
      }
      await client.send(new DeleteObjectCommand({ Bucket, Key: store.pendingKey(id) }));
      await store.configstore.delete(id);
      removed++;
    } finally {
      await lock.unlock();
    }
  }
  // Pending bytes without a record (their upload was removed as they were written).
  for (const id of strays) {
    if (ids.has(id) || (await written(store.configstore.key(id))) !== null) continue;
    await client.send(new DeleteObjectCommand({ Bucket, Key: store.pendingKey(id) }));
    removed++;
  }
  return removed;
}
