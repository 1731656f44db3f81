import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { type Database, pgError } from './types';

/** A migration or seed file that failed: names the file and carries the Postgres error. */
export class MigrationError extends Error {
  override name = 'MigrationError';
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    const pg = pgError(cause);
    const reason = pg
      ? `${pg.message} (SQLSTATE ${pg.code})${pg.detail ? `: ${pg.detail}` : ''}`
      : String(cause);
    super(`Migration ${file} failed: ${reason}`, { cause });
  }
}

/**
 * Applies every `*.sql` file of `dir` not applied before, in name order, each in its own
 * transaction with its record in `supabase_migrations.schema_migrations`. Stops at the
 * first failure, which rolls back that file entirely. Returns the files applied.
 */
export async function applyMigrations(db: Database, dir: string): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const { rows } = await db.query<{ version: string }>(
    'select version from supabase_migrations.schema_migrations',
  );
  const done = new Set(rows.map((r) => r.version));
  const applied: string[] = [];
  for (const file of files) {
    const version = file.replace(/\.sql$/, '');
    if (done.has(version)) continue;
    const script = await readFile(join(dir, file), 'utf8');
    try {
      await db.transaction(async (tx) => {
        await tx.exec(script);
        await tx.query(
          'insert into supabase_migrations.schema_migrations (version, name) values ($1, $2)',
          [version, file],
        );
      });
    } catch (error) {
      throw new MigrationError(file, error);
    }
    applied.push(file);
  }
  return applied;
}

/**
 * Runs the seed files once per database (recorded in `supabase_migrations.seeds`), in order,
 * in one transaction: a failing file changes nothing and is named. Returns whether they ran.
 */
export async function applySeed(db: Database, files: string | readonly string[]): Promise<boolean> {
  const list = typeof files === 'string' ? [files] : files;
  if (list.length === 0) return false;
  const { rows } = await db.query('select 1 from supabase_migrations.seeds limit 1');
  if (rows.length > 0) return false;
  const scripts = await Promise.all(list.map((file) => readFile(file, 'utf8')));
  let current = '';
  try {
    await db.transaction(async (tx) => {
      for (const [i, script] of scripts.entries()) {
        current = basename(list[i] as string);
        await tx.exec(script);
        await tx.query(
          'insert into supabase_migrations.seeds (name) values ($1) on conflict (name) do nothing',
          [current],
        );
      }
    });
  } catch (error) {
    throw new MigrationError(current, error);
  }
  return true;
}
