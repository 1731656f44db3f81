import type { SupabaseClient } from '@supabase/supabase-js';
import * as oauth from 'oauth4webapi';
import { expect } from 'vitest';
import type { RunningServer } from '../../src/server';
import { adminClient } from './support';

// Both sides of the OAuth 2.1 server's flow in tests: the third-party app is a certified OAuth
// client library (oauth4webapi); the user answers the consent API through supabase-js.
export const CALLBACK = 'http://localhost:4000/callback';
export const HTTP = { [oauth.allowInsecureRequests]: true } as const;

/** The server's discovery document, through oauth4webapi. */
export async function discover(server: RunningServer): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(`${server.url}/auth/v1`);
  return oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...HTTP }),
  );
}

export type RegisteredClient = Awaited<ReturnType<ReturnType<typeof oauthFlow>['register']>>;

/** The flow's steps against `server`, with `user` signed in as the one who consents. */
export function oauthFlow(
  server: RunningServer,
  as: oauth.AuthorizationServer,
  user: SupabaseClient,
) {
  /** A client registered through RFC 7591 (public) or the admin API (confidential). */
  async function register(method: 'none' | 'client_secret_basic' | 'client_secret_post') {
    if (method === 'none') {
      const res = await fetch(as.registration_endpoint ?? '', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'Public tool',
          redirect_uris: [CALLBACK],
          token_endpoint_auth_method: 'none',
        }),
      });
      const body = (await res.json()) as { client_id: string };
      return { client: { client_id: body.client_id }, auth: oauth.None() };
    }
    const { data, error } = await adminClient(server).auth.admin.oauth.createClient({
      client_name: 'Notes app',
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: method,
    } as never);
    expect(error).toBeNull();
    const secret = data?.client_secret ?? '';
    return {
      client: { client_id: data?.client_id ?? '' },
      auth:
        method === 'client_secret_basic'
          ? oauth.ClientSecretBasic(secret)
          : oauth.ClientSecretPost(secret),
    };
  }

  /** Opens `/oauth/authorize` for a client; returns the consent page's authorization_id. */
  async function startAuthorization(clientId: string, extra: Record<string, string> = {}) {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint ?? '');
    url.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'email profile',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...extra,
    }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    const location = new URL(res.headers.get('location') ?? '', server.url);
    return {
      res,
      location,
      verifier,
      state,
      id: location.searchParams.get('authorization_id') ?? '',
    };
  }

  /** authorize → consent (approve) → the client's callback URL. */
  async function approved(clientId: string) {
    const started = await startAuthorization(clientId);
    const details = await user.auth.oauth.getAuthorizationDetails(started.id);
    expect(details.error).toBeNull();
    const data = details.data as { redirect_url?: string };
    const redirect = data.redirect_url
      ? data.redirect_url
      : (await user.auth.oauth.approveAuthorization(started.id, { skipBrowserRedirect: true })).data
          ?.redirect_url;
    return { ...started, callback: new URL(redirect ?? '') };
  }

  async function exchange(
    c: Awaited<ReturnType<typeof register>>,
    callback: URL,
    state: string,
    verifier: string,
  ) {
    const params = oauth.validateAuthResponse(as, c.client, callback, state);
    const res = await oauth.authorizationCodeGrantRequest(
      as,
      c.client,
      c.auth,
      params,
      CALLBACK,
      verifier,
      HTTP,
    );
    return oauth.processAuthorizationCodeResponse(as, c.client, res);
  }

  return { register, startAuthorization, approved, exchange };
}
