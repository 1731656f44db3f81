import { existsSync } from 'node:fs';
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * The platform snapshot: a PGlite data directory with the platform schema applied, kept as
 * a tarball in the layout `PGlite`'s `loadDataDir` reads (the layout of `dumpDataDir()`:
 * entry names relative to the data directory, with a leading slash).
 *
 * It is made from a directory whose server was shut down cleanly. `dumpDataDir()` on a
 * running instance records a server that was interrupted, so every restore of such a dump
 * pays crash recovery and an end-of-recovery checkpoint before the first query.
 */

const BLOCK = 512;

/** One ustar header. Octal fields are zero-padded and NUL-terminated. */
function header(name: string, size: number, mtime: number, directory: boolean): Uint8Array {
  if (Buffer.byteLength(name) > 99) throw new Error(`snapshot: path too long: ${name}`);
  const h = Buffer.alloc(BLOCK);
  const octal = (value: number, offset: number, length: number) =>
    h.write(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, 'latin1');
  h.write(name, 0, 'utf8');
  octal(directory ? 0o750 : 0o600, 100, 8);
  octal(0, 108, 8);
  octal(0, 116, 8);
  octal(size, 124, 12);
  octal(Math.floor(mtime / 1000), 136, 12);
  h.write('        ', 148, 'latin1'); // checksum field counts as spaces while summing
  h.write(directory ? '5' : '0', 156, 'latin1');
  h.write('ustar\u000000', 257, 'latin1');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return h;
}

/** Every entry under `root`, parents before children, in a stable order. */
async function* walk(root: string, relative = ''): AsyncGenerator<[string, string, boolean]> {
  const entries = await readdir(join(root, relative), { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = `${relative}/${entry.name}`;
    if (entry.isDirectory()) {
      yield [path, join(root, path), true];
      yield* walk(root, path);
    } else if (entry.isFile()) {
      yield [path, join(root, path), false];
    }
  }
}

/** A tarball of a data directory, in the layout `loadDataDir` reads. */
export async function tarDataDir(dir: string): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const [name, path, directory] of walk(dir)) {
    const info = await stat(path);
    if (directory) {
      parts.push(header(name, 0, info.mtimeMs, true));
      continue;
    }
    const data = await readFile(path);
    parts.push(header(name, data.length, info.mtimeMs, false), data);
    const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(new Uint8Array(pad));
  }
  parts.push(new Uint8Array(BLOCK * 2));
  return Buffer.concat(parts);
}

/** Where the snapshot for `version` lives in `cacheDir`: a gzipped tarball (4–5 MB). */
export const snapshotPath = (cacheDir: string, version: string) =>
  join(cacheDir, `platform-${version}.tar.gz`);

/** The cached snapshot's path, or null when there is none yet. */
export async function findSnapshot(cacheDir: string, version: string): Promise<string | null> {
  const file = snapshotPath(cacheDir, version);
  if (!existsSync(file)) return null;
  const now = new Date();
  await utimes(file, now, now).catch(() => {}); // in use: kept by pruneSnapshots
  return file;
}

/**
 * Builds the snapshot: `build` initialises a PGlite data directory in a temporary folder
 * and shuts it down cleanly; the folder is then archived into the cache (atomically, so
 * concurrent first starts never read half a file) and snapshots of other versions are
 * removed. Returns the archive's path.
 */
export async function saveSnapshot(
  cacheDir: string,
  version: string,
  build: (dataDir: string) => Promise<void>,
): Promise<string> {
  await mkdir(cacheDir, { recursive: true });
  const workDir = await mkdtemp(join(cacheDir, 'build-'));
  try {
    await build(workDir);
    const tar = gzipSync(await tarDataDir(workDir), { level: 1 });
    const file = snapshotPath(cacheDir, version);
    const partial = `${file}.${process.pid}.${Date.now()}.partial`;
    await writeFile(partial, tar);
    await rename(partial, file);
    await pruneSnapshots(cacheDir, file);
    return file;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

const UNUSED_FOR = 7 * 24 * 3600 * 1000;

/**
 * Removes snapshots no server has read for a week (older servers or PGlite releases; a
 * snapshot in use is touched on every read) and leftovers of interrupted builds.
 */
async function pruneSnapshots(cacheDir: string, keep: string) {
  const now = Date.now();
  for (const name of await readdir(cacheDir)) {
    const path = join(cacheDir, name);
    if (path === keep || !/^(platform-|build-)/.test(name)) continue;
    const info = await stat(path).catch(() => null);
    if (info && now - info.mtimeMs > UNUSED_FOR)
      await rm(path, { recursive: true, force: true }).catch(() => {});
  }
}
