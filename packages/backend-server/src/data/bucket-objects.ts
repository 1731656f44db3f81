/**
 * Export and import on the S3 backend (`storage.backend: 's3'`): the objects' bytes live in
 * the bucket, so an export first downloads the versions its dump names into a scratch
 * folder in storage's layout, and an import uploads the staged objects to the bucket before
 * its transaction commits. Everything else (formats, checks, the one transaction) is the
 * same as with the storage directory.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { S3Backend, type S3BackendSettings } from '../storage/backends/s3';
import { VersionGone } from '../storage/backends/types';
import { DataError } from './restore';
import { objectFile, stagingFolder, VERSION_ID } from './transfer';

/** Objects moved at once between the bucket and the local folder. */
const PARALLEL = 4;

/** Runs `work` over `items`, `PARALLEL` at a time; the first failure stops the rest. */
async function each<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
}

/** Where an export or import finds the objects' bytes when they are not in the directory. */
export interface BucketObjects {
  /** A scratch folder for an export (inside the storage folder), with the versions in it. */
  download(storageDir: string): Promise<{
    dir: string;
    fetch: (versions: string[]) => Promise<void>;
    done: () => Promise<void>;
  }>;
  /** Uploads the objects staged in `staging` (storage's layout) to the bucket. */
  upload(staging: string): Promise<void>;
}

/** The bucket of the S3 backend's settings, as export and import use it. */
export function bucketObjects(settings: S3BackendSettings): BucketObjects {
  const backend = new S3Backend(settings);
  return {
    async download(storageDir) {
      const dir = await stagingFolder(storageDir);
      const fetch = (versions: string[]) =>
        each(versions, async (version) => {
          const stored = await backend.open(version).catch((error) => {
            if (error instanceof VersionGone)
              throw new DataError(
                `the bytes of object version ${version} are missing from bucket ${settings.bucket}`,
              );
            throw error;
          });
          const path = objectFile(dir, version);
          await mkdir(dirname(path), { recursive: true });
          const body = stored.stream(0, stored.size);
          await pipeline(Readable.fromWeb(body as never), createWriteStream(path));
        });
      return { dir, fetch, done: () => rm(dir, { recursive: true, force: true }) };
    },
    async upload(staging) {
      const root = join(staging, 'objects');
      const files: { path: string; version: string }[] = [];
      for (const shard of await readdir(root).catch(() => [] as string[])) {
        for (const version of await readdir(join(root, shard))) {
          if (VERSION_ID.test(version)) files.push({ path: join(root, shard, version), version });
        }
      }
      // Each file is uploaded to its version's key and removed from the staging folder.
      await each(files, (f) => backend.adoptFile(f.path, f.version));
      await rm(root, { recursive: true, force: true });
    },
  };
}
