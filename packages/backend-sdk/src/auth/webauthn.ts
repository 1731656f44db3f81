/**
 * The browser's passkey prompt as the auth client uses it: a {@link WebAuthnDriver} takes the
 * server's JSON options and resolves the credential as the JSON the server reads. The default
 * driver uses the browser's own JSON methods (WebAuthn Level 3:
 * `PublicKeyCredential.parseCreationOptionsFromJSON`, `credential.toJSON()`); for browsers
 * without them, `compatWebAuthn` of `@app/backend-sdk/webauthn` converts by hand. Tests inject
 * a driver backed by a software authenticator.
 */
import { AuthError } from '../errors';

type Json = Record<string, unknown>;

/** A credential descriptor as the server sends it (id in base64url). */
export interface DescriptorJson {
  id: string;
  type?: 'public-key';
  transports?: string[];
}

/** Options of `navigator.credentials.create()` as the server sends them (base64url strings). */
export interface CreationOptionsJson extends Json {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
  pubKeyCredParams: { type: 'public-key'; alg: number }[];
  excludeCredentials?: DescriptorJson[];
}

/** Options of `navigator.credentials.get()` as the server sends them (base64url strings). */
export interface RequestOptionsJson extends Json {
  challenge: string;
  rpId?: string;
  allowCredentials?: DescriptorJson[];
}

/** A credential as the server reads it (`PublicKeyCredential.toJSON()`). */
export interface CredentialJson extends Json {
  id: string;
  rawId: string;
  type: 'public-key' | (string & {});
  response: Json;
}

/**
 * Runs WebAuthn ceremonies: JSON options in, JSON credential out. A refusal or cancel rejects
 * (see {@link ceremonyError}).
 *
 * @example
 * const key = new SoftwareAuthenticator({ rpId: 'localhost', origin: 'http://localhost:5173' });
 * createClient(url, anonKey, {
 *   auth: { webauthn: { create: async (o) => key.create(o), get: async (o) => key.get(o) } },
 * });
 */
export interface WebAuthnDriver {
  create(options: CreationOptionsJson, signal?: AbortSignal): Promise<CredentialJson>;
  get(options: RequestOptionsJson, signal?: AbortSignal): Promise<CredentialJson>;
}

/** A browser's ceremony failure as an `AuthError` whose `code` is the DOM error's name. */
export const ceremonyError = (e: unknown): AuthError =>
  e instanceof AuthError
    ? e
    : new AuthError((e as Error)?.message || 'WebAuthn ceremony failed', {
        code: (e as Error)?.name || 'webauthn_failed',
        cause: e,
      });

type Pkc = {
  parseCreationOptionsFromJSON?: (o: unknown) => PublicKeyCredentialCreationOptions;
  parseRequestOptionsFromJSON?: (o: unknown) => PublicKeyCredentialRequestOptions;
};

/**
 * Whether this browser can run passkey ceremonies (with `compat`: also without the Level 3
 * JSON methods, through `compatWebAuthn`).
 *
 * @example
 * if (browserSupportsWebAuthn()) showPasskeyButton();
 */
export function browserSupportsWebAuthn(compat = false): boolean {
  const pkc = globalThis.PublicKeyCredential as unknown as Pkc | undefined;
  return (
    typeof navigator !== 'undefined' &&
    typeof navigator.credentials?.create === 'function' &&
    !!pkc &&
    (compat || typeof pkc.parseCreationOptionsFromJSON === 'function')
  );
}

/**
 * Calls `navigator.credentials[kind]` with parsed options; the credential back as JSON. The
 * browser's errors pass through (the callers turn them into {@link ceremonyError}s).
 */
export async function browserCeremony(
  kind: 'create' | 'get',
  publicKey: PublicKeyCredentialCreationOptions | PublicKeyCredentialRequestOptions,
  signal: AbortSignal | undefined,
  toJson: (credential: PublicKeyCredential) => CredentialJson,
): Promise<CredentialJson> {
  const credential = await navigator.credentials[kind]({ publicKey, signal } as never);
  if (!credential) throw ceremonyError(null);
  return toJson(credential as PublicKeyCredential);
}

/** The default driver: the browser's own JSON parsing and `toJSON()` (WebAuthn Level 3). */
export const nativeWebAuthn: WebAuthnDriver = {
  create: (options, signal) => native('create', options, signal),
  get: (options, signal) => native('get', options, signal),
};

async function native(kind: 'create' | 'get', options: unknown, signal?: AbortSignal) {
  if (!browserSupportsWebAuthn()) throw unsupported();
  const pkc = globalThis.PublicKeyCredential as unknown as Required<Pkc>;
  const publicKey =
    kind === 'create'
      ? pkc.parseCreationOptionsFromJSON(options)
      : pkc.parseRequestOptionsFromJSON(options);
  return browserCeremony(kind, publicKey, signal, (c) => c.toJSON() as unknown as CredentialJson);
}

/** The error of a browser without WebAuthn. */
export const unsupported = () =>
  new AuthError('Browser does not support WebAuthn', { code: 'webauthn_unsupported' });
