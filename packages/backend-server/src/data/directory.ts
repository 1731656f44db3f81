/**
 * The folder export of a project (`backend-server export DIR`, as the Firebase emulators'
 * `emulators:export DIR`): `manifest.json` (format, version, source, every object's version
 * and size, database.sql's size and CRC-32), `database.sql` (the same full dump as the tar's)
 * and `objects/<first 2>/<version>` (storage's own layout: plain files).
 *
 * It is the fast format: the objects are hard-linked where the export and the storage folder
 * share a file system, as `git clone` does with a local repository's objects (and read-only,
 * as git's are) — safe because storage never writes an object's file in place (new bytes are
 * always a new version's file, written aside and renamed in, and removal is an unlink, which
 * leaves the other name). Across file systems, or where links are refused, the kernel copies
 * them (`fs.copyFile`: a reflink where the file system has them, else an in-kernel copy, as
 * `cp` does). Either way several at a time, while the database is dumped or loaded; the tar
 * moves every byte through this process. The objects' contents carry no checksum: a CRC-32
 * pass over 1 GiB (reading it into the program on a thread of its own, alongside the kernel's
 * copy) made export + import 0.3 s slower, 1.7× `pg_dump | psql` + `cp -r` instead of 1.2×
 * (bench/data.bench.ts). Their sizes, the folder's shape and database.sql's checksum are
 * checked; the tar has a CRC-32 for every byte.
 */
import { randomBytes } from 'node:crypto';
import { constants, type Dirent } from 'node:fs';
import {
  chmod,
  copyFile,
  link,
  lstat,
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  writeFile,
} from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { crc32 } from 'node:zlib';
import type { Database } from '../db/index';
import { DataError } from './restore';
import {
  type ArchiveManifest,
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

/** Files placed at once (each a link, or an in-kernel copy, on the thread pool). */
const PARALLEL_COPIES = 4;
const MANIFEST = 'manifest.json';
const SQL = 'database.sql';
/** Why `link` fails where a copy still works: another file system, or links not allowed. */
const NO_LINK = new Set(['EXDEV', 'EPERM', 'EMLINK', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

type Listed = NonNullable<ArchiveManifest['objects']['list']>[number];

/**
 * Gives `to` the bytes of `from`: a hard link where it can, else a copy by the kernel. A link
 * is made read-only (both names share it), so an exported file is not edited in place by
 * mistake; where the mode cannot be changed (another owner's file), it stays as it was.
 */
async function place(from: string, to: string): Promise<void> {
  const linked = await link(from, to).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (NO_LINK.has(error.code ?? '')) return false;
      throw error;
    },
  );
  if (linked) await chmod(to, 0o444).catch(() => {});
  // A reflink where the file system has them, else a copy inside the kernel.
  else await copyFile(from, to, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
}

/**
 * Places each `[from, to]` file (its folder is made), `PARALLEL_COPIES` at a time, until
 * all are done or `stopped()`; rejects with the first failure, after the ones under way.
 */
async function placeFiles(pairs: [string, string][], stopped: () => boolean): Promise<void> {
  const folders = new Set(pairs.map(([, to]) => dirname(to)));
  for (const folder of folders) await mkdir(folder, { recursive: true });
  let next = 0;
  let failure: unknown = null;
  const worker = async () => {
    while (next < pairs.length && failure === null && !stopped()) {
      const [from, to] = pairs[next++] as [string, string];
      await place(from, to).catch((error: unknown) => {
        failure ??= error;
      });
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_COPIES }, worker));
  if (failure) throw failure;
  if (stopped()) throw new Error('cancelled');
}

/** True when `dir` holds nothing but a folder export's names (so it may be replaced). */
async function isExportFolder(dir: string): Promise<boolean> {
  const names = await readdir(dir);
  if (names.length === 0) return true;
  if (!names.every((n) => n === MANIFEST || n === SQL || n === 'objects')) return false;
  const text = await readFile(join(dir, MANIFEST)).catch(() => null);
  if (!text) return false;
  try {
    return checkManifest(text, dir, '').layout === 'directory';
  } catch {
    return false;
  }
}

/** Refuses a target that exists and is not an empty folder or a folder export of ours. */
async function checkTarget(dir: string): Promise<boolean> {
  const info = await lstat(dir).catch(() => null);
  if (!info) return false;
  if (!info.isDirectory()) {
    throw new DataError(
      `${dir} exists and is not a folder (a path ending in .tar writes a tar archive)`,
    );
  }
  if (!(await isExportFolder(dir))) {
    throw new DataError(
      `${dir} is a folder that is not a backend-server export; export into a new or empty folder`,
    );
  }
  return true;
}

/**
 * Writes a folder export of the database and the stored objects to `dir`: into a temporary
 * sibling folder renamed at the end, so a failed export leaves nothing half written. An
 * existing `dir` is replaced only when it is empty or a folder export itself.
 */
export async function exportDirectory(
  db: Database,
  storageDir: string,
  dir: string,
  fetch?: (versions: string[]) => Promise<void>,
): Promise<ArchiveSummary> {
  const target = resolve(dir);
  await checkTarget(target);
  await mkdir(dirname(target), { recursive: true });
  const hex = randomBytes(4).toString('hex');
  const partial = join(dirname(target), `.${basename(target)}.${hex}.partial`);
  let stop = false;
  let dumped: Promise<unknown> | null = null;
  let copied: Promise<unknown> | null = null;
  try {
    await mkdir(partial);
    const started = await dumpWithObjects(db, storageDir, fetch);
    dumped = started.dump;
    const { files, manifest } = await started.objects;
    copied = placeFiles(
      files.map((f) => [objectFile(storageDir, f.version), objectFile(partial, f.version)]),
      () => stop,
    );
    const [dump] = await Promise.all([started.dump, copied]);
    let crc = 0;
    for (const chunk of dump.chunks) crc = crc32(chunk, crc);
    await writeFile(join(partial, SQL), dump.chunks);
    manifest.layout = 'directory';
    manifest.database = { bytes: dump.bytes, crc32: crc };
    manifest.objects.list = files.map((f) => ({ version: f.version, size: f.size }));
    await writeFile(join(partial, MANIFEST), `${JSON.stringify(manifest, null, 1)}\n`);
    // Checked again: something may have appeared there meanwhile.
    const old = (await checkTarget(target)) ? `${partial.slice(0, -8)}.old` : null;
    if (old) await rename(target, old);
    await rename(partial, target);
    if (old) await rm(old, { recursive: true, force: true });
    return summaryOf(dump, manifest);
  } catch (error) {
    stop = true;
    await Promise.allSettled([dumped, copied]);
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
}

/** Names every entry of a folder export that should not be there (none, when all is well). */
async function strayEntries(dir: string, listed: Map<string, Listed>): Promise<string[]> {
  const stray: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  const kind = (e: Dirent) => (e.isFile() ? 'file' : e.isDirectory() ? 'dir' : 'other');
  for (const e of entries) {
    const ok =
      (e.name === MANIFEST && kind(e) === 'file') ||
      (e.name === SQL && kind(e) === 'file') ||
      (e.name === 'objects' && kind(e) === 'dir');
    if (!ok) stray.push(e.name);
  }
  if (!entries.some((e) => e.name === 'objects' && e.isDirectory())) return stray;
  for (const group of await readdir(join(dir, 'objects'), { withFileTypes: true })) {
    const path = `objects/${group.name}`;
    if (!group.isDirectory() || !/^[0-9a-f]{2}$/.test(group.name)) {
      stray.push(path);
      continue;
    }
    for (const e of await readdir(join(dir, path), { withFileTypes: true })) {
      const ok = e.isFile() && listed.has(e.name) && e.name.startsWith(group.name);
      if (!ok) stray.push(`${path}/${e.name}`);
    }
  }
  return stray;
}

/**
 * Reads and checks a whole folder export before anything changes: its manifest (format,
 * version, the object list's shape), that it holds nothing else (no links, no other files),
 * every listed object with its size, and database.sql against its size and checksum.
 */
async function readFolder(dir: string) {
  const text = await readFile(join(dir, MANIFEST)).catch(() => null);
  if (!text) throw new DataError(`${dir} is not a backend-server export (no ${MANIFEST})`);
  const manifest = checkManifest(text, dir, 'a folder of something else');
  const list = manifest.objects?.list;
  const damaged = (why: string) => new DataError(`${dir} is damaged: ${why}`);
  if (manifest.layout !== 'directory' || !Array.isArray(list) || !manifest.database) {
    throw damaged(`${MANIFEST} is not a folder export's (no object list)`);
  }
  const listed = new Map<string, Listed>();
  for (const o of list) {
    const good = VERSION_ID.test(String(o?.version)) && Number.isSafeInteger(o.size) && o.size >= 0;
    if (!good || listed.has(o.version)) throw damaged(`${MANIFEST} lists a bad object entry`);
    listed.set(o.version, o);
  }
  if (listed.size !== manifest.objects.count) {
    throw damaged(`${MANIFEST} lists ${listed.size} objects and counts ${manifest.objects.count}`);
  }
  const stray = await strayEntries(dir, listed);
  if (stray.length > 0) {
    throw damaged(
      `unexpected ${stray.length > 1 ? 'entries' : 'entry'} ${stray.slice(0, 3).join(', ')}`,
    );
  }
  for (const o of list) {
    const path = `objects/${o.version.slice(0, 2)}/${o.version}`;
    const info = await lstat(join(dir, path)).catch(() => null);
    if (!info) throw damaged(`${path} is missing`);
    if (info.size !== o.size) {
      throw damaged(`${path} has ${info.size} bytes, ${MANIFEST} says ${o.size}`);
    }
  }
  const sql = join(dir, SQL);
  const info = await lstat(sql).catch(() => null);
  if (!info) throw damaged(`${SQL} is missing`);
  if (info.size !== manifest.database.bytes) {
    throw damaged(`${SQL} has ${info.size} bytes, ${MANIFEST} says ${manifest.database.bytes}`);
  }
  const script = await readFile(sql);
  if (crc32(script) !== manifest.database.crc32) {
    throw damaged(`${SQL} does not match its checksum`);
  }
  return { manifest, list, script };
}

/**
 * Replaces the database's project data and the stored objects with a folder export's. The
 * folder is checked first (see `readFolder`); then the objects are linked (or copied) into a
 * staging folder while the database is loaded in one transaction, which commits only once
 * every object is in place; the objects folder is swapped after the commit. A bad export
 * changes nothing.
 */
export async function importDirectory(
  db: Database,
  storageDir: string,
  dir: string,
  platformSql: readonly string[],
  publish?: (staging: string) => Promise<void>,
): Promise<ArchiveSummary> {
  const { manifest, list, script } = await readFolder(dir);
  const staging = await stagingFolder(storageDir);
  let stop = false;
  const staged = placeFiles(
    list.map((o) => [objectFile(dir, o.version), objectFile(staging, o.version)]),
    () => stop,
  ).then(
    () => null,
    (error: Error) => new DataError(`${dir}: its objects could not be copied: ${error.message}`),
  );
  const published = thenPublish(staged, staging, dir, publish);
  try {
    const { tables, rows } = await loadProject(db, platformSql, script, published, dir);
    await replaceObjects(storageDir, staging);
    return summaryOf({ tables, rows }, manifest);
  } finally {
    stop = true;
    await published;
    await rm(staging, { recursive: true, force: true });
  }
}
