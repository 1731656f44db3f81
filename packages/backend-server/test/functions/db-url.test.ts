import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { type Cluster, startCluster } from '../support/postgres-cluster';
import { startTestServer } from '../support/server';
import { client, writeProject } from './support';

/**
 * On a real PostgreSQL server the database has a URL: functions get it as SUPABASE_DB_URL
 * and can connect with a driver of their own (here `npm:postgres`).
 */
describe('functions: SUPABASE_DB_URL on a PostgreSQL server', () => {
  let cluster: Cluster;
  let server: RunningServer;

  beforeAll(async () => {
    cluster = await startCluster();
    const { functionsDir } = await writeProject({
      'db/index.ts': `
        import postgres from 'npm:postgres@3';
        export default async () => {
          const url = Deno.env.get('SUPABASE_DB_URL')!;
          const sql = postgres(url, { max: 1, onnotice: () => {} });
          try {
            const [row] = await sql\`
              select current_database() as db,
                     (select count(*)::int from pg_roles
                      where rolname in ('anon', 'authenticated', 'service_role')) as roles\`;
            return Response.json({ url, ...row });
          } finally {
            await sql.end();
          }
        };`,
    });
    server = await startTestServer({ functionsDir, databaseUrl: cluster.url });
  });
  afterAll(async () => {
    await server?.stop();
    await cluster?.stop();
  });

  it('gives the database URL, and a function can query the database with it', async () => {
    const { data, error } = await client(server).functions.invoke('db');
    expect(error).toBeNull();
    expect(data).toEqual({ url: cluster.url, db: 'postgres', roles: 3 });
  });
});
