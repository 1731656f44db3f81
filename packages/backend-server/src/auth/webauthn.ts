/**
 * WebAuthn ceremonies for passkeys and WebAuthn MFA factors, verified by
 * `@simplewebauthn/server`: the relying party from the config, creation and request options,
 * and the checks of a browser's answer (challenge, origin, RP id, signature, counter).
 * Failures become GoTrue's errors; nothing here touches the database.
 */
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { AuthContext } from './context';
import { badRequest } from './errors';

/** The relying party of every ceremony. */
export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
}

/** `auth.webauthn`, with the site URL (else the server URL) filling what is not set. */
export function relyingParty(ctx: AuthContext): RelyingParty {
  const { webauthn } = ctx.config.auth;
  const site = new URL(ctx.config.auth.siteUrl ?? ctx.config.url);
  const id = webauthn.rpId ?? site.hostname;
  return {
    id,
    name: webauthn.rpDisplayName ?? id,
    origins: webauthn.rpOrigins ?? [site.origin],
  };
}

/**
 * COSE algorithms offered for new credentials, most preferred first: GoTrue's list (ECDSA,
 * RSA PKCS#1 and PSS, EdDSA), all of which the verifier checks.
 */
const ALGORITHMS = [-7, -35, -36, -257, -258, -259, -37, -38, -39, -8];

/** A stored credential, as the verifier needs it. */
export interface StoredCredential {
  /** Credential id, base64url. */
  id: string;
  /** COSE public key. */
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
}

/** What a verified registration yields, to be stored. */
export interface NewCredential extends StoredCredential {
  aaguid: string | null;
  attestationType: string;
  backupEligible: boolean;
  backedUp: boolean;
  userVerified: boolean;
  attachment: string | null;
}

/** The challenge and settings kept between the two steps of a ceremony. */
export interface CeremonyData {
  challenge: string;
  rpId: string;
  /** The user handle (base64url), when the ceremony is bound to a user. */
  user_id?: string;
  userVerification: 'preferred' | 'required' | 'discouraged';
  expires: string;
  /** Credentials an assertion may use (base64url); empty for discoverable sign-in. */
  allowed_credentials?: string[];
}

/** The user handle of a user: the bytes of the UUID's text, as GoTrue sets it. */
export const userHandle = (userId: string) => new TextEncoder().encode(userId);

const failed = (message = 'Credential verification failed') =>
  badRequest('webauthn_verification_failed', message);

/** A user handle from an assertion (base64url) as a user id, or null when it is none. */
export function userIdFromHandle(handle: unknown): string | null {
  if (typeof handle !== 'string' || handle === '') return null;
  const text = Buffer.from(handle, 'base64url').toString('utf8');
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text)
    ? text.toLowerCase()
    : null;
}

function ceremony(
  rp: RelyingParty,
  challenge: string,
  seconds: number,
  extra: Partial<CeremonyData> = {},
): CeremonyData {
  return {
    challenge,
    rpId: rp.id,
    userVerification: 'preferred',
    expires: new Date(Date.now() + seconds * 1000).toISOString(),
    ...extra,
  };
}

/** Creation options for a new credential of a user, and what to keep until it is answered. */
export async function creationOptions(
  rp: RelyingParty,
  user: { id: string; name: string; displayName: string },
  params: { exclude: StoredCredential[]; residentKey: 'required' | 'preferred'; seconds: number },
): Promise<{ options: PublicKeyCredentialCreationOptionsJSON; data: CeremonyData }> {
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.name,
    userDisplayName: user.displayName,
    userID: userHandle(user.id),
    timeout: params.seconds * 1000,
    attestationType: 'none',
    excludeCredentials: params.exclude.map((c) => ({ id: c.id, transports: c.transports })),
    authenticatorSelection: {
      residentKey: params.residentKey,
      requireResidentKey: params.residentKey === 'required',
      userVerification: 'preferred',
    },
    supportedAlgorithmIDs: ALGORITHMS,
  });
  const data = ceremony(rp, options.challenge, params.seconds, {
    user_id: options.user.id,
  });
  return { options, data };
}

/** Request options; `allow` empty means any discoverable credential of the RP (passkeys). */
export async function requestOptions(
  rp: RelyingParty,
  params: { allow: StoredCredential[]; seconds: number; userId?: string },
): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; data: CeremonyData }> {
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials: params.allow.map((c) => ({ id: c.id, transports: c.transports })),
    userVerification: 'preferred',
    timeout: params.seconds * 1000,
  });
  const data = ceremony(rp, options.challenge, params.seconds, {
    ...(params.userId
      ? { user_id: Buffer.from(userHandle(params.userId)).toString('base64url') }
      : {}),
    allowed_credentials: params.allow.map((c) => c.id),
  });
  return { options, data };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JSON a browser's `PublicKeyCredential` serialises to, checked for its shape only. */
function credentialJson(raw: unknown, field: 'attestationObject' | 'signature') {
  if (
    !isObject(raw) ||
    typeof raw.id !== 'string' ||
    typeof raw.rawId !== 'string' ||
    raw.type !== 'public-key' ||
    !isObject(raw.response) ||
    typeof raw.response.clientDataJSON !== 'string' ||
    typeof raw.response[field] !== 'string'
  ) {
    throw failed('Invalid credential response');
  }
  return raw;
}

/** The credential id of an assertion (base64url), once its shape is right. */
export function assertionCredentialId(raw: unknown): string {
  return credentialJson(raw, 'signature').id as string;
}

/**
 * Verifies a browser's answer to creation options: challenge, origin, RP id, user presence,
 * attestation. Returns the new credential, or throws 400 `webauthn_verification_failed`.
 */
export async function verifyCreation(
  rp: RelyingParty,
  data: CeremonyData,
  raw: unknown,
): Promise<NewCredential> {
  const response = credentialJson(raw, 'attestationObject') as unknown as RegistrationResponseJSON;
  let result: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    result = await verifyRegistrationResponse({
      response,
      expectedChallenge: data.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: data.rpId,
      requireUserVerification: data.userVerification === 'required',
      supportedAlgorithmIDs: ALGORITHMS,
    });
  } catch {
    throw failed();
  }
  if (!result.verified) throw failed();
  const info = result.registrationInfo;
  const aaguid = info.aaguid === '00000000-0000-0000-0000-000000000000' ? null : info.aaguid;
  return {
    id: info.credential.id,
    publicKey: info.credential.publicKey,
    counter: info.credential.counter,
    transports: (response.response.transports ?? []).filter((t) => typeof t === 'string'),
    aaguid,
    attestationType: info.fmt,
    backupEligible: info.credentialDeviceType === 'multiDevice',
    backedUp: info.credentialBackedUp,
    userVerified: info.userVerified,
    attachment:
      typeof response.authenticatorAttachment === 'string'
        ? response.authenticatorAttachment
        : null,
  };
}

/**
 * Verifies an assertion against a stored credential: challenge, origin, RP id, signature, and
 * a counter that went up (a counter that did not is a cloned authenticator or a replay).
 * Returns the new counter and backup state, or throws 400 `webauthn_verification_failed`.
 */
export async function verifyAssertion(
  rp: RelyingParty,
  data: CeremonyData,
  raw: unknown,
  credential: StoredCredential,
): Promise<{ counter: number; backedUp: boolean; userVerified: boolean }> {
  const response = credentialJson(raw, 'signature') as unknown as AuthenticationResponseJSON;
  if (response.id !== credential.id || response.rawId !== credential.id) throw failed();
  if (data.allowed_credentials?.length && !data.allowed_credentials.includes(credential.id)) {
    throw failed();
  }
  try {
    const result = await verifyAuthenticationResponse({
      response,
      expectedChallenge: data.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: data.rpId,
      credential: {
        id: credential.id,
        publicKey: new Uint8Array(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports as never,
      },
      requireUserVerification: data.userVerification === 'required',
    });
    if (!result.verified) throw failed();
    return {
      counter: result.authenticationInfo.newCounter,
      backedUp: result.authenticationInfo.credentialBackedUp,
      userVerified: result.authenticationInfo.userVerified,
    };
  } catch {
    throw failed();
  }
}
