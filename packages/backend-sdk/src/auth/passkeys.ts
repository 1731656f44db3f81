/**
 * Passkeys (`/auth/v1/passkeys`): the two steps of registration and of sign-in, and the
 * signed-in user's passkeys; the admin list and delete. Names and shapes are the official
 * client's (`auth.passkey.*`, `auth.admin.passkey.*`). Kept out of the main bundle:
 * `withPasskeys(client)` of `@app/backend-sdk/webauthn` puts them on a client.
 */
import type { Http } from '../http/index';
import { authFetch } from './api';
import { type MfaResult, run } from './mfa';
import type { Session, User } from './types';
import type { CreationOptionsJson, CredentialJson, RequestOptionsJson } from './webauthn';

/** Options of a ceremony: answer them before `expires_at` (Unix seconds). */
export interface PasskeyOptions<T> {
  challenge_id: string;
  options: T;
  expires_at: number;
}

/** A passkey of a user. */
export interface Passkey {
  id: string;
  friendly_name?: string;
  created_at: string;
  last_used_at?: string;
}

/** What the passkey API needs from the auth client it belongs to (an `AuthClient` has it). */
export interface PasskeyHost {
  http: Http;
  /** The signed-in session, or a thrown `session_missing` error. */
  requireSession(): Promise<Session>;
  /** Saves a sign-in response (SIGNED_IN) and returns `{ user, session }`. */
  signedIn(body: unknown): Promise<{ user: User | null; session: Session | null }>;
}

const passkeyPath = (id: string) => `/passkeys/${encodeURIComponent(id)}`;

/** `auth.passkey`: passkey ceremonies step by step, and the user's passkeys. */
export class PasskeyApi {
  private readonly host: PasskeyHost;

  constructor(host: PasskeyHost) {
    this.host = host;
  }

  private async call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) {
    const { access_token } = await this.host.requireSession();
    return authFetch(this.host.http, { method, path, body, token: access_token });
  }

  /**
   * Creation options for a new passkey of the signed-in user (step 1 of registration); pass
   * `options` to `navigator.credentials.create()` (see `toCreationOptions`).
   *
   * @example
   * const { data } = await auth.passkey.startRegistration();
   */
  startRegistration(): Promise<MfaResult<PasskeyOptions<CreationOptionsJson>>> {
    return run(
      async () =>
        (await this.call(
          'POST',
          '/passkeys/registration/options',
          {},
        )) as PasskeyOptions<CreationOptionsJson>,
    );
  }

  /**
   * Sends the created credential (step 2); answers the new passkey.
   *
   * @example
   * await auth.passkey.verifyRegistration({ challengeId: data.challenge_id, credential });
   */
  verifyRegistration(params: {
    challengeId: string;
    credential: CredentialJson;
  }): Promise<MfaResult<Passkey>> {
    return run(
      async () =>
        (await this.call('POST', '/passkeys/registration/verify', {
          challenge_id: params.challengeId,
          credential: params.credential,
        })) as Passkey,
    );
  }

  /**
   * Request options for a passkey sign-in (step 1; no session needed); pass `options` to
   * `navigator.credentials.get()` (see `toRequestOptions`).
   *
   * @example
   * const { data } = await auth.passkey.startAuthentication();
   */
  startAuthentication(params?: {
    options?: { captchaToken?: string };
  }): Promise<MfaResult<PasskeyOptions<RequestOptionsJson>>> {
    return run(
      async () =>
        (await authFetch(this.host.http, {
          method: 'POST',
          path: '/passkeys/authentication/options',
          body: { gotrue_meta_security: { captcha_token: params?.options?.captchaToken } },
        })) as PasskeyOptions<RequestOptionsJson>,
    );
  }

  /**
   * Sends the assertion (step 2): signs in and saves the session (SIGNED_IN).
   *
   * @example
   * const { data: { session } } = await auth.passkey.verifyAuthentication({ challengeId, credential });
   */
  verifyAuthentication(params: {
    challengeId: string;
    credential: CredentialJson;
  }): Promise<MfaResult<{ user: User | null; session: Session | null }>> {
    return run(async () =>
      this.host.signedIn(
        await authFetch(this.host.http, {
          method: 'POST',
          path: '/passkeys/authentication/verify',
          body: { challenge_id: params.challengeId, credential: params.credential },
        }),
      ),
    );
  }

  /**
   * The signed-in user's passkeys, oldest first.
   *
   * @example
   * const { data: passkeys } = await auth.passkey.list();
   */
  list(): Promise<MfaResult<Passkey[]>> {
    return run(async () => (await this.call('GET', '/passkeys')) as Passkey[]);
  }

  /**
   * Renames a passkey (at most 120 bytes).
   *
   * @example
   * await auth.passkey.update({ passkeyId, friendlyName: 'Work laptop' });
   */
  update(params: { passkeyId: string; friendlyName: string }): Promise<MfaResult<Passkey>> {
    return run(
      async () =>
        (await this.call('PATCH', passkeyPath(params.passkeyId), {
          friendly_name: params.friendlyName,
        })) as Passkey,
    );
  }

  /**
   * Deletes a passkey (with a verified MFA factor, from an aal2 session).
   *
   * @example
   * await auth.passkey.delete({ passkeyId });
   */
  delete(params: { passkeyId: string }): Promise<MfaResult<null>> {
    return run(async () => {
      await this.call('DELETE', passkeyPath(params.passkeyId));
      return null;
    });
  }
}

/** `auth.admin.passkey`: a user's passkeys, for admins (service role key). */
export class AdminPasskeyApi {
  private readonly http: Http;

  constructor(http: Http) {
    this.http = http;
  }

  /**
   * The passkeys of a user.
   *
   * @example
   * const { data } = await auth.admin.passkey.listPasskeys({ userId });
   */
  listPasskeys(params: { userId: string }): Promise<MfaResult<Passkey[]>> {
    return run(
      async () =>
        (await authFetch(this.http, {
          path: `/admin/users/${encodeURIComponent(params.userId)}/passkeys`,
        })) as Passkey[],
    );
  }

  /**
   * Deletes a passkey of a user.
   *
   * @example
   * await auth.admin.passkey.deletePasskey({ userId, passkeyId });
   */
  deletePasskey(params: { userId: string; passkeyId: string }): Promise<MfaResult<null>> {
    return run(async () => {
      await authFetch(this.http, {
        method: 'DELETE',
        path: `/admin/users/${encodeURIComponent(params.userId)}${passkeyPath(params.passkeyId)}`,
      });
      return null;
    });
  }
}
