/**
 * The server's own extensions (./provided.ts) on a PostgreSQL server: Postgres reads
 * extensions from its share directory only, so their files must be there. When that
 * directory is on this machine and writable (a local server, the tests' cluster), the server
 * writes them at start; otherwise `backend-server extensions install DIR` writes them where
 * someone with the right to do so runs it (see ./README.md). Files of a real installation
 * (a control file without the server's mark) are never replaced.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from '../types';
import { extensionFiles, PROVIDED_EXTENSIONS, PROVIDED_MARK } from './provided';

/** Whether `dir` holds a real installation of `name`: a control file without the server's mark. */
function isRealInstallation(dir: string, name: string): boolean {
  const control = join(dir, `${name}.control`);
  return existsSync(control) && !readFileSync(control, 'utf8').startsWith(PROVIDED_MARK);
}

/** Writes the provided extensions' files into `dir` (a `share/extension` directory). */
export function writeExtensionFiles(dir: string): string[] {
  const written: string[] = [];
  for (const ext of PROVIDED_EXTENSIONS) {
    if (isRealInstallation(dir, ext.name)) continue;
    for (const file of extensionFiles(ext)) {
      const path = join(dir, file.name);
      if (existsSync(path) && readFileSync(path, 'utf8') === file.text) continue;
      // Another server may read the directory at this moment: replace files whole.
      const temp = `${path}.${process.pid}.tmp`;
      writeFileSync(temp, file.text, { mode: 0o644 });
      renameSync(temp, path);
      written.push(path);
    }
  }
  return written;
}

/**
 * Makes the provided extensions available to `create extension` on a PostgreSQL server
 * when it can. Returns the names still unavailable, with the reason.
 */
export async function provideOnPostgres(db: Database): Promise<{ name: string; reason: string }[]> {
  const wanted = PROVIDED_EXTENSIONS.map((e) => ({ name: e.name, version: e.version }));
  const available = async () => {
    const { rows } = await db.query<{ name: string; version: string }>(
      `select name, version from pg_available_extension_versions where name = any($1::text[])`,
      [wanted.map((w) => w.name)],
    );
    return (w: { name: string; version: string }) =>
      rows.some((r) => r.name === w.name && r.version === w.version);
  };
  let has = await available();
  if (wanted.every(has)) return [];
  // pg_config is readable by superusers only: a server connecting as another user cannot
  // learn the directory (nor, usually, write into it).
  const sharedir = await db
    .query<{ setting: string }>(`select setting from pg_config where name = 'SHAREDIR'`)
    .then(
      (r) => r.rows[0]?.setting ?? null,
      () => null,
    );
  const dir = sharedir ? join(sharedir, 'extension') : null;
  // A real installation (Debian's pg_cron 1.4, a packaged pgmq) is used as is, whatever its
  // version: `create extension` installs it.
  let real = (_name: string) => false;
  let reason = dir
    ? `the server's extension directory (${dir}) is not on this machine`
    : 'the server does not tell this user its share directory (pg_config)';
  if (dir && existsSync(dir)) {
    real = (name) => isRealInstallation(dir, name);
    try {
      writeExtensionFiles(dir);
      reason = `the server does not see the files written into ${dir}`;
    } catch (error) {
      reason = `cannot write into ${dir}: ${(error as Error).message}`;
    }
  }
  has = await available();
  return wanted.filter((w) => !has(w) && !real(w.name)).map((w) => ({ name: w.name, reason }));
}
