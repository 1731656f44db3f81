/**
 * The console of two servers on one PostgreSQL: one token opens either console (the first
 * server to start stores it), and wrong passwords are counted in the database, so trying
 * them on both servers in turn does not double the allowance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartServerOptions } from '../../src/config/index';
import { TOKEN_HEADER } from '../../src/console/index';
import { type RunningServer, startServer } from '../../src/server';
import { createTestDatabase, databaseKind } from '../support/server';

let a: RunningServer;
let b: RunningServer;
let drop: () => Promise<void>;

const tokenOf = (server: RunningServer) =>
  new URL(server.consoleUrl ?? '').hash.slice('#token='.length);

const session = async (server: RunningServer, token: string) => {
  const res = await fetch(`${server.url}/_console/api/session`, {
    headers: { [TOKEN_HEADER]: token },
  });
  await res.body?.cancel();
  return res.status;
};

const login = async (server: RunningServer, password: string) => {
  const res = await fetch(`${server.url}/_console/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password }),
  });
  return { status: res.status, body: (await res.json()) as { token?: string } };
};

describe.skipIf(databaseKind() === 'pglite')('the console of two servers', () => {
  beforeAll(async () => {
    const db = await createTestDatabase();
    if (!db) throw new Error('no PostgreSQL');
    drop = db.drop;
    const options: StartServerOptions = {
      port: 0,
      databaseUrl: db.url,
      console: { password: 'console-password' },
    };
    [a, b] = await Promise.all([startServer(options), startServer(options)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await drop?.();
  });

  it('accepts on either server the token of the other', async () => {
    const token = tokenOf(a);
    expect(token.length).toBeGreaterThanOrEqual(16);
    expect(tokenOf(b)).toBe(token);
    expect(await session(b, token)).toBe(200);
    expect(await session(a, token)).toBe(200);
    expect(await session(b, `${token}x`)).toBe(401);
    const signedIn = await login(a, 'console-password');
    expect(signedIn.status).toBe(200);
    expect(await session(b, signedIn.body.token ?? '')).toBe(200);
  });

  it('counts wrong passwords on both servers together', async () => {
    for (const server of [a, b, a, b, a]) {
      expect((await login(server, 'wrong')).status).toBe(401);
    }
    expect((await login(b, 'console-password')).status).toBe(429);
    expect((await login(a, 'console-password')).status).toBe(429);
  });
});
