import type { Hono } from 'hono';
import type { AppEnv } from '../../service-module';
import type { AuthContext } from '../context';
import { notFound, unprocessable } from '../errors';
import { requireUser } from '../guard';

const samlDisabled = () => notFound('saml_provider_disabled', 'SAML 2.0 is disabled');
const oauthServerDisabled = () => notFound('feature_disabled', 'OAuth server is disabled');

/** `grant_type=web3` (Sign in with Ethereum / Solana), which this server does not offer. */
export const web3Disabled = () =>
  unprocessable('web3_provider_disabled', 'Web3 provider is disabled');

/**
 * Features this server does not offer answer as a hosted project where they are off does
 * (GoTrue's `requireSAMLEnabled`, `requireOAuthServerEnabled`, `requireCustomOAuthEnabled`),
 * never 404 "no route": SSO with SAML 2.0, the OAuth 2.1 server (Supabase Auth as an
 * authorization server for other apps, while `auth.oauthServer` is off) and the admin API of custom providers (providers are
 * configured by `auth.external` here).
 */
export function disabledRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  for (const path of ['/sso', '/sso/*']) {
    routes.all(path, () => {
      throw samlDisabled();
    });
  }
  // SSO providers of the admin API: the list is empty, so every provider id is unknown.
  routes.get('/admin/sso/providers', (c) => c.json({ items: [] }));
  routes.post('/admin/sso/providers', () => {
    throw samlDisabled();
  });
  routes.all('/admin/sso/providers/:id', () => {
    throw notFound('sso_provider_not_found', 'SSO Identity Provider not found');
  });
  if (!ctx.config.auth.oauthServer.enabled) oauthServerOff(routes, ctx);
  for (const path of ['/admin/custom-providers', '/admin/custom-providers/*']) {
    routes.all(path, () => {
      throw notFound('feature_disabled', 'Custom OAuth providers are disabled');
    });
  }
}

/** The OAuth 2.1 server's paths while it is off (`auth.oauthServer.enabled` false). */
function oauthServerOff(routes: Hono<AppEnv>, ctx: AuthContext): void {
  for (const path of ['/admin/oauth', '/admin/oauth/*', '/oauth', '/oauth/*']) {
    routes.all(path, () => {
      throw oauthServerDisabled();
    });
  }
  routes.get('/.well-known/oauth-authorization-server', () => {
    throw oauthServerDisabled();
  });
  for (const path of ['/user/oauth/grants', '/user/oauth/grants/*']) {
    routes.all(path, async (c) => {
      await requireUser(c, ctx);
      throw oauthServerDisabled();
    });
  }
}
