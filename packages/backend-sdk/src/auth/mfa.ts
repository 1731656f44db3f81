/**
 * Multi-factor authentication (`/auth/v1/factors`): TOTP and phone factors, challenges,
 * verification to aal2, and the assurance level of a session; plus the admin factor API.
 * Method names and result shapes are the official client's (`auth.mfa.*`).
 */
import type { AuthError } from '../errors';
import type { Http } from '../http/index';
import { asSession, attempt, authFetch, jwtPayload } from './api';
import type { AuthResult, Session, User } from './types';
import type { CreationOptionsJson, CredentialJson, RequestOptionsJson } from './webauthn';

/** `{ data, error }` with `data: null` on error (the official client's MFA results). */
export type MfaResult<T> = { data: T; error: null } | { data: null; error: AuthError };

/** A factor of a user. */
export interface Factor {
  id: string;
  friendly_name?: string;
  factor_type: 'totp' | 'phone' | 'webauthn';
  status: 'verified' | 'unverified';
  phone?: string;
  created_at: string;
  updated_at: string;
  last_challenged_at?: string | null;
}

/** Assurance levels: `aal1` (one factor), `aal2` (two). */
export type AuthenticatorAssuranceLevel = 'aal1' | 'aal2';

/** One entry of a session's `amr` claim: how and when it authenticated. */
export interface AmrEntry {
  method: string;
  timestamp: number;
}

/** A new TOTP factor: scan `totp.qr_code` (an SVG data URI) or type `totp.secret` into an app. */
export interface TotpEnrollment {
  id: string;
  type: 'totp';
  friendly_name: string;
  totp: { qr_code: string; secret: string; uri: string };
}

/** A new phone factor. */
export interface PhoneEnrollment {
  id: string;
  type: 'phone';
  friendly_name: string;
  phone: string;
}

/** Parameters of `enroll`. */
export type EnrollParams =
  | { factorType: 'totp'; friendlyName?: string; issuer?: string }
  | { factorType: 'phone'; phone: string; friendlyName?: string }
  | { factorType: 'webauthn'; friendlyName?: string };

/** A new WebAuthn factor: its first challenge registers the security key or passkey. */
export interface WebAuthnEnrollment {
  id: string;
  type: 'webauthn';
  friendly_name: string;
}

/**
 * A challenge to verify before `expires_at` (Unix seconds). A WebAuthn factor's carries the
 * options of the browser's prompt (JSON, base64url binary): `create` registers the key of a
 * new factor, `request` asks a verified factor's key to sign.
 */
export interface Challenge {
  id: string;
  type: 'totp' | 'phone' | 'webauthn';
  expires_at: number;
  webauthn?:
    | { type: 'create'; credential_options: { publicKey: CreationOptionsJson } }
    | { type: 'request'; credential_options: { publicKey: RequestOptionsJson } };
}

/** The answer to a WebAuthn factor's challenge: the credential (JSON or `PublicKeyCredential`). */
export interface WebAuthnAnswer {
  type: 'create' | 'request';
  credential_response: CredentialJson | PublicKeyCredential;
}

/** Lists of factors: all, and the verified ones by type. */
export interface FactorLists {
  all: Factor[];
  totp: Factor[];
  phone: Factor[];
  webauthn: Factor[];
}

/** The session's level now, the level it can reach, and how it authenticated. */
export interface AssuranceLevel {
  currentLevel: AuthenticatorAssuranceLevel | null;
  nextLevel: AuthenticatorAssuranceLevel | null;
  currentAuthenticationMethods: AmrEntry[];
}

/** What the MFA API needs from the auth client it belongs to. */
export interface MfaHost {
  http: Http;
  now(): number;
  /** The signed-in session, or a thrown `session_missing` error. */
  requireSession(): Promise<Session>;
  getSession(): Promise<AuthResult<{ session: Session | null }>>;
  getUser(jwt?: string): Promise<AuthResult<{ user: User }>>;
  /** Saves the verified session and emits MFA_CHALLENGE_VERIFIED. */
  verified(session: Session): Promise<void>;
}

/** Runs `fn` as an MFA call: `{ data, error }`, never a rejection. */
export async function run<T>(fn: () => Promise<T>): Promise<MfaResult<T>> {
  const r = await attempt({ value: null }, async () => ({ value: await fn() }));
  return r.error ? { data: null, error: r.error } : { data: r.data.value, error: null };
}

const factorPath = (id: string, rest = '') => `/factors/${encodeURIComponent(id)}${rest}`;

/** `auth.mfa`: enrol, challenge, verify and remove factors of the signed-in user. */
export class MfaApi {
  private readonly host: MfaHost;

  constructor(host: MfaHost) {
    this.host = host;
  }

  private async call(method: 'POST' | 'DELETE', path: string, body?: unknown) {
    const { access_token } = await this.host.requireSession();
    return authFetch(this.host.http, { method, path, body, token: access_token });
  }

  /**
   * Starts enrolling a factor (unverified until a first successful `verify`). TOTP answers
   * with a QR code (`data:image/svg+xml;utf-8,…`, usable as an `<img src>`), the secret and
   * the `otpauth://` URI.
   *
   * @example
   * const { data, error } = await auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone' });
   * if (data) img.src = data.totp.qr_code;
   */
  enroll(params: {
    factorType: 'totp';
    friendlyName?: string;
    issuer?: string;
  }): Promise<MfaResult<TotpEnrollment>>;
  enroll(params: {
    factorType: 'phone';
    phone: string;
    friendlyName?: string;
  }): Promise<MfaResult<PhoneEnrollment>>;
  enroll(params: {
    factorType: 'webauthn';
    friendlyName?: string;
  }): Promise<MfaResult<WebAuthnEnrollment>>;
  enroll(
    params: EnrollParams,
  ): Promise<MfaResult<TotpEnrollment | PhoneEnrollment | WebAuthnEnrollment>>;
  enroll(
    params: EnrollParams,
  ): Promise<MfaResult<TotpEnrollment | PhoneEnrollment | WebAuthnEnrollment>> {
    return run(async () => {
      const body = (await this.call('POST', '/factors', {
        friendly_name: params.friendlyName,
        factor_type: params.factorType,
        ...(params.factorType === 'phone'
          ? { phone: params.phone }
          : { issuer: (params as { issuer?: string }).issuer }),
      })) as TotpEnrollment | PhoneEnrollment | WebAuthnEnrollment;
      if (body.type === 'totp' && body.totp?.qr_code) {
        body.totp.qr_code = `data:image/svg+xml;utf-8,${body.totp.qr_code}`;
      }
      return body;
    });
  }

  /**
   * Creates a challenge for a factor (a phone factor gets its code by SMS now).
   *
   * @example
   * const { data } = await auth.mfa.challenge({ factorId });
   */
  challenge(params: {
    factorId: string;
    channel?: 'sms' | 'whatsapp';
  }): Promise<MfaResult<Challenge>> {
    return run(
      async () =>
        (await this.call('POST', factorPath(params.factorId, '/challenge'), params)) as Challenge,
    );
  }

  /**
   * Verifies a challenge with the code (a WebAuthn factor: with the browser's credential);
   * on success the session becomes aal2 and is saved (MFA_CHALLENGE_VERIFIED). A first
   * verification also verifies the factor.
   *
   * @example
   * const { error } = await auth.mfa.verify({ factorId, challengeId, code: '123456' });
   * await auth.mfa.verify({ factorId, challengeId, webauthn: { type: 'request', credential_response } });
   */
  verify(
    params: { factorId: string; challengeId: string } & (
      | { code: string }
      | { webauthn: WebAuthnAnswer }
    ),
  ): Promise<MfaResult<Session>> {
    const { factorId, challengeId, ...answer } = params;
    return run(async () => {
      // `code`, or `webauthn` (a `PublicKeyCredential` goes out through its own `toJSON()`).
      const body = await this.call('POST', factorPath(factorId, '/verify'), {
        challenge_id: challengeId,
        ...answer,
      });
      const session = asSession(body, this.host.now());
      if (!session) throw new TypeError('The server answered without a session');
      await this.host.verified(session);
      return session;
    });
  }

  /**
   * `challenge` then `verify` in one call.
   *
   * @example
   * await auth.mfa.challengeAndVerify({ factorId, code });
   */
  async challengeAndVerify(params: {
    factorId: string;
    code: string;
  }): Promise<MfaResult<Session>> {
    const challenge = await this.challenge({ factorId: params.factorId });
    if (challenge.error) return challenge;
    return this.verify({ ...params, challengeId: challenge.data.id });
  }

  /**
   * Removes a factor (a verified one needs an aal2 session).
   *
   * @example
   * await auth.mfa.unenroll({ factorId });
   */
  unenroll(params: { factorId: string }): Promise<MfaResult<{ id: string }>> {
    return run(
      async () => (await this.call('DELETE', factorPath(params.factorId))) as { id: string },
    );
  }

  /**
   * The user's factors (from the server): all of them, and the verified ones by type.
   *
   * @example
   * const { data } = await auth.mfa.listFactors();
   * const needsCode = (data?.totp.length ?? 0) > 0;
   */
  async listFactors(): Promise<MfaResult<FactorLists>> {
    const { data, error } = await this.host.getUser();
    if (error) return { data: null, error };
    const lists: FactorLists = { all: [], totp: [], phone: [], webauthn: [] };
    for (const factor of (data.user.factors as Factor[] | undefined) ?? []) {
      lists.all.push(factor);
      if (factor.status === 'verified') lists[factor.factor_type]?.push(factor);
    }
    return { data: lists, error: null };
  }

  /**
   * The session's assurance level and the level it can reach: `nextLevel` is aal2 when the
   * user has a verified factor, so `currentLevel === 'aal1' && nextLevel === 'aal2'` means
   * "ask for a code". With `jwt`, for that access token (the user is fetched).
   *
   * @example
   * const { data } = await auth.mfa.getAuthenticatorAssuranceLevel();
   * if (data?.nextLevel === 'aal2' && data.currentLevel !== 'aal2') showCodeStep();
   */
  async getAuthenticatorAssuranceLevel(jwt?: string): Promise<MfaResult<AssuranceLevel>> {
    let token = jwt;
    let user: User | undefined;
    if (jwt) {
      const got = await this.host.getUser(jwt);
      if (got.error) return { data: null, error: got.error };
      user = got.data.user;
    } else {
      const { data, error } = await this.host.getSession();
      if (error) return { data: null, error };
      if (!data.session) {
        return {
          data: { currentLevel: null, nextLevel: null, currentAuthenticationMethods: [] },
          error: null,
        };
      }
      token = data.session.access_token;
      user = data.session.user;
    }
    const claims = jwtPayload(token ?? '') ?? {};
    const currentLevel = (claims.aal as AuthenticatorAssuranceLevel | undefined) ?? null;
    const verified = ((user?.factors as Factor[] | undefined) ?? []).some(
      (f) => f.status === 'verified',
    );
    return {
      data: {
        currentLevel,
        nextLevel: verified ? 'aal2' : currentLevel,
        currentAuthenticationMethods: (claims.amr as AmrEntry[] | undefined) ?? [],
      },
      error: null,
    };
  }
}

/** `auth.admin.mfa`: a user's factors, for admins (service role key). */
export class AdminMfaApi {
  private readonly http: Http;

  constructor(http: Http) {
    this.http = http;
  }

  /**
   * The factors of a user.
   *
   * @example
   * const { data } = await auth.admin.mfa.listFactors({ userId });
   */
  listFactors(params: { userId: string }): Promise<MfaResult<{ factors: Factor[] }>> {
    return run(async () => ({
      factors: (await authFetch(this.http, {
        path: `/admin/users/${encodeURIComponent(params.userId)}/factors`,
      })) as Factor[],
    }));
  }

  /**
   * Deletes a factor of a user (its sessions go back to aal1); answers the deleted factor.
   *
   * @example
   * await auth.admin.mfa.deleteFactor({ userId, id: factorId });
   */
  deleteFactor(params: { userId: string; id: string }): Promise<MfaResult<Factor>> {
    return run(
      async () =>
        (await authFetch(this.http, {
          method: 'DELETE',
          path: `/admin/users/${encodeURIComponent(params.userId)}/factors/${encodeURIComponent(params.id)}`,
        })) as Factor,
    );
  }
}
