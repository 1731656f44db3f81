import { AuthApiError, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { SoftwareAuthenticator, type Tamper } from '../../src/testing/software-authenticator';
import { databaseKind, startTestServer } from '../support/server';
import { signedInUser } from './mfa-support';
import { api, claimsOf, client } from './support';

const RP_ID = 'drive.localhost';
const ORIGIN = 'http://drive.localhost:5173';
let server: RunningServer;

beforeAll(async () => {
  server = await startTestServer({
    auth: {
      rateLimits: false,
      // No `webauthn` options: the relying party comes from the site URL.
      siteUrl: ORIGIN,
      mfa: { webauthn: { enroll: true, verify: true } },
    },
  });
});
afterAll(() => server?.stop());

/** supabase-js hands options over as ArrayBuffers (for `navigator.credentials`): back to JSON. */
function json(value: unknown): unknown {
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
    const bytes = value instanceof ArrayBuffer ? value : value.buffer;
    return Buffer.from(bytes as ArrayBuffer).toString('base64url');
  }
  if (Array.isArray(value)) return value.map(json);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, json(v)]));
  }
  return value;
}

/** A browser credential as supabase-js serialises it (through `toJSON`). */
const credential = <T>(answer: T) => ({ ...answer, toJSON: () => answer }) as never;

/** Challenge through supabase-js; the options as the authenticator reads them. */
async function challenge(supabase: SupabaseClient, factorId: string) {
  // auth-js sends the page's RP id and origins; the server keeps to its own.
  const { data, error } = await supabase.auth.mfa.challenge({
    factorId,
    webauthn: { rpId: RP_ID, rpOrigins: [ORIGIN] },
  });
  if (error || !data) throw error ?? new Error('no challenge');
  return {
    id: data.id,
    type: data.webauthn.type,
    options: json(data.webauthn.credential_options.publicKey) as never,
  };
}

async function verify(
  supabase: SupabaseClient,
  factorId: string,
  key: SoftwareAuthenticator,
  tamper: Tamper = {},
) {
  const c = await challenge(supabase, factorId);
  const answer = c.type === 'create' ? key.create(c.options, tamper) : key.get(c.options, tamper);
  return supabase.auth.mfa.verify({
    factorId,
    challengeId: c.id,
    webauthn: {
      type: c.type,
      rpId: RP_ID,
      rpOrigins: [ORIGIN],
      credential_response: credential(answer),
    },
  } as never);
}

/** A user with a verified WebAuthn factor; returns the key and the factor. */
async function withWebAuthnFactor() {
  const user = await signedInUser(server, 'webauthn');
  const enrolled = await user.supabase.auth.mfa.enroll({
    factorType: 'webauthn',
    friendlyName: 'Security key',
  });
  if (enrolled.error || !enrolled.data) throw enrolled.error ?? new Error('no factor');
  const key = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
  const verified = await verify(user.supabase, enrolled.data.id, key);
  if (verified.error) throw verified.error;
  return { ...user, key, factorId: enrolled.data.id, session: verified.data };
}

/** A response's JSON body. */
const body = async (res: Response) => (await res.json()) as Record<string, unknown>;
const codeOf = (error: unknown) => (error instanceof AuthApiError ? error.code : String(error));

describe(`MFA with WebAuthn factors (${databaseKind()})`, () => {
  it('enrolls, registers a credential at the first challenge and raises the session to aal2', async () => {
    const { supabase, email, userId } = await signedInUser(server, 'webauthn');
    const enrolled = await supabase.auth.mfa.enroll({
      factorType: 'webauthn',
      friendlyName: 'Security key',
    });
    expect(enrolled.error).toBeNull();
    expect(enrolled.data).toEqual({
      id: expect.any(String),
      type: 'webauthn',
      friendly_name: 'Security key',
    });
    const factorId = enrolled.data?.id ?? '';
    const c = await challenge(supabase, factorId);
    expect(c.type).toBe('create');
    const options = c.options as {
      rp: { id: string };
      user: { id: string; name: string };
      excludeCredentials: unknown[];
    };
    expect(options.rp.id).toBe(RP_ID);
    expect(Buffer.from(options.user.id, 'base64url').toString()).toBe(userId);
    expect(options.user.name).toBe(email);

    const key = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
    const verified = await supabase.auth.mfa.verify({
      factorId,
      challengeId: c.id,
      webauthn: {
        type: 'create',
        rpId: RP_ID,
        rpOrigins: [ORIGIN],
        credential_response: credential(key.create(c.options)),
      },
    } as never);
    expect(verified.error).toBeNull();
    const claims = claimsOf(verified.data?.access_token ?? '');
    expect(claims.aal).toBe('aal2');
    expect((claims.amr as { method: string }[]).map((a) => a.method)).toContain('mfa/webauthn');
    const factors = await supabase.auth.mfa.listFactors();
    expect(factors.data?.webauthn).toMatchObject([
      { id: factorId, status: 'verified', factor_type: 'webauthn' },
    ]);
    // The challenge was used up.
    const replay = await api(server, `/factors/${factorId}/verify`, {
      method: 'POST',
      token: verified.data?.access_token ?? '',
      json: { challenge_id: c.id, webauthn: { type: 'create', credential_response: {} } },
    });
    expect(replay.status).toBe(422);
    expect((await body(replay)).code).toBe('mfa_factor_not_found');
  });

  it('a later sign-in proves the key (request options list only the factor’s credential)', async () => {
    const { email, password, key, factorId } = await withWebAuthnFactor();
    const later = client(server);
    await later.auth.signInWithPassword({ email, password });
    const aal = await later.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal2' });
    const c = await challenge(later, factorId);
    expect(c.type).toBe('request');
    const options = c.options as { rpId: string; allowCredentials: { id: string }[] };
    expect(options.rpId).toBe(RP_ID);
    expect(options.allowCredentials.map((a) => a.id)).toEqual([key.credentialId]);
    const verified = await later.auth.mfa.verify({
      factorId,
      challengeId: c.id,
      webauthn: {
        type: 'request',
        rpId: RP_ID,
        rpOrigins: [ORIGIN],
        credential_response: credential(key.get(c.options)),
      },
    } as never);
    expect(verified.error).toBeNull();
    expect(claimsOf(verified.data?.access_token ?? '').aal).toBe('aal2');
  });

  it('refuses another origin, another RP id, a stale counter, a wrong ceremony type and another key', async () => {
    const { email, password, key, factorId } = await withWebAuthnFactor();
    // One real use, so the stored counter is above zero (a zero counter means "no counter").
    const before = client(server);
    await before.auth.signInWithPassword({ email, password });
    expect((await verify(before, factorId, key)).error).toBeNull();
    expect(key.counter).toBe(1);
    const later = client(server);
    await later.auth.signInWithPassword({ email, password });
    for (const tamper of [
      { origin: 'http://localhost:5173' },
      { rpId: 'localhost' },
      { counter: key.counter },
      { badSignature: true },
    ] satisfies Tamper[]) {
      const { error } = await verify(later, factorId, key, tamper);
      expect({ tamper, code: codeOf(error) }).toEqual({
        tamper,
        code: 'webauthn_verification_failed',
      });
      expect((error as AuthApiError).status).toBe(400);
    }
    const c = await challenge(later, factorId);
    const wrongType = await later.auth.mfa.verify({
      factorId,
      challengeId: c.id,
      webauthn: { type: 'create', credential_response: credential(key.get(c.options)) },
    } as never);
    expect(codeOf(wrongType.error)).toBe('webauthn_verification_failed');
    // Another key that answers anyway (a browser would not offer it).
    const other = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
    other.userHandle = key.userHandle;
    const c2 = await challenge(later, factorId);
    const foreign = await later.auth.mfa.verify({
      factorId,
      challengeId: c2.id,
      webauthn: {
        type: 'request',
        credential_response: credential(
          other.get({ ...(c2.options as object), allowCredentials: [] } as never),
        ),
      },
    } as never);
    expect(codeOf(foreign.error)).toBe('webauthn_verification_failed');
    // None of the refusals raised the session.
    expect((await later.auth.mfa.getAuthenticatorAssuranceLevel()).data?.currentLevel).toBe('aal1');
  });

  it('checks the verify body as GoTrue does', async () => {
    const { supabase } = await signedInUser(server, 'webauthn');
    const { data } = await supabase.auth.mfa.enroll({ factorType: 'webauthn' });
    const factorId = data?.id ?? '';
    const token = (await supabase.auth.getSession()).data.session?.access_token ?? '';
    const c = await challenge(supabase, factorId);
    const post = (json: unknown) =>
      api(server, `/factors/${factorId}/verify`, { method: 'POST', token, json });
    for (const [sent, message] of [
      [{ challenge_id: c.id }, 'WebAuthn config required'],
      [
        { challenge_id: c.id, webauthn: { type: 'sign' } },
        'WebAuthn type must be create or request',
      ],
      [{ challenge_id: c.id, webauthn: { type: 'create' } }, 'credential_response required'],
    ] as const) {
      const res = await post(sent);
      expect({ status: res.status, body: await body(res) }).toEqual({
        status: 400,
        body: { code: 'validation_failed', message },
      });
    }
    const malformed = await post({
      challenge_id: c.id,
      webauthn: { type: 'create', credential_response: { id: 'x' } },
    });
    expect(malformed.status).toBe(400);
    expect((await body(malformed)).code).toBe('webauthn_verification_failed');
  });
});

describe(`WebAuthn factors turned off (${databaseKind()})`, () => {
  let off: RunningServer;
  beforeAll(async () => {
    off = await startTestServer({ auth: { rateLimits: false } });
  });
  afterAll(() => off?.stop());

  it('refuses enrolment as hosted (opt-in)', async () => {
    const { supabase } = await signedInUser(off, 'webauthn');
    const { error } = await supabase.auth.mfa.enroll({ factorType: 'webauthn' });
    expect(codeOf(error)).toBe('mfa_webauthn_enroll_not_enabled');
    expect((error as AuthApiError).status).toBe(422);
  });
});
