import { useCallback, useState } from 'react';
import { useUser } from './auth';
import { useBackendClient } from './provider';
import { useBackendQuery } from './query';
import type { ResultLike } from './types';

/** An authorization request as `auth.oauth.getAuthorizationDetails()` returns it. */
export interface OAuthAuthorizationLike {
  authorization_id: string;
  redirect_uri: string;
  client: {
    id: string;
    name?: string | undefined;
    uri?: string | undefined;
    logo_uri?: string | undefined;
  };
  user: { id: string; email: string };
  scope: string;
}

type Redirect = { redirect_url: string };

/** The consent calls of the auth client (`withOAuthServer` of `@app/backend-sdk/oauth-server`). */
export interface OAuthConsentAuthLike {
  oauth: {
    getAuthorizationDetails(id: string): PromiseLike<ResultLike<OAuthAuthorizationLike | Redirect>>;
    approveAuthorization(
      id: string,
      options?: { skipBrowserRedirect?: boolean },
    ): PromiseLike<ResultLike<Redirect>>;
    denyAuthorization(
      id: string,
      options?: { skipBrowserRedirect?: boolean },
    ): PromiseLike<ResultLike<Redirect>>;
  };
}

/** What {@link useOAuthConsent} returns. */
export interface OAuthConsentState {
  /** The request: the app asking (`client.name`), the user, `scope` (undefined while loading). */
  details: OAuthAuthorizationLike | undefined;
  /**
   * Where the browser goes next: set at once when the user already granted these scopes, or
   * after `approve` / `deny`.
   */
  redirectUrl: string | null;
  /** True until the request is loaded (or the user is signed out). */
  isPending: boolean;
  /** Why loading, approving or denying failed (e.g. `oauth_authorization_not_found`). */
  error: unknown;
  /** True while `approve` or `deny` runs. */
  busy: boolean;
  /** Approves; the redirect URL (with `code`), or null when it failed. */
  approve(): Promise<string | null>;
  /** Denies; the redirect URL (with `error=access_denied`), or null when it failed. */
  deny(): Promise<string | null>;
}

/**
 * The consent page of the project's OAuth 2.1 server for a signed-in user: loads the
 * request behind `?authorization_id=` once, then approve or deny. The auth client sends
 * the browser to `redirectUrl` unless `skipBrowserRedirect` (then do it yourself).
 *
 * @example
 * const consent = useOAuthConsent(new URLSearchParams(location.search).get('authorization_id'));
 * if (consent.details) return (
 *   <p>{consent.details.client.name} asks for {consent.details.scope}
 *     <button onClick={() => void consent.approve()}>Allow</button>
 *     <button onClick={() => void consent.deny()}>Deny</button></p>
 * );
 */
export function useOAuthConsent(
  authorizationId: string | null,
  options: { skipBrowserRedirect?: boolean } = {},
): OAuthConsentState {
  const { auth } = useBackendClient<{ auth: OAuthConsentAuthLike }>();
  const userId = useUser()?.id ?? null;
  // Loaded once: reading a request claims it, and may approve it at once.
  const query = useBackendQuery(
    ['auth', 'oauth-authorization', authorizationId, userId],
    () => auth.oauth.getAuthorizationDetails(authorizationId ?? ''),
    { enabled: !!authorizationId && !!userId, staleTime: Number.POSITIVE_INFINITY },
  );
  const [answer, setAnswer] = useState<{ url: string | null; error: unknown; busy: boolean }>({
    url: null,
    error: null,
    busy: false,
  });
  const { skipBrowserRedirect } = options;
  const answerWith = useCallback(
    async (action: 'approveAuthorization' | 'denyAuthorization') => {
      if (!authorizationId) return null;
      setAnswer({ url: null, error: null, busy: true });
      const { data, error } = await auth.oauth[action](authorizationId, { skipBrowserRedirect });
      const url = data?.redirect_url ?? null;
      setAnswer({ url, error: error ?? null, busy: false });
      return url;
    },
    [auth, authorizationId, skipBrowserRedirect],
  );
  const loaded = query.data;
  const redirect = loaded && 'redirect_url' in loaded ? loaded.redirect_url : null;
  return {
    details: loaded && !('redirect_url' in loaded) ? loaded : undefined,
    redirectUrl: answer.url ?? redirect,
    isPending: query.isPending,
    error: answer.error ?? query.error,
    busy: answer.busy,
    approve: useCallback(() => answerWith('approveAuthorization'), [answerWith]),
    deny: useCallback(() => answerWith('denyAuthorization'), [answerWith]),
  };
}
