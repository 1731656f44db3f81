/**
 * Signing keys and the new API keys through the SDK against the real server: getClaims()
 * verifies ES256 / RS256 tokens locally with the cached JWKS and falls back to the server
 * for HS256; a publishable or secret key is sent in `apikey` only.
 */
import { fileURLToPath } from 'node:url';
import { generateSigningKey, type RunningServer, startServer } from '@app/backend-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthClient, memoryStorage } from '../src/auth/index';
import { createClient } from '../src/index';
import { officialClient } from './support/official';
import { recordingFetch } from './support/record';
import { freshEmail, startSdkServer } from './support/server';

const PASSWORD = 'correct horse 1';
const fixtures = (path: string) => fileURLToPath(new URL(`./fixtures/${path}`, import.meta.url));

let asymmetric: RunningServer;
let legacy: RunningServer;
const es256 = generateSigningKey('ES256');

beforeAll(async () => {
  [asymmetric, legacy] = await Promise.all([
    startServer({
      port: 0,
      migrationsDir: fixtures('migrations'),
      functionsDir: fixtures('functions'),
      signingKeys: [es256],
      functions: { verifyJwt: false },
      auth: { rateLimits: false },
    }),
    startSdkServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([asymmetric?.stop(), legacy?.stop()]);
});

/** An auth client with a recording fetch and a clock the test can move. */
function authClient(server: RunningServer, key = server.anonKey) {
  const rec = recordingFetch();
  let offset = 0;
  const timers = {
    now: () => Date.now() + offset,
    setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
    clearTimeout: (id: unknown) => clearTimeout(id as ReturnType<typeof setTimeout>),
  };
  const auth = createAuthClient(server.url, key, {
    fetch: rec.fetch,
    storage: memoryStorage(),
    autoRefreshToken: false,
    timers,
  });
  const advance = (ms: number) => {
    offset += ms;
  };
  return { auth, rec, advance };
}

const paths = (log: { path: string }[]) => log.map((r) => r.path);

describe('getClaims', () => {
  it('verifies an ES256 token locally: one JWKS fetch, then none, and no call to /user', async () => {
    const { auth, rec, advance } = authClient(asymmetric);
    const email = freshEmail('claims');
    await auth.signUp({ email, password: PASSWORD });
    rec.clear();
    const first = await auth.getClaims();
    expect(first.error).toBeNull();
    expect(first.data?.claims).toMatchObject({ email, role: 'authenticated', aal: 'aal1' });
    expect(first.data?.header).toEqual({ alg: 'ES256', kid: es256.kid, typ: 'JWT' });
    expect(first.data?.signature).toBeInstanceOf(Uint8Array);
    expect(first.data?.signature.length).toBe(64);
    expect(paths(rec.log)).toEqual(['/auth/v1/.well-known/jwks.json']);
    rec.clear();
    await auth.getClaims();
    expect(paths(rec.log)).toEqual([]);
    // After the 10-minute TTL the set is fetched again.
    advance(10 * 60 * 1000 + 1000);
    const later = await auth.getClaims();
    expect(later.error).toBeNull();
    expect(paths(rec.log)).toEqual(['/auth/v1/.well-known/jwks.json']);
  });

  it('fetches the set again for a key it does not know (after a rotation)', async () => {
    const { auth, rec } = authClient(asymmetric);
    await auth.signUp({ email: freshEmail('rot'), password: PASSWORD });
    expect((await auth.getClaims()).error).toBeNull();
    const next = generateSigningKey('RS256');
    await asymmetric.signingKeys.add(next);
    await asymmetric.signingKeys.rotate();
    try {
      await auth.refreshSession();
      rec.clear();
      const { data, error } = await auth.getClaims();
      expect(error).toBeNull();
      expect(data?.header.kid).toBe(next.kid);
      expect(data?.header.alg).toBe('RS256');
      expect(paths(rec.log)).toEqual(['/auth/v1/.well-known/jwks.json']);
    } finally {
      await asymmetric.signingKeys.setStatus(es256.kid, 'standby');
      await asymmetric.signingKeys.rotate(es256.kid);
    }
  });

  it('refuses a token whose claims were changed, and an expired one', async () => {
    const { auth } = authClient(asymmetric);
    const { data } = await auth.signUp({ email: freshEmail('tamper'), password: PASSWORD });
    const token = data.session?.access_token ?? '';
    const [head, body, sig] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
    const forged = `${head}.${Buffer.from(JSON.stringify({ ...claims, role: 'service_role' })).toString('base64url')}.${sig}`;
    const refused = await auth.getClaims(forged);
    expect(refused.data).toBeNull();
    expect(refused.error).toMatchObject({
      message: 'Invalid JWT signature',
      status: 400,
      code: 'invalid_jwt',
    });
    const expired = `${head}.${Buffer.from(JSON.stringify({ ...claims, exp: 1000 })).toString('base64url')}.${sig}`;
    expect((await auth.getClaims(expired)).error).toMatchObject({
      message: 'JWT has expired',
      code: 'invalid_jwt',
    });
    expect((await auth.getClaims('not.a-jwt')).error?.code).toBe('invalid_jwt');
  });

  it('asks the server about HS256 tokens (GET /user) and reports its refusal', async () => {
    const { auth, rec } = authClient(legacy);
    const { data } = await auth.signUp({ email: freshEmail('hs'), password: PASSWORD });
    rec.clear();
    const ok = await auth.getClaims();
    expect(ok.error).toBeNull();
    expect(ok.data?.header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(paths(rec.log)).toEqual(['/auth/v1/user']);
    const token = data.session?.access_token ?? '';
    const broken = `${token.slice(0, -4)}AAAA`;
    const refused = await auth.getClaims(broken);
    expect(refused.data).toBeNull();
    expect(refused.error?.status).toBe(403);
    expect(refused.error?.message).toContain('unable to parse or verify signature');
  });

  it('answers { data: null, error: null } when signed out', async () => {
    const { auth } = authClient(asymmetric);
    expect(await auth.getClaims()).toEqual({ data: null, error: null });
  });

  it('returns what supabase-js 2.109 returns for the same token', async () => {
    const { auth } = authClient(asymmetric);
    const { data } = await auth.signUp({ email: freshEmail('same'), password: PASSWORD });
    const token = data.session?.access_token ?? '';
    const official = officialClient(asymmetric.url, asymmetric.anonKey);
    const theirs = await official.auth.getClaims(token);
    const ours = await auth.getClaims(token);
    expect(theirs.error).toBeNull();
    expect(ours.data?.claims).toEqual(theirs.data?.claims);
    expect(ours.data?.header).toEqual(theirs.data?.header);
    expect(Array.from(ours.data?.signature ?? [])).toEqual(
      Array.from(theirs.data?.signature ?? []),
    );
  });
});

describe('publishable and secret keys', () => {
  it('sends a publishable key in apikey only until there is a session', async () => {
    const rec = recordingFetch();
    const client = createClient(asymmetric.url, asymmetric.publishableKey, {
      global: { fetch: rec.fetch },
      auth: { storage: memoryStorage(), autoRefreshToken: false },
    });
    const items = await client.from('todos').select('id').limit(1);
    expect(items.error).toBeNull();
    await client.functions.invoke('echo', { body: { a: 1 } });
    const email = freshEmail('pub');
    await client.auth.signUp({ email, password: PASSWORD });
    for (const r of rec.log) {
      expect({ path: r.path, apikey: r.headers.apikey, auth: r.headers.authorization }).toEqual({
        path: r.path,
        apikey: asymmetric.publishableKey,
        auth: undefined,
      });
    }
    rec.clear();
    await client.from('todos').select('id').limit(1);
    const { data: session } = await client.auth.getSession();
    expect(rec.log[0]?.headers.authorization).toBe(`Bearer ${session.session?.access_token}`);
    expect(rec.log[0]?.headers.apikey).toBe(asymmetric.publishableKey);
  });

  it('runs the admin API with a secret key (no Authorization sent)', async () => {
    const rec = recordingFetch();
    const admin = createClient(asymmetric.url, asymmetric.secretKey, {
      global: { fetch: rec.fetch },
      auth: { storage: memoryStorage(), autoRefreshToken: false, persistSession: false },
    });
    const { data, error } = await admin.auth.admin.createUser({
      email: freshEmail('admin'),
      password: PASSWORD,
      email_confirm: true,
    });
    expect(error).toBeNull();
    expect(data.user?.id).toBeTruthy();
    expect(rec.log.every((r) => r.headers.authorization === undefined)).toBe(true);
  });
});
