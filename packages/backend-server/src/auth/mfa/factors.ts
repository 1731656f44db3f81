/**
 * MFA factors and challenges in `auth.mfa_factors` / `auth.mfa_challenges`, the columns the
 * hosted service uses.
 */
import type { Queryable } from '../../db/index';
import { notFound } from '../errors';
import { isUuid } from '../guard';
import { FACTOR_FIELDS, type FactorJson, factorJson } from '../users';

/** A factor with the fields the routes need besides its JSON. */
export interface Factor {
  json: FactorJson;
  id: string;
  userId: string;
  type: 'totp' | 'phone' | 'webauthn';
  verified: boolean;
  secret: string | null;
  phone: string | null;
  /** Seconds since the last challenge, or null when never challenged. */
  sinceChallenge: number | null;
  /** The credential of a verified WebAuthn factor (GoTrue's JSON shape). */
  webauthnCredential: unknown;
}

interface FactorQueryRow {
  json: FactorJson;
  user_id: string;
  secret: string | null;
  phone: string | null;
  since_challenge: number | null;
  web_authn_credential: unknown;
}

const SELECT = `select json_build_object(${FACTOR_FIELDS}) as json, f.user_id, f.secret, f.phone,
    f.web_authn_credential, extract(epoch from now() - f.last_challenged_at)::float8 as since_challenge
  from auth.mfa_factors f`;

function toFactor(row: FactorQueryRow): Factor {
  return {
    json: factorJson(row.json),
    id: row.json.id,
    userId: row.user_id,
    type: row.json.factor_type,
    verified: row.json.status === 'verified',
    secret: row.secret,
    phone: row.phone,
    sinceChallenge: row.since_challenge,
    webauthnCredential: row.web_authn_credential,
  };
}

/** The factors of a user, oldest first. */
export async function userFactors(q: Queryable, userId: string): Promise<Factor[]> {
  const { rows } = await q.query<FactorQueryRow>(
    `${SELECT} where f.user_id = $1 order by f.created_at, f.id`,
    [userId],
  );
  return rows.map(toFactor);
}

/** A factor of a user, by the id in the URL: 404 when it is not a UUID or not theirs. */
export async function ownedFactor(q: Queryable, userId: string, factorId: string): Promise<Factor> {
  if (!isUuid(factorId)) throw notFound('validation_failed', 'factor_id must be an UUID');
  const { rows } = await q.query<FactorQueryRow>(
    `${SELECT} where f.id = $1 and f.user_id = $2 for update of f`,
    [factorId, userId],
  );
  const row = rows[0];
  if (!row) throw notFound('mfa_factor_not_found', 'Factor not found');
  return toFactor(row);
}

/** Forgets unverified factors that were never challenged and are older than `seconds`. */
export async function deleteExpiredFactors(q: Queryable, seconds: number): Promise<void> {
  await q.query(
    `delete from auth.mfa_factors f where f.status <> 'verified'
       and not exists (select 1 from auth.mfa_challenges c where c.factor_id = f.id)
       and f.created_at + make_interval(secs => $1) < now()`,
    [seconds],
  );
}

/** Inserts a new unverified factor; returns its id. */
export async function insertFactor(
  q: Queryable,
  factor: {
    id: string;
    userId: string;
    type: 'totp' | 'phone' | 'webauthn';
    friendlyName: string;
    secret?: string;
    phone?: string;
  },
): Promise<void> {
  await q.query(
    `insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at,
       updated_at, secret, phone)
     values ($1, $2, $3, $4::auth.factor_type, 'unverified', now(), now(), $5, $6)`,
    [
      factor.id,
      factor.userId,
      factor.friendlyName,
      factor.type,
      factor.secret ?? null,
      factor.phone ?? null,
    ],
  );
}

/** The `amr` method a verified factor of each type adds to a session. */
export const AMR_METHOD = { totp: 'totp', phone: 'mfa/phone', webauthn: 'mfa/webauthn' } as const;

/**
 * Deletes a factor; sessions it raised to aal2 lose its `amr` entry and go back to aal1, as
 * the hosted service does on unenrolment.
 */
export async function deleteFactor(q: Queryable, factor: Factor): Promise<void> {
  await q.query(
    `with affected as (
       select id from auth.sessions where user_id = $1 and factor_id = $2
     ), claims as (
       delete from auth.mfa_amr_claims where session_id in (select id from affected)
         and authentication_method = $3
     ), sessions as (
       update auth.sessions set aal = 'aal1', factor_id = null where id in (select id from affected)
     )
     delete from auth.mfa_factors where id = $2`,
    [factor.userId, factor.id, AMR_METHOD[factor.type]],
  );
}
