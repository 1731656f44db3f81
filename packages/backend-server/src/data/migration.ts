import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { DataError } from './restore';

/** `YYYYMMDDHHMMSS` in UTC, the hosted CLI's migration version. */
export function migrationVersion(now = new Date()): string {
  return now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/**
 * Creates `<dir>/<timestamp>_<name>.sql` (the folder too), with `content` (what was piped
 * to the command, else empty), as `supabase migration new` does. Refuses a name that is not
 * a plain file name part, and never overwrites.
 *
 * @example
 * await newMigration('backend/migrations', 'add_tags') // 'backend/migrations/20261124101500_add_tags.sql'
 */
export async function newMigration(
  dir: string,
  name: string,
  content: string | Uint8Array = '',
  now = new Date(),
): Promise<string> {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name) || name.length > 200) {
    throw new DataError(
      `"${name}" is not a migration name: use letters, digits, "_", "-" and "." (e.g. add_tags)`,
    );
  }
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${migrationVersion(now)}_${name.replace(/\.sql$/, '')}.sql`);
  const handle = await open(path, 'wx').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EEXIST') throw new DataError(`${path} exists already`);
    throw error;
  });
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
  return path;
}
