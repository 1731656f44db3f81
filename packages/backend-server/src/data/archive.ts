/**
 * The portable archive of a project (`backend-server export` / `import`): an uncompressed
 * tar holding `manifest.json` (first), `objects/<version>` (the bytes of every stored
 * object), `database.sql` (a full dump of ours: schema and rows) and `checksums.json` (last:
 * CRC-32 of every entry, so damage and truncation are found before anything changes).
 * The dump is logical, so an archive moves between PGlite and PostgreSQL either way.
 */
import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { Database } from '../db/index';
import { startCopyThread } from './copy';
import { type Dump, dumpDatabase } from './dump';
import { applyScript, DataError, RESET_AFTER_DUMP } from './restore';
import { header, type TarEntry, TarError, TarReader, TarWriter } from './tar';
import { wipeDatabase } from './wipe';

export const ARCHIVE_FORMAT = 'backend-server-archive';
export const ARCHIVE_VERSION = 1;
const VERSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface ArchiveManifest {
  format: typeof ARCHIVE_FORMAT;
  version: number;
  createdAt: string;
  source: { database: 'pglite' | 'postgres'; serverVersion: string };
  objects: { count: number; bytes: number };
}

export interface ArchiveSummary {
  tables: number;
  rows: number;
  objects: number;
  objectBytes: number;
}

const objectFile = (storageDir: string, version: string) =>
  join(storageDir, 'objects', version.slice(0, 2), version);

/**
 * Writes an archive of the database and the stored objects to `file` (through a temporary
 * file renamed at the end, so a failed export leaves nothing half written). The objects are
 * copied by the copy thread while the main thread dumps the database: both come from one
 * snapshot (the dump's transaction lists the object versions first).
 */
export async function exportArchive(
  db: Database,
  storageDir: string,
  file: string,
): Promise<ArchiveSummary> {
  const thread = startCopyThread();
  const partial = join(
    dirname(file),
    `.${basename(file)}.${randomBytes(4).toString('hex')}.partial`,
  );
  let out: FileHandle | null = null;
  let listed!: (versions: string[]) => void;
  const versionsReady = new Promise<string[]>((resolve) => {
    listed = resolve;
  });
  let dumped: Promise<Dump> | null = null;
  try {
    const server = await db.query<{ v: string }>(`select current_setting('server_version') as v`);
    dumped = dumpDatabase(db, {
      onSnapshot: async (tx) => {
        const { rows } = await tx.query<{ version: string }>(
          'select version from storage.objects where version is not null order by version',
        );
        listed(rows.map((r) => r.version).filter((v) => VERSION_ID.test(v)));
      },
    });
    // If the dump fails before listing, the writer must not wait forever.
    dumped.catch(() => listed([]));
    out = await open(partial, 'w');
    const versions = await versionsReady;
    const files = await Promise.all(
      versions.map(async (version) => {
        const stats = await stat(objectFile(storageDir, version)).catch(() => null);
        if (!stats)
          throw new DataError(
            `the bytes of object version ${version} are missing from ${storageDir}`,
          );
        return { version, size: stats.size, mtime: stats.mtime };
      }),
    );
    const objectBytes = files.reduce((a, f) => a + f.size, 0);
    const manifest: ArchiveManifest = {
      format: ARCHIVE_FORMAT,
      version: ARCHIVE_VERSION,
      createdAt: new Date().toISOString(),
      source: { database: db.kind, serverVersion: server.rows[0]?.v ?? 'unknown' },
      objects: { count: files.length, bytes: objectBytes },
    };
    const tar = new TarWriter(out);
    await tar.add('manifest.json', [Buffer.from(JSON.stringify(manifest, null, 2))]);
    const packed = thread.run({
      op: 'pack',
      archive: partial,
      direct: true,
      at: tar.position,
      entries: files.map((f) => ({
        source: objectFile(storageDir, f.version),
        size: f.size,
        header: header(`objects/${f.version}`, f.size, f.mtime),
      })),
    });
    const [reply, dump] = await Promise.all([packed, dumped]);
    if (!reply.ok) {
      throw new DataError(
        `the bytes of object version ${files[reply.index]?.version} could not be copied: ${reply.message}`,
      );
    }
    const checksums: Record<string, number> = {};
    for (const [i, f] of files.entries())
      checksums[`objects/${f.version}`] = reply.sums[i] as number;
    let crc = 0;
    for (const chunk of dump.chunks) crc = crc32(chunk, crc);
    checksums['database.sql'] = crc;
    tar.skipTo(reply.end);
    await tar.add('database.sql', dump.chunks);
    await tar.add('checksums.json', [Buffer.from(JSON.stringify(checksums))]);
    await tar.finish();
    await out.close();
    out = null;
    await rename(partial, file);
    return { tables: dump.tables, rows: dump.rows, objects: files.length, objectBytes };
  } catch (error) {
    await thread.stop(); // closes its handle on the partial file
    await out?.close().catch(() => {});
    await rm(partial, { force: true });
    await dumped?.catch(() => {});
    throw error;
  } finally {
    await thread.stop();
  }
}

/** Reads and checks an archive's manifest, or says why the file is not one we can read. */
function checkManifest(text: Buffer, file: string): ArchiveManifest {
  let manifest: Partial<ArchiveManifest>;
  try {
    manifest = JSON.parse(text.toString('utf8')) as Partial<ArchiveManifest>;
  } catch {
    throw new DataError(`${file} is not a backend-server archive (its manifest is not JSON)`);
  }
  if (manifest.format !== ARCHIVE_FORMAT) {
    throw new DataError(`${file} is not a backend-server archive (it is a tar of something else)`);
  }
  if (manifest.version !== ARCHIVE_VERSION) {
    throw new DataError(
      `${file} is an archive of format version ${String(manifest.version)}; this server reads version ${ARCHIVE_VERSION}`,
    );
  }
  return manifest as ArchiveManifest;
}

/** The entries of an archive, found by reading its headers only, and checked for shape. */
async function readIndex(input: FileHandle, size: number, file: string) {
  const tar = new TarReader(input, size);
  let first: TarEntry | null;
  try {
    first = await tar.next();
  } catch {
    throw new DataError(`${file} is not a backend-server archive (not a tar file)`);
  }
  if (first?.name !== 'manifest.json' || first.size > 1 << 20) {
    throw new DataError(`${file} is not a backend-server archive (no manifest.json first)`);
  }
  const manifest = checkManifest(await tar.read(first), file);
  const objects: { version: string; entry: TarEntry }[] = [];
  let sql: TarEntry | null = null;
  let sums: TarEntry | null = null;
  for (;;) {
    let entry: TarEntry | null;
    try {
      entry = await tar.next();
    } catch (error) {
      if (error instanceof TarError) throw new DataError(`${file} is damaged: ${error.message}`);
      throw error;
    }
    if (!entry) break;
    if (entry.name === 'database.sql') sql = entry;
    else if (entry.name === 'checksums.json') sums = entry;
    else {
      const version = entry.name.startsWith('objects/') ? entry.name.slice(8) : '';
      if (!VERSION_ID.test(version))
        throw new DataError(`${file} is damaged: unexpected entry ${entry.name}`);
      objects.push({ version, entry });
    }
  }
  if (!sums) throw new DataError(`${file} is cut short (checksums.json is missing)`);
  if (!sql) throw new DataError(`${file} is damaged: database.sql is missing`);
  let checksums: Record<string, number>;
  try {
    checksums = JSON.parse((await tar.read(sums)).toString('utf8')) as Record<string, number>;
  } catch {
    throw new DataError(`${file} is damaged: checksums.json is not JSON`);
  }
  if (
    objects.length !== manifest.objects.count ||
    Object.keys(checksums).length !== objects.length + 1
  ) {
    throw new DataError(
      `${file} is damaged: it holds ${objects.length} objects, its manifest says ${manifest.objects.count}`,
    );
  }
  const script = await tar.read(sql);
  if (checksums['database.sql'] !== crc32(script)) {
    throw new DataError(`${file} is damaged: database.sql does not match its checksum`);
  }
  return { manifest, objects, script, checksums };
}

/**
 * Replaces the database's project data and the stored objects with an archive's. The whole
 * archive is checked (manifest, format version, completeness, every checksum) before anything
 * changes for good: the objects are extracted into a staging folder while the database is
 * loaded in one transaction, which commits only once every object matched its checksum; the
 * objects folder is swapped after the commit. A bad archive changes nothing.
 */
export async function importArchive(
  db: Database,
  storageDir: string,
  file: string,
  platformSql: readonly string[],
): Promise<ArchiveSummary> {
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) throw new DataError(`${file} does not exist`);
  const thread = startCopyThread();
  const input = await open(file, 'r');
  await mkdir(storageDir, { recursive: true });
  const staging = join(storageDir, `.import-${randomBytes(6).toString('hex')}`);
  try {
    const { manifest, objects, script, checksums } = await readIndex(input, info.size, file);
    const extraction = thread
      .run({
        op: 'unpack',
        archive: file,
        direct: true,
        entries: objects.map(({ version, entry }) => ({
          offset: entry.offset,
          size: entry.size,
          target: objectFile(staging, version),
          sum: checksums[entry.name] as number,
        })),
      })
      .then(
        (reply): DataError | null =>
          reply.ok
            ? null
            : new DataError(
                `${file} is damaged: ${objects[reply.index]?.entry.name ?? 'an object'}${reply.reason === 'checksum' ? ' ' : ': '}${reply.message}`,
              ),
        (error: Error) => new DataError(`${file} could not be read: ${error.message}`),
      );

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
        // Commit only once every object is staged and matched its checksum.
        const failed = await extraction;
        if (failed) throw failed;
      });
    } catch (error) {
      if (error instanceof DataError) throw error;
      throw new DataError(
        `the archive's database could not be loaded: ${(error as Error).message}`,
      );
    } finally {
      await db.exec(RESET_AFTER_DUMP).catch(() => {});
    }
    await replaceObjects(storageDir, staging);
    return { tables, rows, objects: objects.length, objectBytes: manifest.objects.bytes };
  } finally {
    // Stops an extraction still running (the database failed first) before its folder goes.
    await thread.stop();
    await input.close();
    await rm(staging, { recursive: true, force: true });
  }
}

/** Puts the staged objects in place of the current ones; unfinished uploads are dropped. */
async function replaceObjects(storageDir: string, staging: string): Promise<void> {
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
