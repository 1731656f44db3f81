/**
 * The signing keys are kept in the database, so two servers on one PostgreSQL share them:
 * started together they seed the key table once, and a rotation or a revocation made
 * through one server's console reaches the other through its notification (the fallback
 * re-read is set to an hour here, so only the notification can bring it).
 */
import { randomUUID } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartServerOptions } from '../../src/config/index';
import { generateSigningKey } from '../../src/config/keys';
import type { SigningKeyJwk } from '../../src/http/signing-keys';
import { type RunningServer, startServer } from '../../src/server';
import { RawSocket, socketUrl } from '../realtime/support';
import { createTestDatabase, databaseKind } from '../support/server';
import { until } from '../support/until';
import { signWith, userClaims } from './keys-support';
import { api, client, uniqueEmail } from './support';

const TOKEN = 'replica-console-token-0123456789';
const first: SigningKeyJwk = generateSigningKey('ES256');
let a: RunningServer;
let b: RunningServer;
let drop: () => Promise<void>;

/** A console API call on `server`. */
const consoleApi = (server: RunningServer, path: string, body?: unknown) =>
  fetch(`${server.url}/_console/api/signing-keys${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-console-token': TOKEN, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const jwksKids = async (server: RunningServer) => {
  const res = await fetch(`${server.url}/auth/v1/.well-known/jwks.json`);
  return ((await res.json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
};

const userStatus = async (server: RunningServer, token: string) => {
  const res = await api(server, '/user', { token });
  await res.body?.cancel();
  return res.status;
};

/** The realtime join's reply status on `server` for `token`. */
async function joinStatus(server: RunningServer, token: string): Promise<string> {
  const socket = await RawSocket.open(socketUrl(server, `apikey=${server.anonKey}&vsn=2.0.0`));
  socket.send([
    '1',
    '1',
    `realtime:room-${randomUUID()}`,
    'phx_join',
    { config: {}, access_token: token },
  ]);
  const reply = await socket.waitFor<unknown[]>((f: unknown[]) => f[1] === '1');
  socket.close();
  return (reply[4] as { status: string }).status;
}

describe.skipIf(databaseKind() === 'pglite')('signing keys shared by two servers', () => {
  beforeAll(async () => {
    const db = await createTestDatabase();
    if (!db) throw new Error('no PostgreSQL');
    drop = db.drop;
    const options: StartServerOptions = {
      port: 0,
      databaseUrl: db.url,
      signingKeys: [first],
      auth: { rateLimits: false },
      console: { token: TOKEN },
    };
    const internals = { signingKeysRefreshMs: 3_600_000 };
    [a, b] = await Promise.all([startServer(options, internals), startServer(options, internals)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await drop?.();
  });

  it('seeds the key table once when both start together', async () => {
    const { rows } = await a.db.query<{ kid: string; status: string }>(
      'select kid, status from _auth.signing_keys order by ord',
    );
    expect(rows).toEqual([
      { kid: '', status: 'previous' },
      { kid: first.kid, status: 'current' },
    ]);
    // No API role can read the private keys.
    const denied = await a.db
      .query("select has_table_privilege('anon', '_auth.signing_keys', 'select') as anon")
      .then((r) => r.rows[0]);
    expect(denied).toEqual({ anon: false });
  });

  it('rotates on one server and revokes there; the other follows through its notification', async () => {
    const c = client(a);
    const { data } = await c.auth.signUp({ email: uniqueEmail('rep-rot'), password: 'password-1' });
    const before = data.session?.access_token ?? '';
    const userId = data.user?.id ?? '';
    expect(decodeProtectedHeader(before).kid).toBe(first.kid);

    const created = await consoleApi(a, '', { algorithm: 'RS256' });
    expect(created.status).toBe(201);
    const standby = (await created.json()) as { kid: string; status: string; publicJwk: object };
    expect(standby.status).toBe('standby');
    expect(standby.publicJwk).not.toHaveProperty('d');
    // B publishes the standby key before it signs.
    await until(async () => (await jwksKids(b)).includes(standby.kid));
    expect(await jwksKids(b)).toEqual([first.kid, standby.kid]);

    const rotated = await consoleApi(a, '/rotate', {});
    expect(await rotated.json()).toMatchObject({ kid: standby.kid, status: 'current' });
    await until(async () => b.signingKeys.current().kid === standby.kid);
    // A token B signs now carries the new key, and A accepts it; the old one still works.
    const { data: refreshed } = await client(b).auth.signInWithPassword({
      email: data.user?.email ?? '',
      password: 'password-1',
    });
    const after = refreshed.session?.access_token ?? '';
    expect(decodeProtectedHeader(after).kid).toBe(standby.kid);
    expect(await userStatus(a, after)).toBe(200);
    expect(await userStatus(b, before)).toBe(200);
    expect(await jwksKids(b)).toEqual([standby.kid, first.kid]);

    const revoked = await consoleApi(a, '/status', { kid: first.kid, status: 'revoked' });
    expect(revoked.status).toBe(200);
    // B refuses the old key's tokens on every service once the notification arrives.
    await until(async () => (await userStatus(b, before)) === 403);
    const minted = await signWith(first, userClaims(userId));
    const user = await api(b, '/user', { token: minted });
    expect(user.status).toBe(403);
    expect(await user.json()).toMatchObject({ code: 'bad_jwt' });
    const headers = { apikey: b.anonKey, authorization: `Bearer ${before}` };
    const rest = await fetch(`${b.url}/rest/v1/`, { headers });
    expect(rest.status).toBe(401);
    expect(await rest.json()).toMatchObject({ code: 'PGRST301' });
    const storage = await fetch(`${b.url}/storage/v1/bucket`, { headers });
    expect(storage.status).not.toBe(200);
    await storage.body?.cancel();
    expect(await joinStatus(b, before)).toBe('error');
    expect(await joinStatus(b, after)).toBe('ok');
    expect(await jwksKids(b)).toEqual([standby.kid]);
    expect(b.signingKeys.list().map(({ kid, status }) => ({ kid, status }))).toEqual([
      { kid: null, status: 'previous' },
      { kid: first.kid, status: 'revoked' },
      { kid: standby.kid, status: 'current' },
    ]);
  });

  it('refuses what the dashboard refuses, with a 400', async () => {
    const current = a.signingKeys.current().kid;
    const res = await consoleApi(a, '/status', { kid: current, status: 'revoked' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      message: 'the current key cannot change status: rotate to another key first',
    });
    expect((await consoleApi(a, '/rotate', {})).status).toBe(400);
    expect((await consoleApi(a, '/status', { kid: 7 })).status).toBe(400);
    expect((await consoleApi(a, '', { algorithm: 'HS512' })).status).toBe(400);
  });
});
