import type { Queryable } from '../db/index';
import type { AuthContext } from './context';
import { badRequest } from './errors';
import { findUserById, type UserRow, userJson } from './users';

/** How a token was obtained: the `authentication_method` the access-token hook receives. */
export type AuthMethod =
  | 'password'
  | 'otp'
  | 'anonymous'
  | 'recovery'
  | 'invite'
  | 'magiclink'
  | 'email/signup'
  | 'email_change'
  | 'token_refresh'
  | (string & {});

/** What an access token says about its session: id, assurance level and methods used. */
export interface TokenSession {
  id: string;
  aal: string;
  amr: { method: string; timestamp: number }[];
  /** The OAuth client the session was issued to (the OAuth 2.1 server), else null. */
  clientId: string | null;
  /** The scopes the OAuth client was granted (space-separated), else null. */
  scopes: string | null;
}

/** The claims of an access token before the hook sees them (GoTrue's order of fields). */
export type AccessTokenClaims = Record<string, unknown> & {
  aud: string;
  exp: number;
  iat: number;
  iss: string;
  sub: string;
  role: string;
  session_id: string;
};

/** A session's aal and amr entries (newest first), as the token carries them. */
export async function loadTokenSession(q: Queryable, sessionId: string): Promise<TokenSession> {
  const { rows } = await q.query<{
    aal: string | null;
    method: string | null;
    ts: number | null;
    client_id: string | null;
    scopes: string | null;
  }>(
    `select s.aal::text as aal, s.oauth_client_id as client_id, s.scopes,
            c.authentication_method as method,
            extract(epoch from c.updated_at)::int as ts
     from auth.sessions s left join auth.mfa_amr_claims c on c.session_id = s.id
     where s.id = $1 order by c.updated_at desc`,
    [sessionId],
  );
  return {
    id: sessionId,
    aal: rows[0]?.aal ?? 'aal1',
    amr: rows.flatMap((r) => (r.method ? [{ method: r.method, timestamp: r.ts ?? 0 }] : [])),
    clientId: rows[0]?.client_id ?? null,
    scopes: rows[0]?.scopes ?? null,
  };
}

/** The claims of a user's access token for a session, issued now. */
export function accessTokenClaims(
  ctx: AuthContext,
  user: UserRow,
  session: TokenSession,
  now = Math.floor(Date.now() / 1000),
): AccessTokenClaims {
  return {
    aud: user.aud || 'authenticated',
    exp: now + ctx.config.auth.jwtExpiry,
    iat: now,
    iss: ctx.issuer,
    sub: user.id,
    email: user.email ?? '',
    phone: user.phone ?? '',
    app_metadata: user.raw_app_meta_data ?? {},
    user_metadata: user.raw_user_meta_data ?? {},
    role: user.role || 'authenticated',
    aal: session.aal,
    amr: session.amr,
    session_id: session.id,
    is_anonymous: user.is_anonymous,
    // Tokens of the OAuth 2.1 server name their client (`auth.jwt() ->> 'client_id'` in RLS)
    // and the scopes it was granted.
    ...(session.clientId ? { client_id: session.clientId } : {}),
    ...(session.scopes ? { scope: session.scopes } : {}),
  };
}

/**
 * Issues an access token: the only place tokens are made. The claims are built from the user
 * and session, passed through the custom access-token hook when one is configured (it runs
 * in `q`, the issuing transaction), then signed with the current signing key.
 */
export async function issueAccessToken(
  q: Queryable,
  ctx: AuthContext,
  params: { user: UserRow; session: TokenSession; method: AuthMethod },
): Promise<{ token: string; exp: number }> {
  const claims = accessTokenClaims(ctx, params.user, params.session);
  const final = await ctx.hooks.customizeAccessToken(q, {
    userId: params.user.id,
    claims,
    method: params.method,
  });
  // As GoTrue: the session's expires_at is the issued expiry, whatever the hook set.
  return { token: ctx.keys.sign(final), exp: claims.exp };
}

/**
 * The Session JSON (access token, refresh token, user) for a refresh token of a session.
 * `method` is how this token was obtained (`token_refresh` on refresh).
 */
export async function sessionResponse(
  q: Queryable,
  ctx: AuthContext,
  params: { userId: string; sessionId: string; refreshToken: string; method: AuthMethod },
): Promise<Record<string, unknown>> {
  const user = await findUserById(q, params.userId);
  if (!user) throw badRequest('user_not_found', 'User not found');
  const session = await loadTokenSession(q, params.sessionId);
  const { token, exp } = await issueAccessToken(q, ctx, { user, session, method: params.method });
  return {
    access_token: token,
    token_type: 'bearer',
    expires_in: ctx.config.auth.jwtExpiry,
    expires_at: exp,
    refresh_token: params.refreshToken,
    user: userJson(user),
  };
}
