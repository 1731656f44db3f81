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
  const adminUrl = inject('postgresAdminUrl');
  let databaseUrl = options.databaseUrl;
  let dropDatabase: (() => Promise<void>) | null = null;
  if (adminUrl && !databaseUrl) {
    const name = `test_${randomBytes(6).toString('hex')}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    databaseUrl = adminUrl.replace(/\/postgres$/, `/${name}`);
    dropDatabase = async () => {
      const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await sql.unsafe(`drop database if exists ${name} with (force)`);
      await sql.end();
    };
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
