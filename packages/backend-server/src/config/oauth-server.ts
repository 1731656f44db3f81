/**
 * Settings of the OAuth 2.1 authorization server (the hosted `[auth.oauth_server]`): the
 * project's auth as the sign-in of other apps. Part of the one config loader (`resolveConfig`
 * in `resolve.ts` calls this).
 */

/** The OAuth 2.1 authorization server under `/auth/v1/oauth` (the hosted `[auth.oauth_server]`). */
export interface OAuthServerOptions {
  /**
   * The server on. Default false, as hosted: its endpoints answer 404 `feature_disabled`
   * "OAuth server is disabled".
   *
   * @example
   * startServer({ auth: { oauthServer: { enabled: true, authorizationUrlPath: '/oauth/consent' } } });
   */
  enabled?: boolean;
  /**
   * Anyone may register a client at `POST /auth/v1/oauth/clients/register` (RFC 7591). Default
   * false: 403 `oauth_dynamic_client_registration_disabled`; clients are made by the admin API.
   *
   * @example
   * startServer({ auth: { oauthServer: { enabled: true, allowDynamicRegistration: true } } });
   */
  allowDynamicRegistration?: boolean;
  /**
   * The app page that asks the user for consent, a path under `auth.siteUrl`: `/oauth/authorize`
   * redirects there with `?authorization_id=…`. Default `/oauth/consent`.
   *
   * @example
   * startServer({ auth: { siteUrl: 'https://drive.example.com', oauthServer: { enabled: true, authorizationUrlPath: '/consent' } } });
   */
  authorizationUrlPath?: string;
  /**
   * Seconds an authorization request (and its code) stays usable. Default 600 (GoTrue's 10m).
   *
   * @example
   * startServer({ auth: { oauthServer: { enabled: true, authorizationTtl: 300 } } });
   */
  authorizationTtl?: number;
}

export interface ResolvedOAuthServer {
  enabled: boolean;
  allowDynamicRegistration: boolean;
  authorizationUrlPath: string;
  authorizationTtl: number;
}

export function resolveOAuthServer(o: OAuthServerOptions = {}): ResolvedOAuthServer {
  const path = o.authorizationUrlPath ?? '/oauth/consent';
  if (!path.startsWith('/')) {
    throw new Error('auth.oauthServer.authorizationUrlPath must be a path starting with /');
  }
  const ttl = o.authorizationTtl ?? 600;
  if (!(ttl > 0)) throw new Error('auth.oauthServer.authorizationTtl must be a positive number');
  return {
    enabled: o.enabled ?? false,
    allowDynamicRegistration: o.allowDynamicRegistration ?? false,
    authorizationUrlPath: path,
    authorizationTtl: ttl,
  };
}
