/**
 * pgTAP for PGlite, from this machine's PostgreSQL installation (Debian's
 * `postgresql-15-pgtap`, or a build of pgTAP installed into another share directory).
 * pgTAP is SQL and PL/pgSQL only (its control file names a module no function uses), so
 * PGlite runs its install script as PostgreSQL does. The repository does not carry pgTAP:
 * without an installation on the machine, `create extension pgtap` fails on PGlite with
 * Postgres' own `extension "pgtap" is not available`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Share directories' `extension` folders where a PostgreSQL installation keeps pgTAP. */
export function pgtapSearchDirs(): string[] {
  const debian = '/usr/share/postgresql';
  const versions = existsSync(debian)
    ? readdirSync(debian)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return [
    ...versions.map((v) => join(debian, v, 'extension')),
    '/usr/local/share/postgresql/extension',
    '/usr/local/pgsql/share/extension',
  ];
}

/**
 * pgTAP's control file and install script (its default version) as files under PGlite's
 * installation prefix, or none when no installation on this machine has them.
 */
export function hostPgtapFiles(
  dirs: readonly string[] = pgtapSearchDirs(),
): { name: string; data: string }[] {
  for (const dir of dirs) {
    const controlFile = join(dir, 'pgtap.control');
    if (!existsSync(controlFile)) continue;
    const control = readFileSync(controlFile, 'utf8');
    const version = /^\s*default_version\s*=\s*'([^']+)'/m.exec(control)?.[1];
    const script = version ? join(dir, `pgtap--${version}.sql`) : null;
    if (!script || !existsSync(script)) continue;
    return [
      { name: 'share/postgresql/extension/pgtap.control', data: control },
      {
        name: `share/postgresql/extension/pgtap--${version}.sql`,
        data: readFileSync(script, 'utf8'),
      },
    ];
  }
  return [];
}
