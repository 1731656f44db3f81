import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Queryable, Transaction } from '../db/index';
import type { AuthContext } from './context';
import { secureAlphanumeric } from './crypto';
import { AuthError, badRequest, OAuthError } from './errors';
import { findUserById, type UserRow, userJson } from './users';

/** How a session was started (the `amr` method). */
export type AuthMethod =
  | 'password'
  | 'otp'
  | 'anonymous'
  | 'recovery'
  | 'invite'
  | 'magiclink'
  | 'email/signup'
  | 'email_change'
  | 'token_refresh';

interface SessionInfo {
  id: string;
  aal: string;
  amr: { method: string; timestamp: number }[];
}

async function sessionInfo(q: Queryable, sessionId: string): Promise<SessionInfo> {
  const { rows } = await q.query<{ aal: string | null; method: string | null; ts: number | null }>(
    `select s.aal::text as aal, c.authentication_method as method,
            extract(epoch from c.updated_at)::int as ts
     from auth.sessions s left join auth.mfa_amr_claims c on c.session_id = s.id
     where s.id = $1 order by c.updated_at desc`,
    [sessionId],
  );
  return {
    id: sessionId,
    aal: rows[0]?.aal ?? 'aal1',
    amr: rows.flatMap((r) => (r.method ? [{ method: r.method, timestamp: r.ts ?? 0 }] : [])),
  };
}

/** Signs the access token of §2.4 for a user and session. */
async function accessToken(ctx: AuthContext, user: UserRow, session: SessionInfo) {
  const now = Math.floor(Date.now() / 1000);
  const exp = now + ctx.config.auth.jwtExpiry;
  const token = await new SignJWT({
    aud: user.aud ?? 'authenticated',
    exp,
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
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(ctx.secret);
  return { token, exp };
}

/** The Session JSON of §2.3 for a refresh token of a session. */
export async function sessionResponse(
  tx: Queryable,
  ctx: AuthContext,
  userId: string,
  sessionId: string,
  refreshToken: string,
): Promise<Record<string, unknown>> {
  const user = await findUserById(tx, userId);
  if (!user) throw badRequest('user_not_found', 'User not found');
  const { token, exp } = await accessToken(ctx, user, await sessionInfo(tx, sessionId));
  return {
    access_token: token,
    token_type: 'bearer',
    expires_in: ctx.config.auth.jwtExpiry,
    expires_at: exp,
    refresh_token: refreshToken,
    user: userJson(user),
  };
}

/**
 * Starts a session for a user inside `tx`: the session row, its amr claim, the first refresh
 * token and `last_sign_in_at`; returns the Session JSON.
 */
export async function startSession(
  tx: Transaction,
  ctx: AuthContext,
  userId: string,
  method: AuthMethod,
  request: { userAgent?: string | undefined } = {},
): Promise<Record<string, unknown>> {
  const sessionId = randomUUID();
  const refresh = secureAlphanumeric(16);
  // One statement (one round trip): the session, its amr claim, the first refresh token and
  // the sign-in time. Foreign keys are checked at the end of the statement.
  await tx.query(
    `with session as (
       insert into auth.sessions (id, user_id, created_at, updated_at, aal, user_agent)
       values ($1, $2, now(), now(), 'aal1', $3) returning id
     ), amr as (
       insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method)
       select id, now(), now(), $4 from session
     ), token as (
       insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, session_id)
       select '00000000-0000-0000-0000-000000000000', $5, $2::text, false, now(), now(), id from session
     ), signed_in as (
       update auth.users set last_sign_in_at = now(), updated_at = now() where id = $2
     )
     update auth.identities set last_sign_in_at = now() where user_id = $2`,
    [sessionId, userId, request.userAgent ?? null, method, refresh],
  );
  return sessionResponse(tx, ctx, userId, sessionId, refresh);
}

interface TokenRow {
  id: string;
  token: string;
  user_id: string;
  revoked: boolean;
  parent: string | null;
  session_id: string | null;
  reusable: boolean;
  banned: boolean | null;
  session_expired: boolean | null;
}

const ALREADY_USED = () =>
  badRequest('refresh_token_already_used', 'Invalid Refresh Token: Already Used');

/**
 * The refresh_token grant with rotation (§2.5): a fresh token swaps for a child; a revoked
 * one returns the active child when it is its parent, is swapped again inside the reuse
 * interval, and otherwise revokes the whole session family.
 */
export async function refreshGrant(ctx: AuthContext, presented: string | undefined) {
  if (!presented) throw new OAuthError('invalid_request', 'refresh_token required');
  const outcome = await ctx.db.transaction(async (tx) => {
    const { rows } = await tx.query<TokenRow>(
      `select rt.id, rt.token, rt.user_id, rt.revoked, rt.parent, rt.session_id,
              rt.updated_at + make_interval(secs => $2) >= now() as reusable,
              u.banned_until > now() as banned,
              s.not_after is not null and s.not_after < now() as session_expired
       from auth.refresh_tokens rt
       left join auth.sessions s on s.id = rt.session_id
       left join auth.users u on u.id::text = rt.user_id
       where rt.token = $1 for update of rt`,
      [presented, ctx.config.auth.refreshTokenReuseInterval],
    );
    const row = rows[0];
    if (!row)
      throw badRequest('refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
    if (!row.session_id)
      throw badRequest('session_not_found', 'Invalid Refresh Token: Session Not Found');
    if (row.banned) throw badRequest('user_banned', 'Invalid Refresh Token: User Banned');
    if (row.session_expired)
      throw badRequest('session_expired', 'Invalid Refresh Token: Session Expired');
    if (row.revoked) {
      const active = await tx.query<{ token: string; parent: string | null }>(
        `select token, parent from auth.refresh_tokens
         where session_id = $1 and revoked = false order by id desc limit 1`,
        [row.session_id],
      );
      const current = active.rows[0];
      if (current && current.parent === row.token) {
        return {
          session: await sessionResponse(tx, ctx, row.user_id, row.session_id, current.token),
        };
      }
      if (!row.reusable) {
        await tx.query(
          `update auth.refresh_tokens set revoked = true, updated_at = now()
           where session_id = $1 and revoked = false`,
          [row.session_id],
        );
        return { error: ALREADY_USED() };
      }
    } else {
      await tx.query(
        `update auth.refresh_tokens set revoked = true, updated_at = now() where id = $1`,
        [row.id],
      );
    }
    const child = secureAlphanumeric(16);
    await tx.query(
      `with child as (
         insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
         values ('00000000-0000-0000-0000-000000000000', $1, $2, false, now(), now(), $3, $4)
       )
       update auth.sessions set updated_at = now(), refreshed_at = now() at time zone 'UTC'
       where id = $4`,
      [child, row.user_id, row.token, row.session_id],
    );
    return { session: await sessionResponse(tx, ctx, row.user_id, row.session_id, child) };
  });
  // The family revocation is committed before the error is reported.
  if ('error' in outcome && outcome.error instanceof AuthError) throw outcome.error;
  return (outcome as { session: Record<string, unknown> }).session;
}
