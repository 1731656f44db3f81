import type { Context } from 'hono';
import { type JwtClaims, verifyJwt } from '../http/jwt';
import type { AppEnv } from '../service-module';
import type { AuthContext } from './context';
import { AuthError, badRequest, forbidden } from './errors';
import { findUser, type UserRow } from './users';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

/** The verified claims of the request's bearer token (the gateway's token). */
export async function requireClaims(c: Context<AppEnv>, ctx: AuthContext): Promise<JwtClaims> {
  const { token, hasUserToken, apiKey } = c.get('gateway');
  // The hosted gateway hands a legacy (JWT) key on as `Authorization: <key>`, without
  // "Bearer", when the caller sent no Authorization: the auth service then sees no token.
  // Only the new `sb_` keys become a bearer token.
  if (!token || (!hasUserToken && !apiKey?.startsWith('sb_'))) {
    throw new AuthError(401, 'no_authorization', 'This endpoint requires a valid Bearer token');
  }
  const result = verifyJwt(token, ctx.keys);
  if (!result.ok) {
    throw forbidden(
      'bad_jwt',
      `invalid JWT: unable to parse or verify signature, ${result.message}`,
    );
  }
  return result.claims;
}

/** Who is calling a user endpoint: the token's user and (when the token has one) session. */
export interface Caller {
  claims: JwtClaims;
  user: UserRow;
  sessionId: string | null;
}

/**
 * A user endpoint's caller: a valid token whose `sub` is an existing user and whose
 * `session_id` (when present) is still a live session — else the hosted 401/403 errors.
 */
export async function requireUser(c: Context<AppEnv>, ctx: AuthContext): Promise<Caller> {
  const claims = await requireClaims(c, ctx);
  const sub = claims.sub;
  if (typeof sub !== 'string' || sub === '') {
    throw forbidden('bad_jwt', 'invalid claim: missing sub claim');
  }
  if (!isUuid(sub)) throw badRequest('bad_jwt', 'invalid claim: sub claim must be a UUID');
  const sid = claims.session_id;
  const hasSession = sid !== undefined && sid !== null && sid !== '';
  if (hasSession && (typeof sid !== 'string' || !isUuid(sid))) {
    throw forbidden('bad_jwt', 'invalid claim: session_id claim must be a UUID');
  }
  // One query: the user, and whether the token's session still exists.
  const found = await findUser(
    ctx.db,
    'u.id = $1',
    [sub, hasSession ? sid : null],
    false,
    'exists (select 1 from auth.sessions s where s.id = $2::uuid and s.user_id = u.id) as live_session',
  );
  if (!found) throw forbidden('user_not_found', 'User from sub claim in JWT does not exist');
  const { live_session: live, ...user } = found as UserRow & { live_session: boolean };
  if (hasSession && !live) {
    throw forbidden('session_not_found', 'Session from session_id claim in JWT does not exist');
  }
  const sessionId = hasSession ? (sid as string) : null;
  // Tokens issued before a ban stop working at once.
  if (user.banned) throw forbidden('user_banned', 'User is banned');
  return { claims, user, sessionId };
}

const ADMIN_ROLES = new Set(['service_role', 'supabase_admin']);

/** Admin endpoints: a valid token whose role is an admin role, else 403 `not_admin`. */
export async function requireAdmin(c: Context<AppEnv>, ctx: AuthContext): Promise<void> {
  const claims = await requireClaims(c, ctx);
  if (typeof claims.role !== 'string' || !ADMIN_ROLES.has(claims.role)) {
    throw forbidden('not_admin', 'User not allowed');
  }
}
