import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index';
import { generateSigningKey } from '../../src/config/keys';
import type { SigningKeyJwk } from '../../src/http/signing-keys';
import { type RunningServer, startServer } from '../../src/server';
import { RawSocket, socketUrl } from '../realtime/support';
import { databaseKind, startTestServer } from '../support/server';
import {
  echoFunctionDir,
  hmacWith,
  publicPem,
  rawToken,
  signWith,
  userClaims,
} from './keys-support';
import { api, client, uniqueEmail } from './support';

const MIGRATION = /* sql */ `
create table public.notes (
  id bigint generated always as identity primary key,
  owner_id uuid not null default auth.uid(),
  body text not null
);
alter table public.notes enable row level security;
create policy "own notes" on public.notes for all to authenticated
  using (owner_id = auth.uid()) with check (owner_id = auth.uid());
`;

// The keys of the project: an ES256 key signs, an RS256 key signed before (still trusted),
// an ES256 key was revoked, one waits in standby.
const current: SigningKeyJwk = { ...generateSigningKey('ES256'), status: 'current' };
const previous: SigningKeyJwk = { ...generateSigningKey('RS256'), status: 'previous' };
const revoked: SigningKeyJwk = { ...generateSigningKey('ES256'), status: 'revoked' };
const standby: SigningKeyJwk = { ...generateSigningKey('ES256'), status: 'standby' };
const stranger = generateSigningKey('ES256');

let server: RunningServer;
let userId: string;
let issued: string;

beforeAll(async () => {
  const migrations = await mkdtemp(join(tmpdir(), 'signing-keys-'));
  await writeFile(join(migrations, '0001_notes.sql'), MIGRATION);
  server = await startTestServer({
    migrationsDir: migrations,
    functionsDir: await echoFunctionDir(),
    signingKeys: [current, previous, revoked, standby],
  });
  const { data, error } = await client(server).auth.signUp({
    email: uniqueEmail('keys'),
    password: 'password-1',
  });
  if (error || !data.session || !data.user) throw error ?? new Error('no session');
  userId = data.user.id;
  issued = data.session.access_token;
});
afterAll(() => server?.stop());

/** What each service answers to a request carrying `token` (true: accepted). */
async function acceptedBy(token: string): Promise<Record<string, boolean>> {
  const headers = { apikey: server.anonKey, authorization: `Bearer ${token}` };
  const rest = await fetch(`${server.url}/rest/v1/notes?select=id`, { headers });
  const storage = await fetch(`${server.url}/storage/v1/bucket`, { headers });
  const functions = await fetch(`${server.url}/functions/v1/echo`, { method: 'POST', headers });
  const auth = await fetch(`${server.url}/auth/v1/user`, { headers });
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
  for (const res of [rest, storage, functions, auth]) await res.body?.cancel();
  return {
    rest: rest.status === 200,
    storage: storage.status === 200,
    realtime: (reply[4] as { status: string }).status === 'ok',
    functions: functions.status === 200,
    auth: auth.status === 200,
  };
}

const ALL = { rest: true, storage: true, realtime: true, functions: true, auth: true };
const NONE = { rest: false, storage: false, realtime: false, functions: false, auth: false };

describe('signing keys', () => {
  it('signs user tokens with the current key (ES256, its kid) and publishes the public keys', async () => {
    expect(decodeProtectedHeader(issued)).toEqual({ alg: 'ES256', kid: current.kid, typ: 'JWT' });
    const res = await fetch(`${server.url}/auth/v1/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=600');
    const { keys } = (await res.json()) as { keys: Record<string, unknown>[] };
    // Current, previous and standby are published; the revoked key is not; no private parts.
    expect(keys.map((k) => k.kid)).toEqual([current.kid, previous.kid, standby.kid]);
    expect(keys[0]).toEqual({
      kty: 'EC',
      crv: 'P-256',
      x: current.x,
      y: current.y,
      kid: current.kid,
      alg: 'ES256',
      use: 'sig',
      key_ops: ['verify'],
    });
    expect(keys[1]).toEqual({
      kty: 'RSA',
      n: previous.n,
      e: previous.e,
      kid: previous.kid,
      alg: 'RS256',
      use: 'sig',
      key_ops: ['verify'],
    });
    for (const key of keys) expect(Object.keys(key)).not.toContain('d');
  });

  it('answers the discovery document with the JWKS address', async () => {
    const res = await fetch(`${server.url}/auth/v1/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc.issuer).toBe(`${server.url}/auth/v1`);
    expect(doc.jwks_uri).toBe(`${server.url}/auth/v1/.well-known/jwks.json`);
    expect(doc.id_token_signing_alg_values_supported).toContain('ES256');
  });

  it('has every service accept tokens of the current and previous keys and the legacy secret', async () => {
    expect(await acceptedBy(issued)).toEqual(ALL);
    const byPrevious = await signWith(previous, userClaims(userId));
    expect(await acceptedBy(byPrevious)).toEqual(ALL);
    const legacy = await signWith(
      {
        kty: 'oct',
        kid: 'unused',
        alg: 'HS256',
        k: Buffer.from(server.jwtSecret).toString('base64url'),
      },
      userClaims(userId),
      { kid: null },
    );
    expect(await acceptedBy(legacy)).toEqual(ALL);
  });

  it('has every service refuse forged, expired, alg none, wrong-kid, standby- and revoked-key tokens', async () => {
    const [head, , sig] = issued.split('.') as [string, string, string];
    const forgedPayload = Buffer.from(
      JSON.stringify({ ...userClaims(userId), role: 'service_role' }),
    ).toString('base64url');
    const cases: Record<string, string> = {
      forged: `${head}.${forgedPayload}.${sig}`,
      expired: await signWith(current, userClaims(userId, { expiredAgo: 120 })),
      algNone: rawToken({ alg: 'none', typ: 'JWT', kid: current.kid }, userClaims(userId)),
      algNoneWithoutKid: rawToken({ alg: 'none', typ: 'JWT' }, userClaims(userId)),
      unknownKid: await signWith(stranger, userClaims(userId)),
      strangerWithCurrentKid: await signWith(stranger, userClaims(userId), { kid: current.kid }),
      standby: await signWith(standby, userClaims(userId)),
      revoked: await signWith(revoked, userClaims(userId)),
      // Algorithm confusion: HS256 keyed with the public key of an asymmetric key.
      hs256WithPublicPem: rawToken(
        { alg: 'HS256', typ: 'JWT', kid: previous.kid },
        userClaims(userId),
        hmacWith(publicPem(previous)),
      ),
      hs256WithPublicJwk: rawToken(
        { alg: 'HS256', typ: 'JWT', kid: current.kid },
        userClaims(userId),
        hmacWith(JSON.stringify({ kty: 'EC', crv: 'P-256', x: current.x, y: current.y })),
      ),
      // An asymmetric token without a kid is not the legacy secret's.
      es256WithoutKid: await signWith(current, userClaims(userId), { kid: null }),
      notAJwt: 'not-a-jwt',
    };
    for (const [name, token] of Object.entries(cases)) {
      expect({ name, accepted: await acceptedBy(token) }).toEqual({ name, accepted: NONE });
    }
  });

  it('names the reason in the service error bodies', async () => {
    const revokedToken = await signWith(revoked, userClaims(userId));
    const res = await api(server, '/user', { token: revokedToken });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'bad_jwt' });
    const rest = await fetch(`${server.url}/rest/v1/notes`, {
      headers: { apikey: server.anonKey, authorization: `Bearer ${revokedToken}` },
    });
    expect(rest.status).toBe(401);
    expect(await rest.json()).toMatchObject({ code: 'PGRST301' });
    const expired = await signWith(current, userClaims(userId, { expiredAgo: 30 }));
    const restExpired = await fetch(`${server.url}/rest/v1/notes`, {
      headers: { apikey: server.anonKey, authorization: `Bearer ${expired}` },
    });
    expect(await restExpired.json()).toMatchObject({ code: 'PGRST303', message: 'JWT expired' });
  });
});

describe('rotation', () => {
  let rotating: RunningServer;
  const first = generateSigningKey('ES256') as SigningKeyJwk;
  beforeAll(async () => {
    rotating = await startTestServer({ signingKeys: [first] });
  });
  afterAll(() => rotating?.stop());

  const userStatus = async (token: string) => {
    const res = await api(rotating, '/user', { token });
    await res.body?.cancel();
    return res.status;
  };

  it('rotates a standby key in: new tokens carry its kid, old ones stay valid until revoked', async () => {
    const c = client(rotating);
    const { data } = await c.auth.signUp({ email: uniqueEmail('rot'), password: 'password-1' });
    const before = data.session?.access_token ?? '';
    expect(decodeProtectedHeader(before).kid).toBe(first.kid);

    const next = generateSigningKey('RS256');
    await expect(rotating.signingKeys.add(next)).resolves.toMatchObject({
      kid: next.kid,
      status: 'standby',
    });
    // A standby key is published before it signs, so caches can pick it up.
    const jwks = (await (await fetch(`${rotating.url}/auth/v1/.well-known/jwks.json`)).json()) as {
      keys: { kid: string }[];
    };
    expect(jwks.keys.map((k) => k.kid)).toEqual([first.kid, next.kid]);

    await expect(rotating.signingKeys.rotate()).resolves.toMatchObject({
      kid: next.kid,
      status: 'current',
    });
    const { data: refreshed, error } = await c.auth.refreshSession();
    expect(error).toBeNull();
    const after = refreshed.session?.access_token ?? '';
    expect(decodeProtectedHeader(after)).toEqual({ alg: 'RS256', kid: next.kid, typ: 'JWT' });
    expect(await userStatus(before)).toBe(200);
    expect(await userStatus(after)).toBe(200);

    // Revoking the previous key refuses its tokens at once, everywhere (no cache keeps them).
    await rotating.signingKeys.setStatus(first.kid, 'revoked');
    expect(await userStatus(before)).toBe(403);
    expect(await userStatus(after)).toBe(200);
    const listed = rotating.signingKeys.list().map(({ kid, status }) => ({ kid, status }));
    expect(listed).toEqual([
      { kid: null, status: 'previous' },
      { kid: first.kid, status: 'revoked' },
      { kid: next.kid, status: 'current' },
    ]);
    // Moving a revoked key back to standby and rotating to it is reversible, as on the dashboard.
    await rotating.signingKeys.setStatus(first.kid, 'standby');
    await rotating.signingKeys.rotate(first.kid);
    expect(await userStatus(before)).toBe(200);
    await expect(rotating.signingKeys.setStatus(first.kid, 'revoked')).rejects.toThrow(
      /current key/,
    );
  });
});

describe('configuration', () => {
  it('refuses unusable key lists with a message naming the key', async () => {
    const es = generateSigningKey('ES256');
    const rs = generateSigningKey('RS256');
    await expect(resolveConfig({ signingKeys: [es, rs] })).rejects.toThrow(
      /more than one current key/,
    );
    await expect(resolveConfig({ signingKeys: [{ ...es, kid: '' }] })).rejects.toThrow(
      /kid is required/,
    );
    await expect(resolveConfig({ signingKeys: [{ ...es, alg: 'RS256' }] })).rejects.toThrow(
      /alg RS256 does not fit a EC key/,
    );
    await expect(resolveConfig({ signingKeys: [{ ...es, crv: 'P-384' }] })).rejects.toThrow(
      /only the P-256 curve/,
    );
    const { d: _d, ...publicOnly } = es;
    await expect(resolveConfig({ signingKeys: [publicOnly as SigningKeyJwk] })).rejects.toThrow(
      /has no private part/,
    );
    // Without a current key the legacy secret signs (the hosted state before a rotation).
    const config = await resolveConfig({ signingKeys: [{ ...es, status: 'standby' }] });
    expect(config.signingKeys.current().kid).toBeNull();
  });
});

describe.skipIf(databaseKind() === 'postgres')('keys in a data directory', () => {
  it('keeps a rotation across a restart; a key new to the file waits in standby', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'signing-keys-data-'));
    const first = generateSigningKey('ES256');
    const next = generateSigningKey('ES256');
    const before = await startServer({ port: 0, dataDir, signingKeys: [first] });
    try {
      await before.signingKeys.add(next);
      await before.signingKeys.rotate();
    } finally {
      await before.stop();
    }
    const later = generateSigningKey('ES256');
    // The file now names only a new current key: the table keeps the rotation (and the key
    // the file dropped), and the new key waits for a rotation.
    const after = await startServer({ port: 0, dataDir, signingKeys: [later] });
    try {
      expect(after.signingKeys.list().map(({ kid, status }) => ({ kid, status }))).toEqual([
        { kid: null, status: 'previous' },
        { kid: first.kid, status: 'previous' },
        { kid: next.kid, status: 'current' },
        { kid: later.kid, status: 'standby' },
      ]);
    } finally {
      await after.stop();
    }
  });
});
