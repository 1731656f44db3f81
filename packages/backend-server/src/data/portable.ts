/**
 * `export` and `import` in either format: a path ending in `.tar` is one tar file
 * (`archive.ts`), any other path a folder (`directory.ts`, the fast one: its objects are
 * copied by the kernel, where the tar moves every byte through this process). Import
 * reads a folder or a file, whatever its name.
 */
import { stat } from 'node:fs/promises';
import type { Database } from '../db/index';
import { exportArchive, importArchive } from './archive';
import { exportDirectory, importDirectory } from './directory';
import type { ArchiveSummary } from './transfer';

/** True when an export to `path` writes a tar file rather than a folder. */
export const isTarPath = (path: string) => /\.tar$/i.test(path);

/**
 * Exports the database and the stored objects to `path`: a tar file if it ends in `.tar`,
 * else a folder.
 *
 * @example
 * await exportProject(server.db, server.storageDir, 'backup');      // a folder
 * await exportProject(server.db, server.storageDir, 'backup.tar');  // one tar file
 */
export function exportProject(
  db: Database,
  storageDir: string,
  path: string,
): Promise<ArchiveSummary> {
  return isTarPath(path)
    ? exportArchive(db, storageDir, path)
    : exportDirectory(db, storageDir, path);
}

/**
 * Replaces the project's data and stored objects with an export's: a folder export or a
 * tar, told apart by what `path` is. A bad export is a DataError and changes nothing.
 *
 * @example
 * await importProject(server.db, server.storageDir, 'backup', platformScripts());
 */
export async function importProject(
  db: Database,
  storageDir: string,
  path: string,
  platformSql: readonly string[],
): Promise<ArchiveSummary> {
  const info = await stat(path).catch(() => null);
  return info?.isDirectory()
    ? importDirectory(db, storageDir, path, platformSql)
    : importArchive(db, storageDir, path, platformSql);
}
