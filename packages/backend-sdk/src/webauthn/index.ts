/**
 * `@app/backend-sdk/webauthn` — passkeys: `withPasskeys(client)` (the official client's
 * `auth.passkey`, `auth.admin.passkey`, `auth.signInWithPasskey`, `auth.registerPasskey`,
 * `auth.mfa.webauthn`), the drivers that run the prompt (`nativeWebAuthn`,
 * {@link compatWebAuthn} for browsers without the WebAuthn Level 3 JSON methods), base64url,
 * and the server's JSON options as `navigator.credentials` takes them.
 */
import type {
  CreationOptionsJson,
  CredentialJson,
  DescriptorJson,
  RequestOptionsJson,
  WebAuthnDriver,
} from '../auth/webauthn';
import { browserCeremony, unsupported } from './driver';

export {
  AdminPasskeyApi,
  type Passkey,
  PasskeyApi,
  type PasskeyHost,
  type PasskeyOptions,
} from '../auth/passkeys';
export type {
  CreationOptionsJson,
  CredentialJson,
  DescriptorJson,
  RequestOptionsJson,
  WebAuthnDriver,
} from '../auth/webauthn';
export { browserSupportsWebAuthn, ceremonyError, nativeWebAuthn } from './driver';
export {
  type PasskeyCeremonies,
  type PasskeyCeremonyOptions,
  registerPasskey,
  signInWithPasskey,
  withPasskeys,
} from './passkeys';

/**
 * Bytes from base64url (padding optional).
 *
 * @example
 * base64UrlToBytes('AQID'); // Uint8Array [1, 2, 3]
 */
export function base64UrlToBytes(text: string): Uint8Array<ArrayBuffer> {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  return Uint8Array.from(atob(b64 + '='.repeat(-b64.length & 3)), (c) => c.charCodeAt(0));
}

/**
 * base64url (no padding) of bytes.
 *
 * @example
 * bytesToBase64Url(new Uint8Array([1, 2, 3])); // 'AQID'
 */
export function bytesToBase64Url(bytes: ArrayBuffer | ArrayBufferView): string {
  const view =
    bytes instanceof ArrayBuffer
      ? new Uint8Array(bytes)
      : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let binary = '';
  for (const b of view) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const descriptors = (list?: DescriptorJson[]) =>
  list?.map((d) => ({ ...d, type: 'public-key', id: base64UrlToBytes(d.id) })) as
    | PublicKeyCredentialDescriptor[]
    | undefined;

/**
 * The server's creation options as `navigator.credentials.create({ publicKey })` takes them.
 *
 * @example
 * const credential = await navigator.credentials.create({ publicKey: toCreationOptions(data.options) });
 */
export function toCreationOptions(json: CreationOptionsJson): PublicKeyCredentialCreationOptions {
  return {
    ...(json as unknown as PublicKeyCredentialCreationOptions),
    challenge: base64UrlToBytes(json.challenge),
    user: { ...json.user, id: base64UrlToBytes(json.user.id) },
    excludeCredentials: descriptors(json.excludeCredentials),
  };
}

/**
 * The server's request options as `navigator.credentials.get({ publicKey })` takes them.
 *
 * @example
 * const credential = await navigator.credentials.get({ publicKey: toRequestOptions(data.options) });
 */
export function toRequestOptions(json: RequestOptionsJson): PublicKeyCredentialRequestOptions {
  return {
    ...(json as unknown as PublicKeyCredentialRequestOptions),
    challenge: base64UrlToBytes(json.challenge),
    allowCredentials: descriptors(json.allowCredentials),
  };
}

const BINARY = [
  'clientDataJSON',
  'attestationObject',
  'authenticatorData',
  'signature',
  'userHandle',
];

/**
 * A `PublicKeyCredential` as the JSON the server reads (its own `toJSON()` where the browser
 * has one).
 *
 * @example
 * const json = credentialToJson(await navigator.credentials.get({ publicKey }));
 */
export function credentialToJson(credential: PublicKeyCredential): CredentialJson {
  if (typeof credential.toJSON === 'function') {
    return credential.toJSON() as unknown as CredentialJson;
  }
  const raw = credential.response as unknown as Record<string, ArrayBuffer | null>;
  const response: Record<string, unknown> = {};
  for (const key of BINARY) {
    const value = raw[key];
    if (value) response[key] = bytesToBase64Url(value);
  }
  const attestation = credential.response as AuthenticatorAttestationResponse;
  if (typeof attestation.getTransports === 'function') {
    response.transports = attestation.getTransports();
  }
  return {
    id: credential.id,
    rawId: bytesToBase64Url(credential.rawId),
    type: 'public-key',
    response,
    clientExtensionResults: credential.getClientExtensionResults(),
    ...(credential.authenticatorAttachment
      ? { authenticatorAttachment: credential.authenticatorAttachment }
      : {}),
  };
}

/**
 * A passkey driver that converts options and credentials itself, for browsers without the
 * WebAuthn Level 3 JSON methods (Safari before 18.4, older Chrome and Firefox).
 *
 * @example
 * import { compatWebAuthn } from '@app/backend-sdk/webauthn';
 * const client = createClient(url, anonKey, { auth: { webauthn: compatWebAuthn } });
 */
export const compatWebAuthn: WebAuthnDriver = {
  create(options, signal) {
    if (typeof navigator === 'undefined' || !navigator.credentials) return noWebAuthn();
    return browserCeremony('create', toCreationOptions(options), signal, credentialToJson);
  },
  get(options, signal) {
    if (typeof navigator === 'undefined' || !navigator.credentials) return noWebAuthn();
    return browserCeremony('get', toRequestOptions(options), signal, credentialToJson);
  },
};

const noWebAuthn = () => Promise.reject(unsupported());

export { type WebAuthnChallengeAnswer, WebAuthnMfa } from './mfa';
