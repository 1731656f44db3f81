import type { Hono } from 'hono';
import type { AppEnv } from '../../service-module';
import type { AuthContext } from '../context';
import { oauthClientRoutes } from './admin';
import { authorizationRoutes } from './authorize';
import { grantRoutes } from './grants';
import { userInfoRoutes } from './oidc';
import { oauthTokenRoutes } from './token';

export { OAUTH_SERVER_SQL } from './schema';

/**
 * The OAuth 2.1 authorization server (`auth.oauthServer`): the admin API of clients, dynamic
 * registration, `/oauth/authorize` and the consent API, `/oauth/token` (with OpenID ID tokens),
 * `/oauth/userinfo`, and the user's grants.
 * Mounted only when enabled; otherwise `routes/disabled.ts` answers its paths as hosted does.
 */
export function oauthServerRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  if (!ctx.config.auth.oauthServer.enabled) return;
  oauthClientRoutes(routes, ctx);
  authorizationRoutes(routes, ctx);
  oauthTokenRoutes(routes, ctx);
  grantRoutes(routes, ctx);
  userInfoRoutes(routes, ctx);
}
