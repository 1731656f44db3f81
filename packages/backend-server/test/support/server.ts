import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { inject } from 'vitest';
import type { StartServerOptions } from '../../src/config/index';
import { type RunningServer, type StartServerInternals, startServer } from '../../src/server';

/** Which database the current project runs against. */
export const databaseKind = (): 'pglite' | 'postgres' =>
  inject('postgresAdminUrl') ? 'postgres' : 'pglite';

/**
 * A real server on a free port for one test file: in-memory PGlite, or a fresh database
 * on the run's PostgreSQL cluster in the `postgres` project.
 */
export async function startTestServer(
  options: StartServerOptions = {},
  internals: StartServerInternals = {},
): Promise<RunningServer> {
  let databaseUrl = options.databaseUrl;
  let dropDatabase: (() => Promise<void>) | null = null;
  if (!databaseUrl) {
    const fresh = await createTestDatabase();
    if (fresh) ({ url: databaseUrl, drop: dropDatabase } = fresh);
  }
  const server = await startServer(
    { port: 0, ...options, ...(databaseUrl ? { databaseUrl } : {}) },
    internals,
  );
  return {
    ...server,
    async stop() {
      await server.stop();
      await dropDatabase?.();
    },
  };
}

/**
 * A fresh database on the run's PostgreSQL cluster (null in the `pglite` project), for
 * tests that start several servers on one database.
 */
export async function createTestDatabase(): Promise<{
  url: string;
  drop: () => Promise<void>;
} | null> {
  const adminUrl = inject('postgresAdminUrl');
  if (!adminUrl) return null;
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  return {
    url: adminUrl.replace(/\/postgres$/, `/${name}`),
    drop: async () => {
      const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await sql.unsafe(`drop database if exists ${name} with (force)`);
      await sql.end();
    },
  };
}
