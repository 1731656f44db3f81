/**
 * The data commands with `--direct-url` (a replica's pooler setup): they connect to the
 * database itself, not to `--database-url` (the pooler's, here an address nothing answers).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server';
import { createTestDatabase, databaseKind } from '../support/server';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

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
  }, 120_000);
});
