import { AuthApiError, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { SoftwareAuthenticator, type Tamper } from '../../src/testing/software-authenticator';
import { databaseKind, startTestServer } from '../support/server';
import { totpCode } from './mfa-support';
import { adminClient, api, claimsOf, client, uniqueEmail } from './support';

const RP_ID = 'localhost';
const ORIGIN = 'http://localhost:5173';
let server: RunningServer;

beforeAll(async () => {
  server = await startTestServer({
    auth: {
      rateLimits: false,
      passkey: { enabled: true, maxPasskeysPerUser: 3 },
      webauthn: { rpId: RP_ID, rpDisplayName: 'Drive tests', rpOrigins: [ORIGIN] },
    },
  });
});
afterAll(() => server?.stop());

const key = (options: ConstructorParameters<typeof SoftwareAuthenticator>[0] | object = {}) =>
  new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN, ...options });

/** A signed-up user on a supabase-js client with the passkey API on. */
async function newUser(tag = 'passkey') {
  const supabase = client(server, { passkey: true });
  const email = uniqueEmail(tag);
  const { data, error } = await supabase.auth.signUp({ email, password: 'passkey-password' });
  if (error || !data.user) throw error ?? new Error('no user');
  return { supabase, email, userId: data.user.id };
}

/** Registers `authenticator` as a passkey of the client's user. */
async function register(supabase: SupabaseClient, authenticator: SoftwareAuthenticator) {
  const { data: start, error } = await supabase.auth.passkey.startRegistration();
  if (error || !start) throw error ?? new Error('no options');
  const done = await supabase.auth.passkey.verifyRegistration({
    challengeId: start.challenge_id,
    credential: authenticator.create(start.options as never),
  });
  if (done.error || !done.data) throw done.error ?? new Error('no passkey');
  return done.data;
}

/** A sign-in ceremony on a fresh client; `tamper` bends the authenticator's answer. */
async function signIn(authenticator: SoftwareAuthenticator, tamper: Tamper = {}) {
  const supabase = client(server, { passkey: true });
  const { data: start, error } = await supabase.auth.passkey.startAuthentication();
  if (error || !start) throw error ?? new Error('no options');
  const result = await supabase.auth.passkey.verifyAuthentication({
    challengeId: start.challenge_id,
    credential: authenticator.get(start.options as never, tamper),
  });
  return { supabase, ...result };
}

/** A response's JSON body. */
const body = async (res: Response) => (await res.json()) as Record<string, unknown>;
const codeOf = (error: unknown) => (error instanceof AuthApiError ? error.code : String(error));

describe(`passkeys (${databaseKind()})`, () => {
  it('offers creation options for a discoverable credential of the configured relying party', async () => {
    const { supabase, email, userId } = await newUser();
    const { data, error } = await supabase.auth.passkey.startRegistration();
    expect(error).toBeNull();
    if (!data) throw new Error('no data');
    const { options } = data;
    expect(options.rp).toEqual({ id: RP_ID, name: 'Drive tests' });
    expect(Buffer.from(options.user.id, 'base64url').toString()).toBe(userId);
    expect(options.user.name).toBe(email);
    expect(options.authenticatorSelection).toMatchObject({
      residentKey: 'required',
      userVerification: 'preferred',
    });
    expect(options.attestation).toBe('none');
    expect(options.pubKeyCredParams.map((p) => p.alg)).toEqual(
      expect.arrayContaining([-7, -8, -257]),
    );
    expect(Buffer.from(options.challenge, 'base64url').length).toBeGreaterThanOrEqual(32);
    expect(data.expires_at).toBeGreaterThan(Date.now() / 1000);
    const settings = (await (await api(server, '/settings')).json()) as Record<string, unknown>;
    expect(settings.passkeys_enabled).toBe(true);
  });

  it('registers a passkey, signs in with it (aal1, amr passkey) and records the use', async () => {
    const { supabase, userId } = await newUser();
    const authenticator = key();
    const created = await register(supabase, authenticator);
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      friendly_name: 'Passkey',
      created_at: expect.any(String),
    });

    const { data, error, supabase: other } = await signIn(authenticator);
    expect(error).toBeNull();
    expect(data?.user?.id).toBe(userId);
    const token = data?.session?.access_token ?? '';
    const claims = claimsOf(token);
    expect(claims).toMatchObject({ sub: userId, aal: 'aal1', role: 'authenticated' });
    expect((claims.amr as { method: string }[]).map((a) => a.method)).toEqual(['passkey']);
    expect((await other.auth.getUser()).data.user?.id).toBe(userId);

    const listed = await supabase.auth.passkey.list();
    expect(listed.data).toEqual([
      {
        id: created.id,
        friendly_name: 'Passkey',
        created_at: created.created_at,
        last_used_at: expect.any(String),
      },
    ]);
    const { rows } = await server.db.query<{ sign_count: string }>(
      'select sign_count from auth.webauthn_credentials where id = $1',
      [created.id],
    );
    expect(Number(rows[0]?.sign_count)).toBe(authenticator.counter);
  });

  it('works with Ed25519 keys and synced passkeys', async () => {
    const { supabase, userId } = await newUser();
    const authenticator = key({ algorithm: 'EdDSA', backedUp: true });
    const created = await register(supabase, authenticator);
    const { data, error } = await signIn(authenticator);
    expect(error).toBeNull();
    expect(data?.user?.id).toBe(userId);
    const { rows } = await server.db.query<{ backup_eligible: boolean; backed_up: boolean }>(
      'select backup_eligible, backed_up from auth.webauthn_credentials where id = $1',
      [created.id],
    );
    expect(rows[0]).toEqual({ backup_eligible: true, backed_up: true });
  });

  it('refuses a replayed challenge, a counter that did not go up and a bad signature', async () => {
    const { supabase } = await newUser();
    const authenticator = key();
    await register(supabase, authenticator);

    const anon = client(server, { passkey: true });
    const { data: start } = await anon.auth.passkey.startAuthentication();
    if (!start) throw new Error('no options');
    const assertion = authenticator.get(start.options as never);
    const first = await anon.auth.passkey.verifyAuthentication({
      challengeId: start.challenge_id,
      credential: assertion,
    });
    expect(first.error).toBeNull();
    const again = await anon.auth.passkey.verifyAuthentication({
      challengeId: start.challenge_id,
      credential: assertion,
    });
    expect(codeOf(again.error)).toBe('webauthn_challenge_not_found');
    expect((again.error as AuthApiError).status).toBe(400);

    // The same counter again (a cloned key or a replayed assertion on a new challenge).
    const cloned = await signIn(authenticator, { counter: authenticator.counter });
    expect(codeOf(cloned.error)).toBe('webauthn_verification_failed');
    const lower = await signIn(authenticator, { counter: 1 });
    expect(codeOf(lower.error)).toBe('webauthn_verification_failed');
    const forged = await signIn(authenticator, { badSignature: true });
    expect(codeOf(forged.error)).toBe('webauthn_verification_failed');
    // The refusals did not move the stored counter: the next real assertion still works.
    authenticator.counter = 10;
    expect((await signIn(authenticator)).error).toBeNull();
  });

  it('refuses another origin, another RP id, an answer to another challenge and a missing user', async () => {
    const { supabase } = await newUser();
    const authenticator = key();
    await register(supabase, authenticator);
    for (const tamper of [
      { origin: 'http://evil.localhost:5173' },
      { rpId: 'evil.example' },
      { challenge: Buffer.alloc(32, 7).toString('base64url') },
      { type: 'webauthn.create' },
      { userPresent: false },
      { userHandle: '' },
      { userHandle: Buffer.from('00000000-0000-0000-0000-000000000000').toString('base64url') },
    ] satisfies Tamper[]) {
      const { data, error } = await signIn(authenticator, tamper);
      expect({ tamper, code: codeOf(error) }).toEqual({
        tamper,
        code: 'webauthn_verification_failed',
      });
      expect(data).toBeNull();
    }

    const { data: start } = await supabase.auth.passkey.startRegistration();
    if (!start) throw new Error('no options');
    const wrongOrigin = await supabase.auth.passkey.verifyRegistration({
      challengeId: start.challenge_id,
      credential: key().create(start.options as never, { origin: 'https://localhost:5173' }),
    });
    expect(codeOf(wrongOrigin.error)).toBe('webauthn_verification_failed');
  });

  it('refuses an unknown credential and a passkey of another user', async () => {
    const alice = await newUser('alice');
    const bob = await newUser('bob');
    const aliceKey = key();
    await register(alice.supabase, aliceKey);
    // A key that made a credential for Alice's handle but was never registered.
    const { data: start } = await alice.supabase.auth.passkey.startRegistration();
    const stray = key();
    stray.create(start?.options as never);
    expect(codeOf((await signIn(stray)).error)).toBe('webauthn_verification_failed');
    // Alice's credential claiming to be Bob.
    const bobHandle = Buffer.from(bob.userId).toString('base64url');
    expect(codeOf((await signIn(aliceKey, { userHandle: bobHandle })).error)).toBe(
      'webauthn_verification_failed',
    );
  });

  it('refuses an expired challenge, an unknown or malformed challenge id and a malformed credential', async () => {
    const { supabase } = await newUser();
    const authenticator = key();
    await register(supabase, authenticator);
    const anon = client(server, { passkey: true });
    const { data: start } = await anon.auth.passkey.startAuthentication();
    if (!start) throw new Error('no options');
    await server.db.query(
      `update auth.webauthn_challenges set expires_at = now() - interval '1 second' where id = $1`,
      [start.challenge_id],
    );
    const expired = await anon.auth.passkey.verifyAuthentication({
      challengeId: start.challenge_id,
      credential: authenticator.get(start.options as never),
    });
    expect(codeOf(expired.error)).toBe('webauthn_challenge_expired');

    const verify = (json: unknown) =>
      api(server, '/passkeys/authentication/verify', { method: 'POST', json });
    const missing = await verify({ credential: {} });
    expect(missing.status).toBe(400);
    expect(await body(missing)).toEqual({
      code: 'validation_failed',
      message: 'challenge_id is required',
    });
    const notUuid = await verify({ challenge_id: 'abc', credential: {} });
    expect((await body(notUuid)).message).toBe('challenge_id must be a valid UUID');
    const noCredential = await verify({ challenge_id: start.challenge_id });
    expect((await body(noCredential)).message).toBe('credential is required');
    const badJson = await api(server, '/passkeys/authentication/verify', {
      method: 'POST',
      body: '{"challenge_id":',
      headers: { 'content-type': 'application/json' },
    });
    expect(badJson.status).toBe(400);
    expect((await body(badJson)).code).toBe('bad_json');

    const { data: next } = await anon.auth.passkey.startAuthentication();
    const malformed = await verify({ challenge_id: next?.challenge_id, credential: { id: 1 } });
    expect(malformed.status).toBe(400);
    expect(await body(malformed)).toEqual({
      code: 'webauthn_verification_failed',
      message: 'Invalid credential response',
    });
  });

  it('a registration challenge belongs to its user and is used once', async () => {
    const alice = await newUser('alice');
    const bob = await newUser('bob');
    const { data: start } = await alice.supabase.auth.passkey.startRegistration();
    if (!start) throw new Error('no options');
    const credential = key().create(start.options as never);
    const stolen = await bob.supabase.auth.passkey.verifyRegistration({
      challengeId: start.challenge_id,
      credential,
    });
    expect(codeOf(stolen.error)).toBe('webauthn_challenge_not_found');
    const own = await alice.supabase.auth.passkey.verifyRegistration({
      challengeId: start.challenge_id,
      credential,
    });
    expect(own.error).toBeNull();
    const replay = await alice.supabase.auth.passkey.verifyRegistration({
      challengeId: start.challenge_id,
      credential,
    });
    expect(codeOf(replay.error)).toBe('webauthn_challenge_not_found');
  });

  it('excludes registered credentials, refuses one twice, and caps passkeys per user', async () => {
    const { supabase } = await newUser();
    const first = key();
    await register(supabase, first);
    const { data: start } = await supabase.auth.passkey.startRegistration();
    expect(start?.options.excludeCredentials?.map((c) => c.id)).toEqual([first.credentialId]);
    // A browser would refuse; a client that answers anyway is refused by the server.
    const { data: again } = await supabase.auth.passkey.startRegistration();
    const twice = await supabase.auth.passkey.verifyRegistration({
      challengeId: again?.challenge_id ?? '',
      credential: first.create({ ...(again?.options as object), excludeCredentials: [] } as never),
    });
    expect(codeOf(twice.error)).toBe('webauthn_credential_exists');
    expect((twice.error as AuthApiError).status).toBe(422);

    await register(supabase, key());
    await register(supabase, key());
    const over = await supabase.auth.passkey.startRegistration();
    expect(codeOf(over.error)).toBe('too_many_passkeys');
    expect((over.error as AuthApiError).status).toBe(422);
  });

  it('renames and deletes passkeys; a deleted passkey no longer signs in', async () => {
    const { supabase } = await newUser();
    const authenticator = key();
    const created = await register(supabase, authenticator);
    const renamed = await supabase.auth.passkey.update({
      passkeyId: created.id,
      friendlyName: 'Laptop',
    });
    expect(renamed.data).toMatchObject({ id: created.id, friendly_name: 'Laptop' });
    const tooLong = await supabase.auth.passkey.update({
      passkeyId: created.id,
      friendlyName: 'é'.repeat(61),
    });
    expect((tooLong.error as AuthApiError).message).toBe(
      'friendly_name must be 120 characters or less',
    );
    const empty = await supabase.auth.passkey.update({ passkeyId: created.id, friendlyName: '' });
    expect((empty.error as AuthApiError).message).toBe('friendly_name is required');
    const unknown = await supabase.auth.passkey.update({
      passkeyId: '00000000-0000-0000-0000-000000000000',
      friendlyName: 'x',
    });
    expect((unknown.error as AuthApiError).status).toBe(404);
    const notUuid = await supabase.auth.passkey.delete({ passkeyId: 'nope' });
    expect((notUuid.error as AuthApiError).status).toBe(404);

    const other = await newUser('other');
    const foreign = await other.supabase.auth.passkey.delete({ passkeyId: created.id });
    expect((foreign.error as AuthApiError).status).toBe(404);

    expect((await supabase.auth.passkey.delete({ passkeyId: created.id })).error).toBeNull();
    expect((await supabase.auth.passkey.list()).data).toEqual([]);
    expect(codeOf((await signIn(authenticator)).error)).toBe('webauthn_verification_failed');
  });

  it('admin lists and deletes a user’s passkeys', async () => {
    const { supabase, userId } = await newUser();
    const created = await register(supabase, key());
    const admin = adminClient(server, { passkey: true });
    const listed = await admin.auth.admin.passkey.listPasskeys({ userId });
    expect(listed.data?.map((p) => p.id)).toEqual([created.id]);
    // The new secret key works as the legacy service-role key does.
    const bySecretKey = await api(server, `/admin/users/${userId}/passkeys`, {
      key: server.secretKey,
    });
    expect(bySecretKey.status).toBe(200);
    expect(((await bySecretKey.json()) as { id: string }[]).map((p) => p.id)).toEqual([created.id]);
    const res = await api(server, `/admin/users/${userId}/passkeys/${created.id}`, {
      method: 'DELETE',
      key: server.serviceRoleKey,
      token: server.serviceRoleKey,
    });
    expect(res.status).toBe(204);
    expect((await admin.auth.admin.passkey.listPasskeys({ userId })).data).toEqual([]);
    const gone = await api(server, `/admin/users/${userId}/passkeys/${created.id}`, {
      method: 'DELETE',
      key: server.serviceRoleKey,
      token: server.serviceRoleKey,
    });
    expect(gone.status).toBe(404);
    const nobody = await api(server, `/admin/users/${crypto.randomUUID()}/passkeys`, {
      key: server.serviceRoleKey,
      token: server.serviceRoleKey,
    });
    expect(nobody.status).toBe(404);
    expect((await body(nobody)).code).toBe('user_not_found');
    const asUser = await api(server, `/admin/users/${userId}/passkeys`, {
      token: (await supabase.auth.getSession()).data.session?.access_token ?? '',
    });
    expect(asUser.status).toBe(403);
  });

  it('needs a signed-in, non-anonymous user to register, and aal2 once MFA is on', async () => {
    const noSession = await api(server, '/passkeys/registration/options', {
      method: 'POST',
      json: {},
    });
    expect(noSession.status).toBe(401);
    const anonymous = client(server, { passkey: true });
    const { error } = await anonymous.auth.signInAnonymously();
    expect(error).toBeNull();
    const refused = await anonymous.auth.passkey.startRegistration();
    expect(codeOf(refused.error)).toBe('no_authorization');
    expect((refused.error as AuthApiError).status).toBe(403);

    const { supabase } = await newUser('mfa');
    const authenticator = key();
    const created = await register(supabase, authenticator);
    const enrolled = await supabase.auth.mfa.enroll({ factorType: 'totp' });
    const factorId = enrolled.data?.id ?? '';
    const secret = enrolled.data?.totp.secret ?? '';
    expect(
      (await supabase.auth.mfa.challengeAndVerify({ factorId, code: totpCode(secret) })).error,
    ).toBeNull();
    // A passkey sign-in is aal1: adding or removing passkeys then needs the second factor.
    const viaPasskey = await signIn(authenticator);
    expect(viaPasskey.error).toBeNull();
    expect(claimsOf(viaPasskey.data?.session?.access_token ?? '').aal).toBe('aal1');
    const aal1 = await viaPasskey.supabase.auth.passkey.startRegistration();
    expect(codeOf(aal1.error)).toBe('insufficient_aal');
    expect((aal1.error as AuthApiError).status).toBe(403);
    const deleteAal1 = await viaPasskey.supabase.auth.passkey.delete({ passkeyId: created.id });
    expect(codeOf(deleteAal1.error)).toBe('insufficient_aal');
    // Listing and renaming stay open at aal1, as hosted.
    expect((await viaPasskey.supabase.auth.passkey.list()).data).toHaveLength(1);
    const renamed = await viaPasskey.supabase.auth.passkey.update({
      passkeyId: created.id,
      friendlyName: 'Phone',
    });
    expect(renamed.error).toBeNull();
    // The aal2 session may.
    expect((await supabase.auth.passkey.startRegistration()).error).toBeNull();
  });

  it('refuses a sign-in of a banned user and of an unconfirmed email', async () => {
    const { supabase, userId } = await newUser();
    const authenticator = key();
    await register(supabase, authenticator);
    const admin = adminClient(server);
    await admin.auth.admin.updateUserById(userId, { ban_duration: '1h' });
    const banned = await signIn(authenticator);
    expect(codeOf(banned.error)).toBe('user_banned');
    expect((banned.error as AuthApiError).status).toBe(403);
    await admin.auth.admin.updateUserById(userId, { ban_duration: 'none' });
    await server.db.query('update auth.users set email_confirmed_at = null where id = $1', [
      userId,
    ]);
    const unconfirmed = await signIn(authenticator);
    expect(codeOf(unconfirmed.error)).toBe('email_not_confirmed');
  });
});

describe(`passkeys turned off (${databaseKind()})`, () => {
  let off: RunningServer;
  beforeAll(async () => {
    off = await startTestServer({ auth: { rateLimits: false } });
  });
  afterAll(() => off?.stop());

  it('answers every /passkeys route 404 passkey_disabled, as hosted', async () => {
    for (const [method, path] of [
      ['POST', '/passkeys/authentication/options'],
      ['POST', '/passkeys/registration/options'],
      ['GET', '/passkeys'],
      ['PATCH', '/passkeys/00000000-0000-0000-0000-000000000000'],
    ] as const) {
      const res = await api(off, path, { method, ...(method === 'GET' ? {} : { json: {} }) });
      expect({ path, status: res.status, body: await body(res) }).toEqual({
        path,
        status: 404,
        body: { code: 'passkey_disabled', message: 'Passkeys are disabled' },
      });
    }
    expect((await body(await api(off, '/settings'))).passkeys_enabled).toBe(false);
  });
});
