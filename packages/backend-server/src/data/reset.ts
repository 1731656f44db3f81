import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { applyMigrations, applySeed, type Database } from '../db/index';
import { DataError, RESET_AFTER_DUMP } from './restore';
import { wipeDatabase } from './wipe';

export interface ResetOptions {
  platformSql: readonly string[];
  migrationsDir?: string | null;
  /** Seed files, applied in order. */
  seedFiles?: readonly string[];
  /** Where stored files are; emptied. */
  storageDir?: string | null;
}

/**
 * `db reset`: a fresh database — every app schema and project row gone, the platform as
 * new — then the migrations and the seed, and the stored files removed. The wipe is one
 * transaction (a failure there changes nothing); a failing migration stops the reset and
 * names the file.
 */
export async function resetDatabase(
  db: Database,
  options: ResetOptions,
): Promise<{ migrations: string[]; seeded: boolean }> {
  try {
    await db.transaction((tx) => wipeDatabase(tx, options.platformSql));
  } catch (error) {
    throw new DataError(`the database could not be reset: ${(error as Error).message}`);
  } finally {
    await db.exec(RESET_AFTER_DUMP).catch(() => {});
  }
  if (options.storageDir) {
    for (const dir of ['objects', 'tus', 'tmp']) {
      const path = join(options.storageDir, dir);
      for (const name of await readdir(path).catch(() => [] as string[])) {
        await rm(join(path, name), { recursive: true, force: true });
      }
    }
  }
  const migrations = options.migrationsDir ? await applyMigrations(db, options.migrationsDir) : [];
  const seeded = await applySeed(db, options.seedFiles ?? []);
  return { migrations, seeded };
}
