import type { Context, Hono } from 'hono';
import type { AppEnv } from '../../service-module';
import type { AuthContext } from '../context';

const PROVIDERS = [
  'apple',
  'azure',
  'bitbucket',
  'discord',
  'facebook',
  'snapchat',
  'figma',
  'fly',
  'github',
  'gitlab',
  'google',
  'keycloak',
  'kakao',
  'linkedin',
  'linkedin_oidc',
  'notion',
  'spotify',
  'slack',
  'slack_oidc',
  'workos',
  'twitch',
  'twitter',
  'zoom',
];

/**
 * GoTrue's discovery document for an issuer (`<url>/auth/v1`); the registration endpoint
 * while the OAuth server takes dynamic registrations. PKCE is S256 only here.
 */
function openIdConfiguration(issuer: string, registration: boolean) {
  const base = issuer.replace(/\/+$/, '');
  return {
    issuer,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    jwks_uri: `${base}/.well-known/jwks.json`,
    userinfo_endpoint: `${base}/oauth/userinfo`,
    scopes_supported: ['openid', 'profile', 'email', 'phone', 'offline_access'],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256', 'HS256', 'ES256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    claims_supported: [
      'sub',
      'aud',
      'iss',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'email',
      'email_verified',
      'phone_number',
      'phone_number_verified',
      'name',
      'picture',
      'preferred_username',
      'updated_at',
    ],
    code_challenge_methods_supported: ['S256'],
    ...(registration ? { registration_endpoint: `${base}/oauth/clients/register` } : {}),
  };
}

/** GET /health, /settings, the JWKS and the OpenID discovery document under /.well-known. */
export function publicRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  routes.get('/health', (c) =>
    c.json({
      version: 'v2.196.0',
      name: 'GoTrue',
      description: 'GoTrue is a user registration and authentication API',
    }),
  );
  routes.get('/settings', (c) =>
    c.json({
      external: {
        anonymous_users: ctx.anonymousUsers,
        ...Object.fromEntries(
          PROVIDERS.map((p) => [p, ctx.config.auth.external.providers.get(p)?.enabled === true]),
        ),
        email: true,
        phone: ctx.config.auth.sms.enabled,
      },
      disable_signup: ctx.config.auth.disableSignup,
      mailer_autoconfirm: ctx.config.auth.autoconfirm,
      phone_autoconfirm: ctx.config.auth.sms.autoconfirm,
      sms_provider: ctx.config.auth.sms.provider === 'twilio' ? 'twilio' : '',
      saml_enabled: false,
      saml_private_key_next_configured: false,
      passkeys_enabled: ctx.config.auth.passkey.enabled,
    }),
  );
  // The public keys of the asymmetric signing keys (shared secrets are never published).
  routes.get('/.well-known/jwks.json', (c) => {
    c.header('cache-control', 'public, max-age=600');
    return c.json(ctx.keys.jwks());
  });
  // OIDC discovery / OAuth server metadata, as GoTrue serves both.
  const discovery = (c: Context<AppEnv>) => {
    c.header('cache-control', 'public, max-age=600');
    const { enabled, allowDynamicRegistration } = ctx.config.auth.oauthServer;
    return c.json(openIdConfiguration(ctx.issuer, enabled && allowDynamicRegistration));
  };
  routes.get('/.well-known/openid-configuration', discovery);
  // RFC 8414 metadata, while the OAuth server is on (else routes/disabled.ts answers).
  if (ctx.config.auth.oauthServer.enabled) {
    routes.get('/.well-known/oauth-authorization-server', discovery);
  }
}
