/**
 * The portable archive of a project (`backend-server export` / `import`): an uncompressed
 * tar holding `manifest.json` (first), `database.sql` (a full dump of ours: schema and
 * rows), `objects/<version>` (the bytes of every stored object) and `checksums.json` (last:
 * CRC-32 of every entry, so damage and truncation are found before anything changes).
 * The dump is logical, so an archive moves between PGlite and PostgreSQL either way.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { Database } from '../db/index';
import { dumpDatabase } from './dump';
import { applyScript, DataError, RESET_AFTER_DUMP } from './restore';
import { TarError, TarReader, TarWriter } from './tar';
import { wipeDatabase } from './wipe';

export const ARCHIVE_FORMAT = 'backend-server-archive';
export const ARCHIVE_VERSION = 1;
const VERSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CHUNK = 4 << 20;

export interface ArchiveManifest {
  format: typeof ARCHIVE_FORMAT;
  version: number;
  createdAt: string;
  source: { database: 'pglite' | 'postgres'; serverVersion: string };
  database: { file: 'database.sql'; bytes: number; tables: number; rows: number };
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
 * file renamed at the end, so a failed export leaves nothing half written).
 */
export async function exportArchive(
  db: Database,
  storageDir: string,
  file: string,
): Promise<ArchiveSummary> {
  let versions: string[] = [];
  const dump = await dumpDatabase(db, {
    onSnapshot: async (tx) => {
      const { rows } = await tx.query<{ version: string }>(
        'select version from storage.objects where version is not null order by version',
      );
      versions = rows.map((r) => r.version).filter((v) => VERSION_ID.test(v));
    },
  });
  const sizes: number[] = [];
  for (const version of versions) {
    const info = await stat(objectFile(storageDir, version)).catch(() => null);
    if (!info)
      throw new DataError(`the bytes of object version ${version} are missing from ${storageDir}`);
    sizes.push(info.size);
  }
  const server = await db.query<{ v: string }>(`select current_setting('server_version') as v`);
  const manifest: ArchiveManifest = {
    format: ARCHIVE_FORMAT,
    version: ARCHIVE_VERSION,
    createdAt: new Date().toISOString(),
    source: { database: db.kind, serverVersion: server.rows[0]?.v ?? 'unknown' },
    database: { file: 'database.sql', bytes: dump.bytes, tables: dump.tables, rows: dump.rows },
    objects: { count: versions.length, bytes: sizes.reduce((a, b) => a + b, 0) },
  };
  const partial = join(
    dirname(file),
    `.${basename(file)}.${randomBytes(4).toString('hex')}.partial`,
  );
  const out = await open(partial, 'w');
  try {
    const tar = new TarWriter(out);
    const checksums: Record<string, number> = {};
    await tar.add('manifest.json', [Buffer.from(JSON.stringify(manifest, null, 2))]);
    let crc = 0;
    for (const chunk of dump.chunks) crc = crc32(chunk, crc);
    checksums['database.sql'] = crc;
    await tar.add('database.sql', dump.chunks);
    const buffer = Buffer.allocUnsafe(CHUNK);
    for (const [i, version] of versions.entries()) {
      const source = await open(objectFile(storageDir, version), 'r');
      try {
        let sum = 0;
        const info = await source.stat();
        await tar.addFile(
          `objects/${version}`,
          source,
          sizes[i] as number,
          info.mtime,
          (chunk) => {
            sum = crc32(chunk, sum);
          },
          buffer,
        );
        checksums[`objects/${version}`] = sum;
      } finally {
        await source.close();
      }
    }
    await tar.add('checksums.json', [Buffer.from(JSON.stringify(checksums))]);
    await tar.finish();
    await out.sync();
  } catch (error) {
    await out.close().catch(() => {});
    await rm(partial, { force: true });
    throw error;
  }
  await out.close();
  await rename(partial, file);
  return {
    tables: dump.tables,
    rows: dump.rows,
    objects: versions.length,
    objectBytes: manifest.objects.bytes,
  };
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

/**
 * Replaces the database's project data and the stored objects with an archive's. Every
 * entry is read and checked (manifest, checksums, completeness) into a staging folder
 * before the database changes; the database changes in one transaction; the objects folder
 * is swapped after it commits. A bad archive changes nothing.
 */
export async function importArchive(
  db: Database,
  storageDir: string,
  file: string,
  platformSql: readonly string[],
): Promise<ArchiveSummary> {
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) throw new DataError(`${file} does not exist`);
  const input = await open(file, 'r');
  await mkdir(storageDir, { recursive: true });
  const staging = join(storageDir, `.import-${randomBytes(6).toString('hex')}`);
  try {
    const tar = new TarReader(input, info.size);
    const read = async () => {
      try {
        return await tar.next();
      } catch (error) {
        if (error instanceof TarError) throw new DataError(`${file} is damaged: ${error.message}`);
        throw error;
      }
    };
    let first: Awaited<ReturnType<TarReader['next']>>;
    try {
      first = await tar.next();
    } catch {
      throw new DataError(`${file} is not a backend-server archive (not a tar file)`);
    }
    if (first?.name !== 'manifest.json' || first.size > 1 << 20) {
      throw new DataError(`${file} is not a backend-server archive (no manifest.json first)`);
    }
    const manifest = checkManifest(await tar.read(first), file);
    const sql = await read();
    if (sql?.name !== 'database.sql')
      throw new DataError(`${file} is damaged: database.sql is missing`);
    const script = await tar.read(sql);
    const sums: Record<string, number> = { 'database.sql': crc32(script) };
    const buffer = Buffer.allocUnsafe(CHUNK);
    let objects = 0;
    let checksums: Record<string, number> | null = null;
    for (;;) {
      const entry = await read();
      if (!entry) break;
      if (entry.name === 'checksums.json') {
        checksums = JSON.parse((await tar.read(entry)).toString('utf8')) as Record<string, number>;
        continue;
      }
      const version = entry.name.startsWith('objects/') ? entry.name.slice(8) : '';
      if (!VERSION_ID.test(version))
        throw new DataError(`${file} is damaged: unexpected entry ${entry.name}`);
      const target = objectFile(staging, version);
      await mkdir(dirname(target), { recursive: true });
      const out = await open(target, 'wx');
      try {
        let sum = 0;
        let done = 0;
        while (done < entry.size) {
          const want = Math.min(buffer.length, entry.size - done);
          const { bytesRead } = await input.read(buffer, 0, want, entry.offset + done);
          if (bytesRead === 0) throw new DataError(`${file} is cut short in ${entry.name}`);
          const chunk = buffer.subarray(0, bytesRead);
          sum = crc32(chunk, sum);
          await out.write(chunk, 0, bytesRead);
          done += bytesRead;
        }
        sums[entry.name] = sum;
      } finally {
        await out.close();
      }
      objects += 1;
    }
    if (!checksums) throw new DataError(`${file} is cut short (checksums.json is missing)`);
    if (objects !== manifest.objects.count || Object.keys(checksums).length !== objects + 1) {
      throw new DataError(
        `${file} is damaged: it holds ${objects} objects, its manifest says ${manifest.objects.count}`,
      );
    }
    for (const [name, sum] of Object.entries(sums)) {
      if (checksums[name] !== sum)
        throw new DataError(`${file} is damaged: ${name} does not match its checksum`);
    }

    try {
      await db.transaction(async (tx) => {
        await wipeDatabase(tx, platformSql);
        await applyScript(tx, script);
        await tx.exec(
          `do $$ begin
             if to_regproc('realtime.sync_capture_triggers') is not null then
               perform realtime.sync_capture_triggers();
             end if;
           end $$`,
        );
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
    return {
      tables: manifest.database.tables,
      rows: manifest.database.rows,
      objects,
      objectBytes: manifest.objects.bytes,
    };
  } finally {
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
