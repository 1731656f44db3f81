/**
 * The browser's side of WebAuthn ceremonies: the default driver (the browser's own WebAuthn
 * Level 3 JSON methods: `PublicKeyCredential.parseCreationOptionsFromJSON`,
 * `credential.toJSON()`), and the error shapes of a refused prompt.
 */
import type { CredentialJson, WebAuthnDriver } from '../auth/webauthn';
import { AuthError } from '../errors';

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
