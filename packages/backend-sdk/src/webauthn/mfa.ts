/**
 * WebAuthn MFA factors with the browser's prompt (the official client's `auth.mfa.webauthn`):
 * `register` enrols a security key or passkey as a second factor, `authenticate` raises a
 * session to aal2 with it. Kept out of the main client for its size; the raw steps
 * (`auth.mfa.enroll/challenge/verify`) are there.
 */
import type { MfaApi, MfaResult, WebAuthnEnrollment } from '../auth/mfa';
import type { Session } from '../auth/types';
import type {
  CreationOptionsJson,
  CredentialJson,
  RequestOptionsJson,
  WebAuthnDriver,
} from '../auth/webauthn';
import { AuthError } from '../errors';
import { ceremonyError, nativeWebAuthn } from './driver';

/** A challenge answered by the authenticator, ready for `verify`. */
export interface WebAuthnChallengeAnswer {
  factorId: string;
  challengeId: string;
  webauthn: { type: 'create' | 'request'; credential_response: CredentialJson };
}

/**
 * `auth.mfa.webauthn` of the official client, over an auth client's `mfa` and a WebAuthn
 * driver (the browser's by default).
 *
 * @example
 * import { WebAuthnMfa } from '@app/backend-sdk/webauthn';
 * const webauthn = new WebAuthnMfa(client.auth);
 * const { error } = await webauthn.register({ friendlyName: 'YubiKey' });
 */
export class WebAuthnMfa {
  private readonly mfa: MfaApi;
  private readonly driver: WebAuthnDriver;

  constructor(auth: { mfa: MfaApi }, driver: WebAuthnDriver = nativeWebAuthn) {
    this.mfa = auth.mfa;
    this.driver = driver;
  }

  /**
   * Enrols an unverified WebAuthn factor (its first challenge registers the key).
   *
   * @example
   * const { data } = await webauthn.enroll({ friendlyName: 'YubiKey' });
   */
  enroll(params: { friendlyName?: string } = {}): Promise<MfaResult<WebAuthnEnrollment>> {
    return this.mfa.enroll({ factorType: 'webauthn', ...params });
  }

  /**
   * Challenges a factor and runs the browser's prompt: creating the key's credential for a
   * new factor, or signing with it for a verified one.
   *
   * @example
   * const { data } = await webauthn.challenge({ factorId });
   * if (data) await webauthn.verify(data);
   */
  async challenge(params: {
    factorId: string;
    signal?: AbortSignal;
  }): Promise<MfaResult<WebAuthnChallengeAnswer>> {
    const { data, error } = await this.mfa.challenge({ factorId: params.factorId });
    if (error) return { data: null, error };
    const w = data.webauthn;
    if (!w) {
      const e = new AuthError('Not a WebAuthn factor', { code: 'validation_failed' });
      return { data: null, error: e };
    }
    try {
      const credential_response =
        w.type === 'create'
          ? await this.driver.create(
              w.credential_options.publicKey as CreationOptionsJson,
              params.signal,
            )
          : await this.driver.get(
              w.credential_options.publicKey as RequestOptionsJson,
              params.signal,
            );
      return {
        data: {
          factorId: params.factorId,
          challengeId: data.id,
          webauthn: { type: w.type, credential_response },
        },
        error: null,
      };
    } catch (e) {
      return { data: null, error: ceremonyError(e) };
    }
  }

  /**
   * Sends an answered challenge: the session becomes aal2 (and a new factor verified).
   *
   * @example
   * await webauthn.verify(answer);
   */
  verify(answer: WebAuthnChallengeAnswer): Promise<MfaResult<Session>> {
    return this.mfa.verify(answer);
  }

  /**
   * Raises the session to aal2 with a verified WebAuthn factor.
   *
   * @example
   * const { error } = await webauthn.authenticate({ factorId });
   */
  async authenticate(params: {
    factorId: string;
    webauthn?: { signal?: AbortSignal };
  }): Promise<MfaResult<Session>> {
    const answer = await this.challenge({
      factorId: params.factorId,
      signal: params.webauthn?.signal,
    });
    return answer.error ? answer : this.verify(answer.data);
  }

  /**
   * Enrols a security key or passkey as a second factor in one go: enrol, the browser's
   * prompt, verify.
   *
   * @example
   * const { data: session, error } = await webauthn.register({ friendlyName: 'YubiKey' });
   */
  async register(params: {
    friendlyName?: string;
    webauthn?: { signal?: AbortSignal };
  }): Promise<MfaResult<Session>> {
    const enrolled = await this.enroll({ friendlyName: params.friendlyName });
    if (enrolled.error) return enrolled;
    return this.authenticate({ factorId: enrolled.data.id, webauthn: params.webauthn });
  }
}
