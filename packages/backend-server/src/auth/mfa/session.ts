import type { Queryable, Transaction } from '../../db/index';
import type { AuthContext } from '../context';
import { secureAlphanumeric } from '../crypto';
import { AuthError, internal } from '../errors';
import { sessionResponse } from '../tokens';
import { AMR_METHOD, type Factor } from './factors';

/** The assurance level of a session (`aal1` when it has none recorded). */
export async function sessionAal(q: Queryable, sessionId: string): Promise<'aal1' | 'aal2'> {
  const { rows } = await q.query<{ aal: string | null }>(
    'select aal::text as aal from auth.sessions where id = $1',
    [sessionId],
  );
  return rows[0]?.aal === 'aal2' ? 'aal2' : 'aal1';
}

/**
 * With a verified factor, changing the password, email or phone needs an aal2 session
 * (401 `insufficient_aal`, as the hosted service).
 */
export async function requireAal2ForCredentials(
  ctx: AuthContext,
  user: { id: string; email: string | null; phone: string | null; factors?: { status: string }[] },
  sessionId: string | null,
  change: { password?: string; email?: string; phone?: string },
): Promise<void> {
  if (!user.factors?.some((f) => f.status === 'verified')) return;
  const changes =
    !!change.password ||
    (!!change.email && change.email !== (user.email ?? '')) ||
    (!!change.phone && change.phone !== (user.phone ?? ''));
  if (!changes) return;
  if (sessionId && (await sessionAal(ctx.db, sessionId)) === 'aal2') return;
  throw new AuthError(
    401,
    'insufficient_aal',
    'AAL2 session is required to update email or password when MFA is enabled.',
  );
}

/**
 * After a factor verified: the session gets the factor's `amr` entry and aal2, and a new
 * refresh token (the one it had is revoked, so only the holder of this response continues
 * at aal2); the user's other sessions below aal2 end, and the user's other unverified factors
 * of the same type go. Returns the new Session JSON.
 */
export async function raiseToAal2(
  tx: Transaction,
  ctx: AuthContext,
  sessionId: string,
  factor: Factor,
): Promise<Record<string, unknown>> {
  const child = secureAlphanumeric(16);
  const { rows } = await tx.query<{ token: string }>(
    `with claim as (
       insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method)
       values ($1, now(), now(), $3)
       on conflict (session_id, authentication_method) do update set updated_at = now()
     ), raised as (
       update auth.sessions set aal = 'aal2', factor_id = $2, updated_at = now() where id = $1
     )
     update auth.refresh_tokens set revoked = true, updated_at = now()
     where id = (select id from auth.refresh_tokens where session_id = $1 and revoked = false
                 order by id desc limit 1)
     returning token`,
    [sessionId, factor.id, AMR_METHOD[factor.type]],
  );
  const parent = rows[0]?.token;
  if (!parent) throw internal('Session has no active refresh token');
  await tx.query(
    `with child as (
       insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
       values ('00000000-0000-0000-0000-000000000000', $1, $2, false, now(), now(), $3, $4)
     ), others as (
       delete from auth.sessions where user_id = $7 and id <> $4 and aal < 'aal2'
     ), verified as (
       update auth.mfa_factors set status = 'verified', updated_at = now()
       where id = $5 and status <> 'verified'
     )
     delete from auth.mfa_factors where user_id = $7 and id <> $5
       and status = 'unverified' and factor_type = $6::auth.factor_type`,
    [child, factor.userId, parent, sessionId, factor.id, factor.type, factor.userId],
  );
  return sessionResponse(tx, ctx, {
    userId: factor.userId,
    sessionId,
    refreshToken: child,
    method: AMR_METHOD[factor.type],
  });
}
