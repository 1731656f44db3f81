import { randomUUID } from 'node:crypto';
import type { Transaction } from '../db/index';
import type { AuthContext } from './context';
import { secureAlphanumeric } from './crypto';
import { AuthError, badRequest, OAuthError } from './errors';
import { type AuthMethod, sessionResponse } from './tokens';

export type { AuthMethod } from './tokens';

/**
 * Starts a session for a user inside `tx`: the session row, its amr claim, the first refresh
 * token and `last_sign_in_at`; returns the Session JSON.
 */
export async function startSession(
  tx: Transaction,
  ctx: AuthContext,
  userId: string,
  method: AuthMethod,
  request: { userAgent?: string | undefined; oauthClientId?: string; scopes?: string } = {},
): Promise<Record<string, unknown>> {
  const sessionId = randomUUID();
  const refresh = secureAlphanumeric(16);
  // One statement (one round trip): the session, its amr claim, the first refresh token and
  // the sign-in time. Foreign keys are checked at the end of the statement.
  await tx.query(
    `with session as (
       insert into auth.sessions (id, user_id, created_at, updated_at, aal, user_agent, oauth_client_id, scopes)
       values ($1, $2, now(), now(), 'aal1', $3, $6, $7) returning id
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
    [
      sessionId,
      userId,
      request.userAgent ?? null,
      method,
      refresh,
      request.oauthClientId ?? null,
      request.scopes ?? null,
    ],
  );
  return sessionResponse(tx, ctx, { userId, sessionId, refreshToken: refresh, method });
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
  client_id: string | null;
}

const ALREADY_USED = () =>
  badRequest('refresh_token_already_used', 'Invalid Refresh Token: Already Used');

/**
 * The refresh_token grant with rotation (§2.5): a fresh token swaps for a child; a revoked
 * one returns the active child when it is its parent, is swapped again inside the reuse
 * interval, and otherwise revokes the whole session family. `clientId` is the OAuth client
 * that authenticated at `/oauth/token` (null at `/token`): a session issued to an OAuth client
 * refreshes only for that client, and other sessions only without one, as GoTrue.
 */
export async function refreshGrant(
  ctx: AuthContext,
  presented: string | undefined,
  clientId: string | null = null,
) {
  if (!presented) throw new OAuthError('invalid_request', 'refresh_token required');
  const outcome = await ctx.db.transaction(async (tx) => {
    const { rows } = await tx.query<TokenRow>(
      `select rt.id, rt.token, rt.user_id, rt.revoked, rt.parent, rt.session_id,
              rt.updated_at + make_interval(secs => $2) >= now() as reusable,
              u.banned_until > now() as banned,
              s.not_after is not null and s.not_after < now() as session_expired,
              s.oauth_client_id as client_id
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
    if (row.client_id && !clientId) {
      throw new OAuthError('invalid_client', 'Client authentication required for OAuth session');
    }
    if (row.client_id && row.client_id !== clientId) {
      throw new OAuthError('invalid_client', "Client does not match the session's OAuth client");
    }
    if (!row.client_id && clientId) {
      throw new OAuthError(
        'invalid_client',
        'Client authentication not allowed for non-OAuth session',
      );
    }
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
          session: await sessionResponse(tx, ctx, {
            userId: row.user_id,
            sessionId: row.session_id,
            refreshToken: current.token,
            method: 'token_refresh',
          }),
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
    return {
      session: await sessionResponse(tx, ctx, {
        userId: row.user_id,
        sessionId: row.session_id,
        refreshToken: child,
        method: 'token_refresh',
      }),
    };
  });
  // The family revocation is committed before the error is reported.
  if ('error' in outcome && outcome.error instanceof AuthError) throw outcome.error;
  return (outcome as { session: Record<string, unknown> }).session;
}
