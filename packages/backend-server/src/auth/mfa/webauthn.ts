/**
 * WebAuthn MFA factors: the challenge (creation options for an unverified factor, request
 * options for a verified one) and the check of the browser's answer. The credential lives on
 * the factor row (`web_authn_credential`, in the JSON shape GoTrue keeps there: base64 bytes).
 */
import type { Queryable } from '../../db/index';
import type { AuthContext } from '../context';
import { badRequest } from '../errors';
import type { UserRow } from '../users';
import {
  type CeremonyData,
  creationOptions,
  type NewCredential,
  relyingParty,
  requestOptions,
  type StoredCredential,
  verifyAssertion,
  verifyCreation,
} from '../webauthn';
import type { Factor } from './factors';

const b64 = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64');

/** A credential as stored on its factor. */
export function factorCredentialJson(c: NewCredential): Record<string, unknown> {
  return {
    id: b64(Buffer.from(c.id, 'base64url')),
    publicKey: b64(c.publicKey),
    attestationType: c.attestationType,
    transport: c.transports,
    flags: {
      userPresent: true,
      userVerified: c.userVerified,
      backupEligible: c.backupEligible,
      backupState: c.backedUp,
    },
    authenticator: {
      AAGUID: c.aaguid ? b64(Buffer.from(c.aaguid.replace(/-/g, ''), 'hex')) : null,
      signCount: c.counter,
      cloneWarning: false,
      attachment: c.attachment ?? '',
    },
  };
}

/** The stored credential of a verified factor, or null when it has none. */
export function factorCredential(json: unknown): StoredCredential | null {
  const c = json as {
    id?: string;
    publicKey?: string;
    transport?: string[];
    authenticator?: { signCount?: number };
  } | null;
  if (!c || typeof c.id !== 'string' || typeof c.publicKey !== 'string') return null;
  return {
    id: Buffer.from(c.id, 'base64').toString('base64url'),
    publicKey: new Uint8Array(Buffer.from(c.publicKey, 'base64')),
    counter: Number(c.authenticator?.signCount ?? 0),
    transports: Array.isArray(c.transport) ? c.transport : [],
  };
}

/** The credentials of a user's verified WebAuthn factors. */
async function verifiedCredentials(q: Queryable, userId: string): Promise<StoredCredential[]> {
  const { rows } = await q.query<{ credential: unknown }>(
    `select web_authn_credential as credential from auth.mfa_factors
     where user_id = $1 and factor_type = 'webauthn' and status = 'verified'`,
    [userId],
  );
  return rows.flatMap((r) => {
    const c = factorCredential(r.credential);
    return c ? [c] : [];
  });
}

/**
 * The options of a factor's challenge and the data to keep with it: an unverified factor
 * registers a credential (`create`), a verified one proves it holds it (`request`).
 */
export async function webauthnChallenge(
  ctx: AuthContext,
  user: UserRow,
  factor: Factor,
): Promise<{ data: CeremonyData; webauthn: Record<string, unknown> }> {
  const rp = relyingParty(ctx);
  const seconds = ctx.config.auth.mfa.challengeExpiry;
  if (!factor.verified) {
    const name = user.email || user.phone || '';
    const { options, data } = await creationOptions(
      rp,
      { id: user.id, name, displayName: name },
      {
        exclude: await verifiedCredentials(ctx.db, user.id),
        residentKey: 'preferred',
        seconds,
      },
    );
    return { data, webauthn: { type: 'create', credential_options: { publicKey: options } } };
  }
  const own = factorCredential(factor.webauthnCredential);
  const { options, data } = await requestOptions(rp, {
    allow: own ? [own] : [],
    seconds,
    userId: user.id,
  });
  return { data, webauthn: { type: 'request', credential_options: { publicKey: options } } };
}

/** `webauthn` of a verify request, checked as GoTrue checks it (before the challenge). */
export function webauthnParams(raw: unknown): { type: 'create' | 'request'; response: unknown } {
  if (raw === undefined || raw === null) {
    throw badRequest('validation_failed', 'WebAuthn config required');
  }
  const params = raw as { type?: unknown; credential_response?: unknown };
  if (params.type !== 'create' && params.type !== 'request') {
    throw badRequest('validation_failed', 'WebAuthn type must be create or request');
  }
  if (params.credential_response === undefined || params.credential_response === null) {
    throw badRequest('validation_failed', 'credential_response required');
  }
  return { type: params.type, response: params.credential_response };
}

const failed = () => badRequest('webauthn_verification_failed', 'Credential verification failed');

/**
 * Checks the browser's answer to a factor's challenge and records it on the factor: the new
 * credential (a registration) or the new counter (an assertion), and the last challenge data.
 */
export async function verifyWebAuthnFactor(
  tx: Queryable,
  ctx: AuthContext,
  factor: Factor,
  challenge: { id: string; data: CeremonyData | null },
  params: { type: 'create' | 'request'; response: unknown },
): Promise<void> {
  if (!challenge.data) throw failed();
  const rp = relyingParty(ctx);
  let credential: Record<string, unknown>;
  let aaguid: string | null = null;
  if (!factor.verified) {
    if (params.type !== 'create') throw failed();
    const created = await verifyCreation(rp, challenge.data, params.response);
    credential = factorCredentialJson(created);
    aaguid = created.aaguid;
  } else {
    const own = factorCredential(factor.webauthnCredential);
    if (params.type !== 'request' || !own) throw failed();
    const used = await verifyAssertion(rp, challenge.data, params.response, own);
    const stored = factor.webauthnCredential as Record<string, Record<string, unknown>>;
    credential = {
      ...stored,
      authenticator: { ...stored.authenticator, signCount: used.counter },
    };
    aaguid = null;
  }
  const last = {
    challenge: { id: challenge.id, factor_id: factor.id },
    type: params.type,
    credential_response: params.response,
  };
  await tx.query(
    `update auth.mfa_factors set web_authn_credential = $2::text::jsonb,
       web_authn_aaguid = coalesce($3::uuid, web_authn_aaguid),
       last_webauthn_challenge_data = $4::text::jsonb, updated_at = now()
     where id = $1`,
    [factor.id, JSON.stringify(credential), aaguid, JSON.stringify(last)],
  );
}
