import type { Hono } from 'hono';
import type { AppEnv } from '../../service';
import type { AuthContext } from '../context';
import { badRequest } from '../errors';

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

/** GET /health, /settings, /.well-known/jwks.json; /authorize and /callback (no providers). */
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
        ...Object.fromEntries(PROVIDERS.map((p) => [p, false])),
        email: true,
        phone: ctx.config.auth.sms.enabled,
      },
      disable_signup: false,
      mailer_autoconfirm: ctx.config.auth.autoconfirm,
      phone_autoconfirm: ctx.config.auth.sms.autoconfirm,
      sms_provider: ctx.config.auth.sms.provider === 'twilio' ? 'twilio' : '',
      saml_enabled: false,
      saml_private_key_next_configured: false,
      passkeys_enabled: false,
    }),
  );
  // HS256 only: symmetric keys are never published, so the set is empty.
  routes.get('/.well-known/jwks.json', (c) => {
    c.header('cache-control', 'public, max-age=600');
    return c.json({ keys: [] });
  });
  // No external OAuth provider is enabled on this server: the hosted answers for that case.
  routes.get('/authorize', () => {
    throw badRequest('validation_failed', 'Unsupported provider: provider is not enabled');
  });
  routes.on(['GET', 'POST'], '/callback', () => {
    throw badRequest('bad_oauth_callback', 'OAuth state parameter missing');
  });
}
