import { applyMigrations, type Database, openDatabase, ROLES_SQL } from '../db/index';
import { openPostgres } from '../db/postgres';
import { SERVICES } from '../service-registry';
import { loadSchemaCache } from './schema/load';
import { generateTypes } from './typegen';

export interface GenTypesOptions {
  /** Schemas to describe (default `['public']`). */
  schemas?: string[];
  /** Read an existing PostgreSQL database (nothing is written to it). */
  databaseUrl?: string;
  /** Or apply these migrations to a fresh in-memory database first. */
  migrationsDir?: string;
}

/** `backend-server gen types`: the TypeScript `Database` type of a database or migrations dir. */
export async function genTypes(options: GenTypesOptions): Promise<string> {
  const schemas = options.schemas?.length ? options.schemas : ['public'];
  let db: Database;
  if (options.databaseUrl) {
    db = await openPostgres({ url: options.databaseUrl, max: 1 });
  } else {
    const platformSql = [
      ROLES_SQL,
      ...SERVICES.flatMap((m) => (m.platformSql ? [m.platformSql] : [])),
    ];
    db = await openDatabase({ platformSql });
    if (options.migrationsDir) await applyMigrations(db, options.migrationsDir);
  }
  try {
    return generateTypes(await loadSchemaCache(db, schemas), schemas);
  } finally {
    await db.close();
  }
}
