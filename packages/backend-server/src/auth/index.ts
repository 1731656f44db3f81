import { Hono } from 'hono';
import { MAIL_OUTBOX_SQL, outboxFor } from '../mail/index';
import type { AppEnv, ServiceModule } from '../service-module';
import { SMS_OUTBOX_SQL, smsOutboxFor } from '../sms/index';
import type { AuthContext } from './context';
import { errorResponse } from './errors';
import { requireAdmin } from './guard';
import { createHooks } from './hooks';
import { OidcCache } from './oauth/oidc';
import { EMULATOR_CODES_SQL, EmulatorCodes } from './oauth/providers';
import { OAUTH_SERVER_SQL, oauthServerRoutes } from './oauth-server/index';
import { RATE_LIMIT_SQL, RateLimiter } from './rate-limit';
import { adminFactorRoutes } from './routes/admin-factors';
import { adminLinkRoutes } from './routes/admin-links';
import { adminUserRoutes } from './routes/admin-users';
import { disabledRoutes } from './routes/disabled';
import { emulatorRoutes } from './routes/emulator';
import { externalRoutes } from './routes/external';
import { factorRoutes } from './routes/factors';
import { identityRoutes } from './routes/identities';
import { mailFlowRoutes } from './routes/mail-flows';
import { passkeyRoutes } from './routes/passkeys';
import { publicRoutes } from './routes/public';
import { signupRoutes } from './routes/signup';
import { tokenRoutes } from './routes/token';
import { userRoutes } from './routes/user';
import { verifyRoutes } from './routes/verify';
import { AUTH_SQL } from './schema';
import { WEBAUTHN_SQL } from './webauthn-schema';

/**
 * The GoTrue-compatible auth service under `/auth/v1`: sign-up, sign-in (password, refresh,
 * PKCE, OAuth/OIDC providers, ID tokens), users and their identities, mail flows (confirm,
 * magic link, recovery, email change), MFA and the admin API.
 */
export const authService: ServiceModule = {
  name: 'auth',
  basePath: '/auth/v1',
  platformSql:
    AUTH_SQL +
    WEBAUTHN_SQL +
    RATE_LIMIT_SQL +
    MAIL_OUTBOX_SQL +
    SMS_OUTBOX_SQL +
    EMULATOR_CODES_SQL +
    OAUTH_SERVER_SQL,
  keyAuth: true,
  // The hosted gateway's open auth paths; everything else (health included) needs the key.
  openPaths: [
    '/verify',
    '/callback',
    '/authorize',
    '/.well-known/jwks.json',
    '/.well-known/openid-configuration',
    '/.well-known/oauth-authorization-server',
    '/emulator',
    // The OAuth 2.1 server's endpoints that other apps' clients and browsers call.
    '/oauth/authorize',
    '/oauth/token',
    '/oauth/clients/register',
    '/oauth/userinfo',
  ],
  create({ config, db, log }) {
    const ctx: AuthContext = {
      config,
      db,
      outbox: outboxFor(config, db, log),
      sms: smsOutboxFor(config, db, log),
      limiter: new RateLimiter(config.auth.rateLimits, db),
      issuer: `${config.url}/auth/v1`,
      keys: config.signingKeys,
      hooks: createHooks(db, config.auth.hooks),
      otpExpiry: config.auth.otpExpiry,
      anonymousUsers: config.auth.anonymousSignIns,
      oidc: new OidcCache(),
      emulatorCodes: new EmulatorCodes(db),
    };
    const routes = new Hono<AppEnv>();
    routes.use('/admin/*', async (_c, next) => {
      await requireAdmin(_c, ctx);
      await next();
    });
    publicRoutes(routes, ctx);
    signupRoutes(routes, ctx);
    tokenRoutes(routes, ctx);
    userRoutes(routes, ctx);
    verifyRoutes(routes, ctx);
    mailFlowRoutes(routes, ctx);
    adminLinkRoutes(routes, ctx);
    adminUserRoutes(routes, ctx);
    factorRoutes(routes, ctx);
    adminFactorRoutes(routes, ctx);
    passkeyRoutes(routes, ctx);
    externalRoutes(routes, ctx);
    emulatorRoutes(routes, ctx);
    identityRoutes(routes, ctx);
    oauthServerRoutes(routes, ctx);
    disabledRoutes(routes, ctx);
    routes.onError((error, c) => errorResponse(c, error));
    return { routes };
  },
};
