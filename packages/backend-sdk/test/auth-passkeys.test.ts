import { type RunningServer, startServer } from '@app/backend-server';
import { SoftwareAuthenticator } from '@app/backend-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthChangeEvent,
  type CreationOptionsJson,
  createAuthClient,
  memoryStorage,
  type RequestOptionsJson,
  type WebAuthnDriver,
} from '../src/auth/index';
import { createClient } from '../src/index';
import { WebAuthnMfa, withPasskeys } from '../src/webauthn/index';
import { officialClient } from './support/official';
import { type Recorded, recordingFetch } from './support/record';
import { freshEmail } from './support/server';

const RP_ID = 'localhost';
const ORIGIN = 'http://localhost:5173';
const PASSWORD = 'correct horse 1';
let server: RunningServer;

beforeAll(async () => {
  server = await startServer({
    port: 0,
    auth: {
      rateLimits: false,
      passkey: { enabled: true },
      webauthn: { rpId: RP_ID, rpDisplayName: 'SDK tests', rpOrigins: [ORIGIN] },
      mfa: { webauthn: { enroll: true, verify: true } },
    },
  });
});
afterAll(async () => {
  await server?.stop();
});

const authenticator = () => new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });

/** A WebAuthn driver backed by a software authenticator (the browser's part, in Node). */
const driverOf = (key: SoftwareAuthenticator, calls: string[] = []): WebAuthnDriver => ({
  create: async (options: CreationOptionsJson) => {
    calls.push('create');
    return key.create(options as never) as never;
  },
  get: async (options: RequestOptionsJson) => {
    calls.push('get');
    return key.get(options as never) as never;
  },
});

/** Our auth client with `auth.passkey` and `auth.admin.passkey` (withPasskeys). */
const ours = (fetch?: ReturnType<typeof recordingFetch>['fetch'], key = server.anonKey) =>
  withPasskeys({
    auth: createAuthClient(server.url, key, {
      storage: memoryStorage(),
      autoRefreshToken: false,
      ...(fetch ? { fetch } : {}),
    }),
  }).auth;

/** A whole client with the passkey ceremonies, its prompt played by `driver`. */
const withDriver = (driver?: WebAuthnDriver) =>
  withPasskeys(
    createClient(server.url, server.anonKey, {
      auth: { storage: memoryStorage(), autoRefreshToken: false },
    }),
    driver ? { driver } : {},
  ).auth;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** Values that differ between two runs of the same flow. */
const VOLATILE =
  /^(id|rawId|user_id|identity_id|sub|access_token|refresh_token|expires_at|expires_in|created_at|updated_at|last_used_at|last_sign_in_at|email_confirmed_at|confirmed_at|confirmation_sent_at|email|name|displayName|challenge|challenge_id|challengeId|factorId|passkeyId|session_id|timestamp|clientDataJSON|attestationObject|authenticatorData|signature|userHandle)$/;
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        VOLATILE.test(k) && v !== null && typeof v !== 'object' ? typeof v : shape(v),
      ]),
    );
  return value;
}
const wire = (r: Recorded) => ({
  method: r.method,
  path: r.path.replace(UUID, '<id>'),
  auth: r.headers.authorization === `Bearer ${server.anonKey}` ? 'key' : 'user',
  version: r.headers['x-supabase-api-version'],
  body: r.body ? shape(JSON.parse(r.body)) : null,
});
const errorOf = (e: unknown) => {
  const x = e as { status?: number; code?: string; message?: string; name?: string } | null;
  return x ? { status: x.status, code: x.code, message: x.message, name: x.name } : null;
};

// biome-ignore lint/suspicious/noExplicitAny: the flows drive both clients' auth untyped
type Any = any;
const signedUp = (auth: Any) => auth.signUp({ email: freshEmail('passkey'), password: PASSWORD });
async function registered(auth: Any, key: SoftwareAuthenticator) {
  const { data } = await auth.passkey.startRegistration();
  return auth.passkey.verifyRegistration({
    challengeId: data.challenge_id,
    credential: key.create(data.options),
  });
}

describe('passkeys: the same requests and results as the official client', () => {
  const flows: [string, (auth: Any, key: SoftwareAuthenticator) => Promise<Any>][] = [
    [
      'registration options',
      async (auth) => {
        await signedUp(auth);
        return auth.passkey.startRegistration();
      },
    ],
    [
      'register a passkey',
      async (auth, key) => {
        await signedUp(auth);
        return registered(auth, key);
      },
    ],
    [
      'sign in with it (two steps)',
      async (auth, key) => {
        await signedUp(auth);
        await registered(auth, key);
        await auth.signOut();
        const { data } = await auth.passkey.startAuthentication();
        return auth.passkey.verifyAuthentication({
          challengeId: data.challenge_id,
          credential: key.get(data.options),
        });
      },
    ],
    [
      'a replayed sign-in',
      async (auth, key) => {
        await signedUp(auth);
        await registered(auth, key);
        const { data } = await auth.passkey.startAuthentication();
        const credential = key.get(data.options);
        await auth.passkey.verifyAuthentication({ challengeId: data.challenge_id, credential });
        return auth.passkey.verifyAuthentication({ challengeId: data.challenge_id, credential });
      },
    ],
    [
      'list, rename, delete',
      async (auth, key) => {
        await signedUp(auth);
        const { data: passkey } = await registered(auth, key);
        const renamed = await auth.passkey.update({
          passkeyId: passkey.id,
          friendlyName: 'Laptop',
        });
        const list = await auth.passkey.list();
        const deleted = await auth.passkey.delete({ passkeyId: passkey.id });
        return { data: { renamed, list, deleted }, error: null };
      },
    ],
    [
      'rename an unknown passkey',
      async (auth) => {
        await signedUp(auth);
        return auth.passkey.update({ passkeyId: crypto.randomUUID(), friendlyName: 'x' });
      },
    ],
    [
      'enroll a WebAuthn factor and challenge it',
      async (auth) => {
        await signedUp(auth);
        const { data } = await auth.mfa.enroll({ factorType: 'webauthn', friendlyName: 'Key' });
        const challenge = await auth.mfa.challenge({ factorId: data.id });
        // The official client turns the options into ArrayBuffers for the browser: compare keys.
        return { data: { enrolled: data, keys: Object.keys(challenge.data) }, error: null };
      },
    ],
  ];

  it.each(flows)('%s', async (_name, flow) => {
    const a = recordingFetch();
    const b = recordingFetch();
    const sdk = ours(a.fetch);
    const official = officialClient(server.url, server.anonKey, {
      fetch: b.fetch,
      passkey: true,
    }).auth;
    const ra = await flow(sdk, authenticator());
    const rb = await flow(official, authenticator());
    expect(shape(ra.data ?? null)).toEqual(shape(rb.data ?? null));
    expect(errorOf(ra.error)).toEqual(errorOf(rb.error));
    expect(a.log.map(wire)).toEqual(b.log.map(wire));
    sdk.dispose();
  });

  it('admin lists and deletes a user’s passkeys as the official client does', async () => {
    const user = ours();
    const signUp = await signedUp(user);
    await registered(user, authenticator());
    const userId = signUp.data.user.id;
    const a = recordingFetch();
    const b = recordingFetch();
    const admin = ours(a.fetch, server.serviceRoleKey);
    const official = officialClient(server.url, server.serviceRoleKey, {
      fetch: b.fetch,
      passkey: true,
    }).auth;
    const listed = await admin.admin.passkey.listPasskeys({ userId });
    expect(shape(listed)).toEqual(shape(await official.admin.passkey.listPasskeys({ userId })));
    const passkeyId = listed.data?.[0]?.id ?? '';
    const deleted = await admin.admin.passkey.deletePasskey({ userId, passkeyId });
    expect(deleted).toEqual({ data: null, error: null });
    const again = await official.admin.passkey.deletePasskey({ userId, passkeyId });
    expect(again.error?.status).toBe(404);
    expect(a.log.map((r) => [r.method, r.path])).toEqual(b.log.map((r) => [r.method, r.path]));
    user.dispose();
    admin.dispose();
  });
});

describe('passkeys in the SDK', () => {
  it('registerPasskey and signInWithPasskey run the whole ceremony through the driver', async () => {
    const key = authenticator();
    const calls: string[] = [];
    const owner = withDriver(driverOf(key, calls));
    const signUp = await signedUp(owner);
    const created = await owner.registerPasskey();
    expect(created.error).toBeNull();
    expect(created.data).toMatchObject({ id: expect.any(String), friendly_name: 'Passkey' });

    const visitor = withDriver(driverOf(key, calls));
    const events: AuthChangeEvent[] = [];
    visitor.onAuthStateChange((event) => void events.push(event));
    const signedIn = await visitor.signInWithPasskey();
    expect(signedIn.error).toBeNull();
    expect(signedIn.data?.user?.id).toBe(signUp.data.user.id);
    expect(events).toContain('SIGNED_IN');
    expect((await visitor.getSession()).data.session?.access_token).toBe(
      signedIn.data?.session?.access_token,
    );
    expect((await visitor.getUser()).data.user?.id).toBe(signUp.data.user.id);
    expect(calls).toEqual(['create', 'get']);
    expect((await owner.passkey.list()).data?.[0]?.last_used_at).toEqual(expect.any(String));
    owner.dispose();
    visitor.dispose();
  });

  it('passes the browser’s refusal on as an AuthError named after the DOM error', async () => {
    const refusing: WebAuthnDriver = {
      create: () => Promise.reject(new DOMException('The user said no', 'NotAllowedError')),
      get: () => Promise.reject(new DOMException('The user said no', 'NotAllowedError')),
    };
    const visitor = withDriver(refusing);
    const result = await visitor.signInWithPasskey();
    expect(result.data).toBeNull();
    expect(errorOf(result.error)).toMatchObject({
      code: 'NotAllowedError',
      message: 'The user said no',
    });
    visitor.dispose();
  });

  it('refuses before any request where the runtime has no WebAuthn (default driver)', async () => {
    const { fetch, log } = recordingFetch();
    const auth = withPasskeys({ auth: ours(fetch) }).auth;
    const result = await auth.signInWithPasskey();
    expect(errorOf(result.error)).toMatchObject({
      code: 'webauthn_unsupported',
      message: 'Browser does not support WebAuthn',
    });
    expect(log).toEqual([]);
    auth.dispose();
  });

  it('reports the server’s refusal of a bent answer (another origin)', async () => {
    const key = authenticator();
    const owner = withDriver(driverOf(key));
    await signedUp(owner);
    await owner.registerPasskey();
    const elsewhere = withDriver({
      create: () => Promise.reject(new Error('unused')),
      get: async (o) => key.get(o as never, { origin: 'https://evil.example' }) as never,
    });
    const result = await elsewhere.signInWithPasskey();
    expect(errorOf(result.error)).toEqual({
      status: 400,
      code: 'webauthn_verification_failed',
      message: 'Credential verification failed',
      name: 'AuthApiError',
    });
    expect((await elsewhere.getSession()).data.session).toBeNull();
    owner.dispose();
    elsewhere.dispose();
  });

  it('WebAuthnMfa registers a key as a second factor and authenticates with it', async () => {
    const key = authenticator();
    const auth = withDriver(driverOf(key));
    await signedUp(auth);
    // `auth.mfa.webauthn`, as the official client has it (withPasskeys), and WebAuthnMfa alone.
    const registered = await auth.mfa.webauthn.register({ friendlyName: 'YubiKey' });
    expect(registered.error).toBeNull();
    const listed = await auth.mfa.listFactors();
    expect(listed.data?.webauthn).toMatchObject([
      { friendly_name: 'YubiKey', factor_type: 'webauthn', status: 'verified' },
    ]);
    const factorId = listed.data?.webauthn[0]?.id ?? '';

    const later = ours();
    const email = (await auth.getUser()).data.user?.email ?? '';
    await later.signInWithPassword({ email, password: PASSWORD });
    const before = await later.mfa.getAuthenticatorAssuranceLevel();
    expect(before.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal2' });
    const challenge = await later.mfa.challenge({ factorId });
    expect(challenge.data?.webauthn?.type).toBe('request');
    const done = await new WebAuthnMfa(later, driverOf(key)).authenticate({ factorId });
    expect(done.error).toBeNull();
    const after = await later.mfa.getAuthenticatorAssuranceLevel();
    expect(after.data?.currentLevel).toBe('aal2');
    expect(after.data?.currentAuthenticationMethods.map((m) => m.method)).toContain('mfa/webauthn');
    auth.dispose();
    later.dispose();
  });
});
