/**
 * The data commands with `--direct-url` (a replica's pooler setup): they connect to the
 * database itself, not to `--database-url` (the pooler's, here an address nothing answers).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server';
import { createTestDatabase, databaseKind } from '../support/server';
import { cli } from './cli-runner';

describe.skipIf(databaseKind() !== 'postgres')('data commands with --direct-url (postgres)', () => {
  let db: { url: string; drop: () => Promise<void> } | null = null;
  let server: RunningServer | null = null;
  const pooler = 'postgres://nobody@127.0.0.1:1/nothing';

  beforeAll(async () => {
    db = await createTestDatabase();
    if (!db) throw new Error('no PostgreSQL');
    server = await startServer({ port: 0, databaseUrl: db.url });
    await server.db.exec('create table public.direct_marker (id int)');
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('dumps and lists keys through the direct URL', async () => {
    const url = db?.url as string;
    const dumped = await cli(['db', 'dump', '--database-url', pooler, '--direct-url', url]);
    expect(dumped.code).toBe(0);
    expect(dumped.stdout).toMatch(/create table "?public"?\."?direct_marker"?/i);
    const keys = await cli(['signing-keys', 'list', '--database-url', pooler, '--direct-url', url]);
    expect(keys.stdout).toBe('legacy  HS256  current\n');
    // Without it, the pooler's address is the one tried.
    expect((await cli(['db', 'dump', '--database-url', pooler])).code).not.toBe(0);
  }, 300_000);
});
