/**
 * `backend-server signing-keys list | add | rotate | revoke` on the key table the server
 * keeps: the server started after the changes (both engines), or, on PostgreSQL, running
 * while they are made (it hears them, as from another replica's console).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server';
import { createTestDatabase, databaseKind } from '../support/server';
import { until } from '../support/until';
import { cli } from './cli-runner';

describe(`signing-keys from the CLI (${databaseKind()})`, () => {
  let dataDir: string;
  let db: { url: string; drop: () => Promise<void> } | null = null;
  const target = () => (db ? ['--database-url', db.url] : ['--data-dir', dataDir]);
  const start = () =>
    startServer({ port: 0, ...(db ? { databaseUrl: db.url } : { dataDir }), log: false });
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'signing-keys-cli-'));
    if (databaseKind() === 'postgres') db = await createTestDatabase();
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses a database the server never started on, and bad input', async () => {
    const none = await cli(['signing-keys', 'list', ...target()]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no signing keys yet: start the server on it once/);
    const usage = await cli(['signing-keys', 'revoke', ...target()]);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toMatch(/signing-keys revoke KID/);
  }, 240_000);

  it('lists, adds, rotates and revokes keys the server then uses', async () => {
    const first = await start();
    expect(first.signingKeys.list().map((k) => [k.kid, k.status])).toEqual([[null, 'current']]);
    // PGlite: one process owns the data directory. PostgreSQL: the server stays up.
    if (!db) await first.stop();
    else servers.push(first);

    const listed = await cli(['signing-keys', 'list', ...target()]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toBe('legacy  HS256  current\n');
    const added = await cli(['signing-keys', 'add', '--algorithm', 'RS256', ...target()]);
    expect(added.code).toBe(0);
    const kid = /^Added (\S+) {2}RS256 {2}standby\.$/m.exec(added.stdout)?.[1] as string;
    expect(kid).toBeTruthy();
    // The current key cannot be revoked; a key that is not there is named.
    const current = await cli(['signing-keys', 'revoke', 'legacy', ...target()]);
    expect(current.code).toBe(1);
    expect((await cli(['signing-keys', 'revoke', 'nope', ...target()])).code).toBe(1);

    const rotated = await cli(['signing-keys', 'rotate', ...target()]);
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toBe(`Rotated: ${kid}  RS256  current.\n`);
    const revoked = await cli(['signing-keys', 'revoke', 'legacy', ...target()]);
    expect(revoked.stdout).toBe('Revoked legacy  HS256  revoked.\n');
    expect((await cli(['signing-keys', 'list', ...target()])).stdout).toBe(
      `legacy  HS256  revoked\n${kid}  RS256  current\n`,
    );

    const server = db ? first : await start();
    if (!db) servers.push(server);
    // The running server heard the changes (PostgreSQL); a new one loads them.
    await until(async () => server.signingKeys.current().kid === kid);
    expect(server.signingKeys.list().map((k) => [k.kid, k.status])).toEqual([
      [null, 'revoked'],
      [kid, 'current'],
    ]);
    const jwks = (await (await fetch(`${server.url}/auth/v1/.well-known/jwks.json`)).json()) as {
      keys: { kid: string }[];
    };
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toEqual([kid]);
  }, 300_000);
});
