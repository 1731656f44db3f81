/**
 * Extensions on PGlite, written into its in-memory file system when it opens, so a plain
 * `create extension` finds them: every contrib bundle PGlite ships (`<name>.tar.gz` next to
 * its code: control file, SQL scripts and the WASM module, loaded by Postgres when the
 * extension is created), the server's own extensions (./provided.ts), and pgTAP when this
 * machine's PostgreSQL installation has it (./pgtap.ts).
 */
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { PGlite } from '@electric-sql/pglite';
import { filesOf } from '../../data/tar';
import { hostPgtapFiles } from './pgtap';
import { extensionFiles, PROVIDED_EXTENSIONS } from './provided';

interface EmscriptenFs {
  analyzePath(path: string): { exists: boolean };
  mkdirTree(path: string): void;
  writeFile(path: string, data: string | Uint8Array): void;
}

/** Where PGlite's installation lives in its file system (its share dir's grandparent). */
async function prefix(pglite: PGlite): Promise<string> {
  const { rows } = await pglite.query<{ setting: string }>(
    `select setting from pg_config where name = 'SHAREDIR'`,
  );
  const share = rows[0]?.setting ?? '/pglite/share/postgresql';
  return dirname(dirname(share));
}

/**
 * The contrib bundles of the installed PGlite (in `dist`, its folder, resolved from here
 * when not given): `{ name, file }` for each `*.tar.gz`.
 */
export function contribBundles(
  dist = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')),
): { name: string; file: string }[] {
  return readdirSync(dist)
    .filter((f) => f.endsWith('.tar.gz'))
    .map((f) => ({ name: f.slice(0, -'.tar.gz'.length), file: join(dist, f) }));
}

export interface ExtensionFile {
  /** Path under PGlite's installation prefix (`share/postgresql/extension/…`, `lib/…`). */
  name: string;
  data: Uint8Array | string;
}

const unzip = promisify(gunzip);

/**
 * Every contrib bundle's files, unpacked off the calling thread (zlib's pool), so that it
 * runs alongside PGlite's own start: start it before `PGlite.create`, await it after.
 */
export async function loadExtensionFiles(pgliteDir?: string): Promise<ExtensionFile[]> {
  const bundles = await Promise.all(
    contribBundles(pgliteDir).map(async (b) => filesOf(await unzip(await readFile(b.file)))),
  );
  const provided = PROVIDED_EXTENSIONS.flatMap((ext) =>
    extensionFiles(ext).map((f) => ({
      name: `share/postgresql/extension/${f.name}`,
      data: f.text,
    })),
  );
  return [...bundles.flat(), ...provided, ...hostPgtapFiles()];
}

/** Writes the files into PGlite's file system (the server's own always, others if absent). */
export async function installPgliteExtensions(
  pglite: PGlite,
  files: readonly ExtensionFile[],
): Promise<void> {
  // PGlite keeps its Emscripten module out of its typed surface.
  const fs = (pglite as unknown as { mod: { FS: EmscriptenFs } }).mod.FS;
  const root = await prefix(pglite);
  for (const file of files) {
    const path = `${root}/${file.name}`;
    if (typeof file.data !== 'string' && fs.analyzePath(path).exists) continue;
    const dir = dirname(path);
    if (!fs.analyzePath(dir).exists) fs.mkdirTree(dir);
    fs.writeFile(path, file.data);
  }
}
