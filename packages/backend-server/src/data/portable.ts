/**
 * `export` and `import` in either format: a path ending in `.tar` is one tar file
 * (`archive.ts`), any other path a folder (`directory.ts`, the fast one: its objects are
 * copied by the kernel, where the tar moves every byte through this process). Import
 * reads a folder or a file, whatever its name.
 */
import { stat } from 'node:fs/promises';
import type { Database } from '../db/index';
import type { S3BackendSettings } from '../storage/backends/s3';
import { exportArchive, importArchive } from './archive';
import { bucketObjects } from './bucket-objects';
import { exportDirectory, importDirectory } from './directory';
import type { ArchiveSummary } from './transfer';

/** True when an export to `path` writes a tar file rather than a folder. */
export const isTarPath = (path: string) => /\.tar$/i.test(path);

/**
 * Exports the database and the stored objects to `path`: a tar file if it ends in `.tar`,
 * else a folder. With `s3` (the S3 backend's settings) the objects' bytes are read from its
 * bucket, through a scratch folder in `storageDir`.
 *
 * @example
 * await exportProject(server.db, server.storageDir, 'backup');      // a folder
 * await exportProject(server.db, server.storageDir, 'backup.tar');  // one tar file
 * await exportProject(server.db, server.storageDir, 'backup', server.storageS3); // either backend
 */
export async function exportProject(
  db: Database,
  storageDir: string,
  path: string,
  s3: S3BackendSettings | null = null,
): Promise<ArchiveSummary> {
  const scratch = s3 ? await bucketObjects(s3).download(storageDir) : null;
  const from = scratch?.dir ?? storageDir;
  try {
    return isTarPath(path)
      ? await exportArchive(db, from, path, scratch?.fetch)
      : await exportDirectory(db, from, path, scratch?.fetch);
  } finally {
    await scratch?.done();
  }
}

/**
 * Replaces the project's data and stored objects with an export's: a folder export or a
 * tar, told apart by what `path` is. A bad export is a DataError and changes nothing. With
 * `s3` (the S3 backend's settings) the objects are staged in `storageDir`, then uploaded to
 * its bucket before the database's transaction commits; the bucket's objects no row names
 * any more are left to the server's sweep.
 *
 * @example
 * await importProject(server.db, server.storageDir, 'backup', platformScripts());
 */
export async function importProject(
  db: Database,
  storageDir: string,
  path: string,
  platformSql: readonly string[],
  s3: S3BackendSettings | null = null,
): Promise<ArchiveSummary> {
  const info = await stat(path).catch(() => null);
  const publish = s3 ? bucketObjects(s3).upload : undefined;
  return info?.isDirectory()
    ? importDirectory(db, storageDir, path, platformSql, publish)
    : importArchive(db, storageDir, path, platformSql, publish);
}
