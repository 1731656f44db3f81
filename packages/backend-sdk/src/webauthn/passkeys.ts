/**
 * Whole passkey ceremonies with the browser's prompt (the official client's
 * `auth.signInWithPasskey` / `auth.registerPasskey` / `auth.mfa.webauthn`), over the
 * `auth.passkey` steps. Kept out of the main bundle: {@link withPasskeys} puts them all on a
 * client, with `auth.passkey` and `auth.admin.passkey`.
 */
import type { MfaResult } from '../auth/mfa';
import { AdminPasskeyApi, type Passkey, PasskeyApi, type PasskeyHost } from '../auth/passkeys';
import type { Session, User } from '../auth/types';
import type { CreationOptionsJson, RequestOptionsJson, WebAuthnDriver } from '../auth/webauthn';
import { browserSupportsWebAuthn, ceremonyError, nativeWebAuthn, unsupported } from './driver';
import { WebAuthnMfa } from './mfa';

/** Options of `signInWithPasskey` / `registerPasskey`. */
export interface PasskeyCeremonyOptions {
  options?: {
    /** Captcha token (sign-in only). */
    captchaToken?: string;
    /** Aborts the browser's prompt. */
    signal?: AbortSignal;
  };
}

type SignedIn = { user: User | null; session: Session | null };

/**
 * A whole ceremony: options from the server, the driver's prompt, the answer to the server.
 * With the default driver, refused before any request when the browser cannot run it.
 */
async function ceremony<T>(
  api: PasskeyApi,
  kind: 'create' | 'get',
  params: PasskeyCeremonyOptions = {},
  driver: WebAuthnDriver = nativeWebAuthn,
): Promise<MfaResult<T>> {
  const o = params.options;
  if (driver === nativeWebAuthn && !browserSupportsWebAuthn()) {
    return { data: null, error: unsupported() };
  }
  const start =
    kind === 'create'
      ? await api.startRegistration()
      : await api.startAuthentication({ options: { captchaToken: o?.captchaToken } });
  if (start.error) return start;
  let credential: Awaited<ReturnType<WebAuthnDriver['get']>>;
  try {
    credential =
      kind === 'create'
        ? await driver.create(start.data.options as CreationOptionsJson, o?.signal)
        : await driver.get(start.data.options as RequestOptionsJson, o?.signal);
  } catch (e) {
    return { data: null, error: ceremonyError(e) };
  }
  const answer = { challengeId: start.data.challenge_id, credential };
  return (
    kind === 'create' ? api.verifyRegistration(answer) : api.verifyAuthentication(answer)
  ) as Promise<MfaResult<T>>;
}

/** An auth client (`client.auth`), with or without {@link withPasskeys}. */
type PasskeyAuth = PasskeyHost & { passkey?: PasskeyApi };
const apiOf = (auth: PasskeyAuth) => auth.passkey ?? new PasskeyApi(auth);

/**
 * Signs in with a passkey: the server's challenge, the browser's passkey prompt, then the
 * session (SIGNED_IN). No email needed: the passkey names its user.
 *
 * @example
 * const { data, error } = await signInWithPasskey(client.auth);
 */
export function signInWithPasskey(
  auth: PasskeyAuth,
  params?: PasskeyCeremonyOptions,
  driver?: WebAuthnDriver,
): Promise<MfaResult<SignedIn>> {
  return ceremony(apiOf(auth), 'get', params, driver);
}

/**
 * Adds a passkey to the signed-in user's account (the browser's prompt to create one);
 * answers the new passkey.
 *
 * @example
 * const { data: passkey, error } = await registerPasskey(client.auth);
 */
export function registerPasskey(
  auth: PasskeyAuth,
  params?: PasskeyCeremonyOptions,
  driver?: WebAuthnDriver,
): Promise<MfaResult<Passkey>> {
  return ceremony(apiOf(auth), 'create', params, driver);
}

/** What {@link withPasskeys} adds to a client's `auth`. */
export interface PasskeyCeremonies {
  signInWithPasskey(params?: PasskeyCeremonyOptions): Promise<MfaResult<SignedIn>>;
  registerPasskey(params?: PasskeyCeremonyOptions): Promise<MfaResult<Passkey>>;
  /** Sign-in and registration step by step, and the signed-in user's passkeys. */
  passkey: PasskeyApi;
  /** A user's passkeys, for admins (service role key). */
  admin: { passkey: AdminPasskeyApi };
  mfa: { webauthn: WebAuthnMfa };
}

type AuthOf = PasskeyHost & {
  admin: object;
  mfa: ConstructorParameters<typeof WebAuthnMfa>[0]['mfa'];
};

/**
 * Gives a client the official client's passkey calls: `auth.signInWithPasskey()`,
 * `auth.registerPasskey()`, `auth.passkey` (the steps, list, update, delete),
 * `auth.admin.passkey` and `auth.mfa.webauthn` (enroll, challenge, verify, authenticate,
 * register), running the prompt through `driver` (default: the browser's). Returns the same
 * client, typed with them.
 *
 * @example
 * import { withPasskeys } from '@app/backend-sdk/webauthn';
 * const client = withPasskeys(createClient(url, anonKey));
 * await client.auth.signInWithPasskey();
 */
export function withPasskeys<C extends { auth: AuthOf }>(
  client: C,
  options: { driver?: WebAuthnDriver } = {},
): C & { auth: C['auth'] & PasskeyCeremonies } {
  const auth = client.auth as C['auth'] & PasskeyCeremonies;
  const { driver } = options;
  auth.passkey = new PasskeyApi(auth);
  (auth.admin as { passkey?: AdminPasskeyApi }).passkey = new AdminPasskeyApi(auth.http);
  auth.signInWithPasskey = (params) => signInWithPasskey(auth, params, driver);
  auth.registerPasskey = (params) => registerPasskey(auth, params, driver);
  (auth.mfa as { webauthn?: WebAuthnMfa }).webauthn = new WebAuthnMfa(auth, driver);
  return client as C & { auth: C['auth'] & PasskeyCeremonies };
}
