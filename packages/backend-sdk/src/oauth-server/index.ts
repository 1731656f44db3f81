/**
 * `@app/backend-sdk/oauth-server` — the consent side of the project's OAuth 2.1 server, for
 * the app page that asks users to let another app sign in with their account:
 * `withOAuthServer(client)` adds the official client's `auth.oauth` (`getAuthorizationDetails`,
 * `approveAuthorization`, `denyAuthorization`). Kept out of the main bundle.
 */
import { OAuthConsentApi, type OAuthConsentHost } from '../auth/oauth-consent';

export {
  type OAuthAuthorizationDetails,
  OAuthConsentApi,
  type OAuthConsentHost,
  type OAuthConsentOptions,
  type OAuthRedirect,
} from '../auth/oauth-consent';

/**
 * Gives a client the official client's `auth.oauth` consent calls. Returns the same client,
 * typed with them.
 *
 * @example
 * import { withOAuthServer } from '@app/backend-sdk/oauth-server';
 * const client = withOAuthServer(createClient(url, anonKey));
 * const { data } = await client.auth.oauth.getAuthorizationDetails(authorizationId);
 */
export function withOAuthServer<C extends { auth: OAuthConsentHost }>(
  client: C,
): C & { auth: C['auth'] & { oauth: OAuthConsentApi } } {
  const auth = client.auth as C['auth'] & { oauth: OAuthConsentApi };
  auth.oauth = new OAuthConsentApi(auth);
  return client as C & { auth: C['auth'] & { oauth: OAuthConsentApi } };
}
