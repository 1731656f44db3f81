/**
 * What export and import share, whatever the format (one tar, `archive.ts`, or a folder,
 * `directory.ts`): the manifest and its checks, the dump that lists the stored objects in
 * its own snapshot, the load of a dump in one transaction that commits only once the
 * objects are staged, and the swap of the staged objects into place.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from '../db/index';
import { type Dump, dumpDatabase } from './dump';
import { applyScript, DataError, RESET_AFTER_DUMP } from './restore';
import { wipeDatabase } from './wipe';

export const ARCHIVE_FORMAT = 'backend-server-archive';
export const ARCHIVE_VERSION = 1;
export const VERSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface ArchiveManifest {
  format: typeof ARCHIVE_FORMAT;
  version: number;
  /** `directory` for a folder export (absent in a tar, whose checksums.json lists the rest). */
  layout?: 'directory';
  createdAt: string;
  source: { database: 'pglite' | 'postgres'; serverVersion: string };
  objects: {
    count: number;
    bytes: number;
    /** A folder export: every object's version and size, in version order. */
    list?: { version: string; size: number }[];
  };
  /** A folder export: database.sql's size and CRC-32. */
  database?: { bytes: number; crc32: number };
}

export interface ArchiveSummary {
  tables: number;
  rows: number;
  objects: number;
  objectBytes: number;
}

/** What an export or import says it moved. */
export const summaryOf = (
  dump: { tables: number; rows: number },
  manifest: ArchiveManifest,
): ArchiveSummary => ({
  tables: dump.tables,
  rows: dump.rows,
  objects: manifest.objects.count,
  objectBytes: manifest.objects.bytes,
});

/** A stored object's file, in storage's layout (`objects/<first 2>/<version>`). */
export const objectFile = (storageDir: string, version: string) =>
  join(storageDir, 'objects', version.slice(0, 2), version);

/** A stored object to export: its version and its file's size. */
export interface ObjectFile {
  version: string;
  size: number;
  mtime: Date;
}

/**
 * Starts a full dump of the database; `objects` resolves early, inside the dump's snapshot,
 * with the stored objects the dumped rows name (so the files match the rows and can be
 * copied while the dump goes on) and the export's manifest. A missing object file is a
 * DataError.
 */
export async function dumpWithObjects(
  db: Database,
  storageDir: string,
  fetch?: (versions: string[]) => Promise<void>,
): Promise<{
  objects: Promise<{ files: ObjectFile[]; manifest: ArchiveManifest }>;
  dump: Promise<Dump>;
}> {
  // Asked first: on PGlite, a query waits for the dump's transaction to end.
  const server = await db.query<{ v: string }>(`select current_setting('server_version') as v`);
  let listed!: (versions: string[]) => void;
  const versions = new Promise<string[]>((resolve) => {
    listed = resolve;
  });
  const dump = dumpDatabase(db, {
    onSnapshot: async (tx) => {
      const { rows } = await tx.query<{ version: string }>(
        'select version from storage.objects where version is not null order by version',
      );
      listed(rows.map((r) => r.version).filter((v) => VERSION_ID.test(v)));
    },
  });
  // If the dump fails before listing, the copy must not wait forever.
  dump.catch(() => listed([]));
  const objects = versions.then(async (list) => {
    // On the S3 backend, the versions are first downloaded into `storageDir` (a scratch folder).
    if (fetch) await fetch(list);
    const files = await Promise.all(
      list.map(async (version) => {
        const stats = await stat(objectFile(storageDir, version)).catch(() => null);
        if (!stats)
          throw new DataError(
            `the bytes of object version ${version} are missing from ${storageDir}`,
          );
        return { version, size: stats.size, mtime: stats.mtime };
      }),
    );
    const manifest: ArchiveManifest = {
      format: ARCHIVE_FORMAT,
      version: ARCHIVE_VERSION,
      createdAt: new Date().toISOString(),
      source: { database: db.kind, serverVersion: server.rows[0]?.v ?? 'unknown' },
      objects: { count: files.length, bytes: files.reduce((a, f) => a + f.size, 0) },
    };
    return { files, manifest };
  });
  objects.catch(() => {});
  return { objects, dump };
}

/**
 * Reads and checks a manifest's format and version, or says why `where` is not an export
 * this server reads (`what`: "a tar of something else", "a folder of something else").
 */
export function checkManifest(text: Buffer, where: string, what: string): ArchiveManifest {
  let manifest: Partial<ArchiveManifest>;
  try {
    manifest = JSON.parse(text.toString('utf8')) as Partial<ArchiveManifest>;
  } catch {
    throw new DataError(`${where} is not a backend-server archive (its manifest is not JSON)`);
  }
  if (manifest?.format !== ARCHIVE_FORMAT) {
    throw new DataError(`${where} is not a backend-server archive (it is ${what})`);
  }
  if (manifest.version !== ARCHIVE_VERSION) {
    throw new DataError(
      `${where} is an archive of format version ${String(manifest.version)}; this server reads version ${ARCHIVE_VERSION}`,
    );
  }
  return manifest as ArchiveManifest;
}

/**
 * Replaces the database's project data with a dump's in one transaction, which commits only
 * once `staged` (the objects' copy into a staging folder) resolved with no error. Any
 * failure is a DataError, and leaves the database as it was.
 */
export async function loadProject(
  db: Database,
  platformSql: readonly string[],
  script: Uint8Array,
  staged: Promise<DataError | null>,
  where: string,
): Promise<{ tables: number; rows: number }> {
  let rows = 0;
  let tables = 0;
  try {
    await db.transaction(async (tx) => {
      await wipeDatabase(tx, platformSql);
      const loaded = await applyScript(tx, script);
      rows = loaded.rows;
      tables = loaded.tables;
      await tx.exec(
        `do $$ begin
           if to_regproc('realtime.sync_capture_triggers') is not null then
             perform realtime.sync_capture_triggers();
           end if;
         end $$`,
      );
      // Commit only once every object is staged (and matched its checksum).
      const failed = await staged;
      if (failed) throw failed;
    });
  } catch (error) {
    if (error instanceof DataError) throw error;
    throw new DataError(`${where}: the database could not be loaded: ${(error as Error).message}`);
  } finally {
    await db.exec(RESET_AFTER_DUMP).catch(() => {});
  }
  return { tables, rows };
}

/**
 * Chains `publish` (on the S3 backend: the staged objects' upload to the bucket) after the
 * staging, so the import's transaction commits only once it is done too.
 */
export function thenPublish(
  staged: Promise<DataError | null>,
  staging: string,
  where: string,
  publish?: (staging: string) => Promise<void>,
): Promise<DataError | null> {
  if (!publish) return staged;
  return staged.then(async (failed) => {
    if (failed) return failed;
    try {
      await publish(staging);
      return null;
    } catch (error) {
      return error instanceof DataError
        ? error
        : new DataError(`${where}: its objects could not be stored: ${(error as Error).message}`);
    }
  });
}

/** A staging folder for imported objects, inside the storage folder (same file system). */
export async function stagingFolder(storageDir: string): Promise<string> {
  await mkdir(storageDir, { recursive: true });
  return join(storageDir, `.import-${randomBytes(6).toString('hex')}`);
}

/** Puts the staged objects in place of the current ones; unfinished uploads are dropped. */
export async function replaceObjects(storageDir: string, staging: string): Promise<void> {
  const current = join(storageDir, 'objects');
  const old = join(storageDir, `.old-${randomBytes(6).toString('hex')}`);
  await mkdir(join(staging, 'objects'), { recursive: true });
  const hadObjects = await stat(current).then(
    () => true,
    () => false,
  );
  if (hadObjects) await rename(current, old);
  await rename(join(staging, 'objects'), current);
  await rm(old, { recursive: true, force: true });
  for (const dir of ['tus', 'tmp']) {
    const path = join(storageDir, dir);
    for (const name of await readdir(path).catch(() => [] as string[])) {
      await rm(join(path, name), { recursive: true, force: true });
    }
  }
}
