import type { Hono } from 'hono';
import type { AppEnv } from '../../service-module';
import type { AuthContext } from '../context';
import { OAuthError } from '../errors';
import { requireUser } from '../guard';
import type { UserRow } from '../users';

/** GoTrue signs ID tokens with asymmetric keys only. */
export const HS256_ID_TOKEN = () =>
  new OAuthError(
    'invalid_scope',
    'The openid scope needs an asymmetric signing key: ID tokens are not signed with HS256',
  );

/** The OpenID claims the OAuth server hands out, by the scopes a client was granted. */
const has = (scopes: string | null, scope: string) => (scopes ?? '').split(' ').includes(scope);

const text = (meta: Record<string, unknown> | null, key: string): string | undefined => {
  const value = meta?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

const seconds = (at: string | null) => (at ? Math.floor(Date.parse(at) / 1000) : undefined);

/** The `profile` scope's claims: name (else the email), picture, preferred username. */
function profile(user: UserRow): Record<string, unknown> {
  const meta = user.raw_user_meta_data;
  const out: Record<string, unknown> = {};
  const name = text(meta, 'name') ?? (user.email || undefined);
  if (name) out.name = name;
  const picture = text(meta, 'picture') ?? text(meta, 'avatar_url');
  if (picture) out.picture = picture;
  const username = text(meta, 'preferred_username') ?? text(meta, 'username');
  if (username) out.preferred_username = username;
  const updated = seconds(user.updated_at);
  if (updated) out.updated_at = updated;
  return out;
}

/**
 * The claims of an OpenID Connect ID token (Core §2) for a code exchanged by `clientId` with
 * the `openid` scope: audience and `client_id` the client, the request's nonce, `auth_time`
 * the sign-in, and the email/phone/profile claims its scopes allow. Valid one hour, as GoTrue.
 */
export function idTokenClaims(
  ctx: AuthContext,
  params: { user: UserRow; clientId: string; scopes: string; nonce: string | null },
  now = Math.floor(Date.now() / 1000),
): Record<string, unknown> {
  const { user, scopes } = params;
  return {
    iss: ctx.issuer,
    sub: user.id,
    aud: [params.clientId],
    exp: now + 3600,
    iat: now,
    auth_time: seconds(user.last_sign_in_at) ?? now,
    client_id: params.clientId,
    ...(params.nonce ? { nonce: params.nonce } : {}),
    ...(has(scopes, 'email') && user.email ? { email: user.email } : {}),
    // Required by OIDC whenever the scope is granted, so never left out.
    email_verified: has(scopes, 'email') && user.email_confirmed_at !== null,
    ...(has(scopes, 'phone') && user.phone ? { phone_number: user.phone } : {}),
    phone_number_verified: has(scopes, 'phone') && user.phone_confirmed_at !== null,
    ...(has(scopes, 'profile') ? profile(user) : {}),
  };
}

/**
 * GET /oauth/userinfo (OIDC Core §5.3): `sub`, then what the token's session was granted —
 * `email`, `profile` (with `user_metadata`) and `phone` claims. A token of a session that no
 * OAuth client holds has no scopes, so it gets `sub` alone.
 */
export function userInfoRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  routes.get('/oauth/userinfo', async (c) => {
    const { user, sessionId } = await requireUser(c, ctx);
    const { rows } = sessionId
      ? await ctx.db.query<{ scopes: string | null }>(
          'select scopes from auth.sessions where id = $1',
          [sessionId],
        )
      : { rows: [] };
    const scopes = rows[0]?.scopes ?? null;
    const info: Record<string, unknown> = { sub: user.id };
    if (has(scopes, 'email')) {
      if (user.email) info.email = user.email;
      if (user.email_confirmed_at) info.email_verified = true;
    }
    if (has(scopes, 'profile')) {
      Object.assign(info, profile(user));
      if (user.raw_user_meta_data) info.user_metadata = user.raw_user_meta_data;
    }
    if (has(scopes, 'phone')) {
      if (user.phone) info.phone = user.phone;
      if (user.phone_confirmed_at) info.phone_verified = true;
    }
    c.header('cache-control', 'no-store');
    return c.json(info);
  });
}
