/**
 * `@app/backend-sdk/oauth-server` — the project's OAuth 2.1 server from the app's side:
 * `withOAuthServer(client)` adds the official client's `auth.oauth` (`getAuthorizationDetails`,
 * `approveAuthorization`, `denyAuthorization`: the consent page that asks users to let another
 * app sign in with their account) and `auth.admin.oauth` (the clients' admin API, with the
 * service role key). Kept out of the main bundle.
 */
import { OAuthClientsAdminApi } from '../auth/oauth-clients';
import { OAuthConsentApi, type OAuthConsentHost } from '../auth/oauth-consent';

export {
  type CreateOAuthClientParams,
  type OAuthClient,
  type OAuthClientList,
  OAuthClientsAdminApi,
  type OAuthClientTokenEndpointAuthMethod,
  type UpdateOAuthClientParams,
} from '../auth/oauth-clients';

export {
  type OAuthAuthorizationDetails,
  OAuthConsentApi,
  type OAuthConsentHost,
  type OAuthConsentOptions,
  type OAuthRedirect,
} from '../auth/oauth-consent';

/** A client with the OAuth server's calls: `auth.oauth` and `auth.admin.oauth`. */
export type WithOAuthServer<C extends { auth: OAuthConsentHost & { admin: object } }> = C & {
  auth: C['auth'] & {
    oauth: OAuthConsentApi;
    admin: C['auth']['admin'] & { oauth: OAuthClientsAdminApi };
  };
};

/**
 * Gives a client the official client's `auth.oauth` consent calls and `auth.admin.oauth`
 * client administration. Returns the same client, typed with them.
 *
 * @example
 * import { withOAuthServer } from '@app/backend-sdk/oauth-server';
 * const client = withOAuthServer(createClient(url, anonKey));
 * const { data } = await client.auth.oauth.getAuthorizationDetails(authorizationId);
 *
 * @example
 * const admin = withOAuthServer(createClient(url, serviceRoleKey));
 * const { data } = await admin.auth.admin.oauth.createClient({
 *   client_name: 'Notes', redirect_uris: ['https://notes.example/callback'],
 * });
 */
export function withOAuthServer<C extends { auth: OAuthConsentHost & { admin: object } }>(
  client: C,
): WithOAuthServer<C> {
  const auth = client.auth as WithOAuthServer<C>['auth'];
  auth.oauth = new OAuthConsentApi(auth);
  auth.admin.oauth = new OAuthClientsAdminApi(auth.http);
  return client as WithOAuthServer<C>;
}
