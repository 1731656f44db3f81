import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { lockSchema } from './migrations';
import { openPgliteThread } from './pglite-remote';
import type { PoolerOptions } from './postgres';
import { findSnapshot, saveSnapshot } from './snapshot';
import type { Database } from './types';

// Bumped by hand when the way the platform is applied changes.
const PLATFORM_FORMAT = 2;

export interface OpenDatabaseOptions {
  /** Persistent PGlite directory; in memory when absent. */
  dataDir?: string | undefined;
  /** postgres:// URL: use that server instead of PGlite. */
  databaseUrl?: string | undefined;
  /** Platform schema scripts, in order. Each must be idempotent. */
  platformSql: readonly string[];
  /** Where PGlite platform snapshots are kept (default: ~/.cache/app-backend-server). */
  cacheDir?: string | undefined;
  /**
   * Session settings of every connection the server opens, never stored in the database
   * (Vault's key, `db/extensions/vault.ts`).
   */
  settings?: Readonly<Record<string, string>> | undefined;
  /** `databaseUrl` goes through a transaction-mode pooler (`PostgresOptions.pooler`). */
  pooler?: PoolerOptions | undefined;
}

/** PGlite's package.json (its exports map does not expose it). */
async function pgliteManifest(): Promise<{ version: string }> {
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const manifest = JSON.parse(await readFile(file, 'utf8')) as {
        name?: string;
        version: string;
      };
      if (manifest.name === '@electric-sql/pglite') return manifest;
    }
    const parent = dirname(dir);
    if (parent === dir) return { version: 'unknown' };
    dir = parent;
  }
}

/** The platform's version key: PGlite's version and every platform script. */
export async function platformVersion(platformSql: readonly string[]): Promise<string> {
  const pkg = await pgliteManifest();
  const hash = createHash('sha256').update(`${PLATFORM_FORMAT}\0${pkg.version}`);
  for (const script of platformSql) hash.update('\0').update(script);
  return `pglite-${pkg.version}-${hash.digest('hex').slice(0, 16)}`;
}

async function applyPlatform(db: Database, platformSql: readonly string[], version: string) {
  await db.transaction(async (tx) => {
    // One writer at a time when several servers share a PostgreSQL cluster.
    await lockSchema(db, tx);
    for (const script of platformSql) await tx.exec(script);
    await tx.query(
      `insert into supabase_migrations.platform (id, version) values (true, $1)
       on conflict (id) do update set version = excluded.version`,
      [version],
    );
  });
}

async function currentPlatform(db: Database): Promise<string | null> {
  const exists = await db.query<{ t: string | null }>(
    `select to_regclass('supabase_migrations.platform')::text as t`,
  );
  if (!exists.rows[0]?.t) return null;
  const { rows } = await db.query<{ version: string }>(
    'select version from supabase_migrations.platform',
  );
  return rows[0]?.version ?? null;
}

/**
 * Opens the database and makes sure the platform schema is current.
 *
 * A fresh in-memory PGlite would pay initdb (4–5 s) plus the platform scripts on every
 * start; instead the first start saves a snapshot of a cleanly shut down data directory,
 * keyed by PGlite's version and the scripts' hash, and later starts restore it.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const db = await openEngine(options);
  // PGlite has one connection: its session gets the settings once.
  if (db.kind !== 'postgres') {
    for (const [name, value] of Object.entries(options.settings ?? {}))
      await db.query('select pg_catalog.set_config($1, $2, false)', [name, value]);
  }
  return db;
}

async function openEngine(options: OpenDatabaseOptions): Promise<Database> {
  const version = await platformVersion(options.platformSql);
  if (options.databaseUrl) {
    // Loaded only for a PostgreSQL server, so embedded starts skip the driver.
    const { openPostgres } = await import('./postgres');
    const db = await openPostgres({
      url: options.databaseUrl,
      settings: options.settings,
      pooler: options.pooler,
    });
    const { provideOnPostgres } = await import('./extensions/postgres-files');
    for (const missing of await provideOnPostgres(db)) {
      console.warn(
        `backend-server: \`create extension ${missing.name}\` will fail on this PostgreSQL server: ${missing.reason}. ` +
          'Run `backend-server extensions install <its share/extension directory>` where it runs (see the README).',
      );
    }
    if ((await currentPlatform(db)) !== version)
      await applyPlatform(db, options.platformSql, version);
    return db;
  }
  if (options.dataDir && existsSync(join(options.dataDir, 'PG_VERSION'))) {
    const db = await openPgliteThread({ dataDir: options.dataDir });
    if ((await currentPlatform(db)) !== version)
      await applyPlatform(db, options.platformSql, version);
    return db;
  }
  const cacheDir = options.cacheDir ?? join(homedir(), '.cache', 'app-backend-server');
  const snapshot = await findSnapshot(cacheDir, version);
  if (snapshot) {
    try {
      return await openPgliteThread({ dataDir: options.dataDir, snapshotFile: snapshot });
    } catch {
      // A damaged snapshot: fall through and make a new one.
    }
  }
  const made = await saveSnapshot(cacheDir, version, async (dataDir) => {
    const builder = await openPgliteThread({ dataDir });
    try {
      await applyPlatform(builder, options.platformSql, version);
    } finally {
      await builder.close();
    }
  });
  return openPgliteThread({ dataDir: options.dataDir, snapshotFile: made });
}
