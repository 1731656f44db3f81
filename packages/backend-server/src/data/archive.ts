/**
 * The portable archive of a project (`backend-server export` / `import`): an uncompressed
 * tar holding `manifest.json` (first), `objects/<version>` (the bytes of every stored
 * object), `database.sql` (a full dump of ours: schema and rows) and `checksums.json` (last:
 * CRC-32 of every entry, so damage and truncation are found before anything changes).
 * The dump is logical, so an archive moves between PGlite and PostgreSQL either way.
 */
import { randomBytes } from 'node:crypto';
import { type FileHandle, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { Database } from '../db/index';
import { startCopyThread } from './copy';
import { DataError } from './restore';
import { header, type TarEntry, TarError, TarReader, TarWriter } from './tar';
import {
  type ArchiveSummary,
  checkManifest,
  dumpWithObjects,
  loadProject,
  objectFile,
  replaceObjects,
  stagingFolder,
  summaryOf,
  thenPublish,
  VERSION_ID,
} from './transfer';

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
  fetch?: (versions: string[]) => Promise<void>,
): Promise<ArchiveSummary> {
  const thread = startCopyThread();
  const partial = join(
    dirname(file),
    `.${basename(file)}.${randomBytes(4).toString('hex')}.partial`,
  );
  let out: FileHandle | null = null;
  let dumped: Promise<unknown> | null = null;
  try {
    const started = await dumpWithObjects(db, storageDir, fetch);
    dumped = started.dump;
    out = await open(partial, 'w');
    const { files, manifest } = await started.objects;
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
    const [reply, dump] = await Promise.all([packed, started.dump]);
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
    return summaryOf(dump, manifest);
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
  const manifest = checkManifest(await tar.read(first), file, 'a tar of something else');
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
  publish?: (staging: string) => Promise<void>,
): Promise<ArchiveSummary> {
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) throw new DataError(`${file} does not exist`);
  const thread = startCopyThread();
  const input = await open(file, 'r');
  const staging = await stagingFolder(storageDir);
  let staged: Promise<DataError | null> | null = null;
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

    staged = thenPublish(extraction, staging, file, publish);
    const { tables, rows } = await loadProject(db, platformSql, script, staged, file);
    await replaceObjects(storageDir, staging);
    return summaryOf({ tables, rows }, manifest);
  } finally {
    // Stops an extraction still running (the database failed first) before its folder goes.
    await thread.stop();
    await staged; // an upload to the bucket under way
    await input.close();
    await rm(staging, { recursive: true, force: true });
  }
}
