/**
 * The consent API of the project's OAuth 2.1 server (`/auth/v1/oauth/authorizations`): what
 * the app's consent page calls for a signed-in user. Names and shapes are the official
 * client's (`auth.oauth.*`). Kept out of the main bundle: `withOAuthServer(client)` of
 * `@app/backend-sdk/oauth-server` puts it on a client.
 */
import type { Http } from '../http/index';
import { authFetch } from './api';
import { type MfaResult, run } from './mfa';
import type { Session } from './types';

/** An authorization request waiting for the user's consent. */
export interface OAuthAuthorizationDetails {
  authorization_id: string;
  /** Where the client app gets the answer. */
  redirect_uri: string;
  /** The app asking (its registered name, site and logo, when it gave them). */
  client: { id: string; name?: string; uri?: string; logo_uri?: string };
  user: { id: string; email: string };
  /** Space-separated scopes, e.g. `email profile`. */
  scope: string;
}

/** Where to send the browser next: the client app's `redirect_uri` with the answer. */
export interface OAuthRedirect {
  redirect_url: string;
}

/** Options of approve / deny. */
export interface OAuthConsentOptions {
  /** Do not send the browser to `redirect_url` (in a browser it goes there by default). */
  skipBrowserRedirect?: boolean;
}

/** What the consent API needs from the auth client it belongs to (an `AuthClient` has it). */
export interface OAuthConsentHost {
  http: Http;
  /** The signed-in session, or a thrown `session_missing` error. */
  requireSession(): Promise<Session>;
}

const path = (id: string, rest = '') => `/oauth/authorizations/${encodeURIComponent(id)}${rest}`;

/** `auth.oauth`: read an authorization request, approve or deny it. */
export class OAuthConsentApi {
  private readonly host: OAuthConsentHost;

  constructor(host: OAuthConsentHost) {
    this.host = host;
  }

  private async call(method: 'GET' | 'POST', p: string, body?: unknown) {
    const { access_token } = await this.host.requireSession();
    return authFetch(this.host.http, { method, path: p, body, token: access_token });
  }

  /**
   * The request behind `?authorization_id=` of the consent page: client, user and scopes.
   * When the user already granted this client these scopes, the answer is an
   * {@link OAuthRedirect} instead (approved at once): send the browser there.
   *
   * @example
   * const id = new URL(location.href).searchParams.get('authorization_id')!;
   * const { data, error } = await client.auth.oauth.getAuthorizationDetails(id);
   * if (data && 'redirect_url' in data) location.assign(data.redirect_url);
   */
  getAuthorizationDetails(
    authorizationId: string,
  ): Promise<MfaResult<OAuthAuthorizationDetails | OAuthRedirect>> {
    return run(
      async () => (await this.call('GET', path(authorizationId))) as OAuthAuthorizationDetails,
    );
  }

  private async consent(id: string, action: string, options: OAuthConsentOptions = {}) {
    const result = await run(
      async () => (await this.call('POST', path(id, '/consent'), { action })) as OAuthRedirect,
    );
    const url = result.data?.redirect_url;
    if (url && !options.skipBrowserRedirect && typeof window !== 'undefined') {
      window.location.assign(url);
    }
    return result;
  }

  /**
   * Approves the request: the client app gets a code at its `redirect_uri` (the browser is
   * sent there unless `skipBrowserRedirect`).
   *
   * @example
   * await client.auth.oauth.approveAuthorization(id);
   */
  approveAuthorization(
    authorizationId: string,
    options?: OAuthConsentOptions,
  ): Promise<MfaResult<OAuthRedirect>> {
    return this.consent(authorizationId, 'approve', options);
  }

  /**
   * Denies the request: the client app gets `error=access_denied` at its `redirect_uri`.
   *
   * @example
   * await client.auth.oauth.denyAuthorization(id, { skipBrowserRedirect: true });
   */
  denyAuthorization(
    authorizationId: string,
    options?: OAuthConsentOptions,
  ): Promise<MfaResult<OAuthRedirect>> {
    return this.consent(authorizationId, 'deny', options);
  }
}
