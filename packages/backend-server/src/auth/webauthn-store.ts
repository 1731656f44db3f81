/**
 * Passkeys and their ceremonies in `auth.webauthn_credentials` / `auth.webauthn_challenges`
 * (the hosted tables). Byte columns travel as hex text, converted in SQL.
 */
import { pgError, type Queryable } from '../db/index';
import { unprocessable } from './errors';
import { iso } from './users';
import type { CeremonyData, NewCredential, StoredCredential } from './webauthn';

/** A passkey as the hosted list and management endpoints show it. */
export interface PasskeyItem {
  id: string;
  friendly_name?: string;
  created_at: string;
  last_used_at?: string;
}

const ITEM = `json_build_object('id', w.id, 'friendly_name', w.friendly_name,
    'created_at', ${iso('w.created_at')}, 'last_used_at', ${iso('w.last_used_at')})`;

/** Drops what the hosted JSON leaves out when empty (`friendly_name`, `last_used_at`). */
function item(raw: {
  id: string;
  friendly_name: string;
  created_at: string;
  last_used_at: string | null;
}): PasskeyItem {
  return {
    id: raw.id,
    ...(raw.friendly_name ? { friendly_name: raw.friendly_name } : {}),
    created_at: raw.created_at,
    ...(raw.last_used_at ? { last_used_at: raw.last_used_at } : {}),
  };
}

type ItemRow = { item: Parameters<typeof item>[0] };

/** A user's passkeys, oldest first. */
export async function listPasskeys(q: Queryable, userId: string): Promise<PasskeyItem[]> {
  const { rows } = await q.query<ItemRow>(
    `select ${ITEM} as item from auth.webauthn_credentials w where w.user_id = $1
     order by w.created_at, w.id`,
    [userId],
  );
  return rows.map((r) => item(r.item));
}

/** One passkey of a user, or null. */
export async function findPasskey(
  q: Queryable,
  id: string,
  userId: string,
): Promise<PasskeyItem | null> {
  const { rows } = await q.query<ItemRow>(
    `select ${ITEM} as item from auth.webauthn_credentials w where w.id = $1 and w.user_id = $2`,
    [id, userId],
  );
  return rows[0] ? item(rows[0].item) : null;
}

interface CredentialRow {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: string;
  sign_count: string | number;
  transports: string[];
}

const CREDENTIAL = `w.id, w.user_id, encode(w.credential_id, 'hex') as credential_id,
  encode(w.public_key, 'hex') as public_key, w.sign_count, w.transports`;

const stored = (row: CredentialRow): StoredCredential => ({
  id: Buffer.from(row.credential_id, 'hex').toString('base64url'),
  publicKey: new Uint8Array(Buffer.from(row.public_key, 'hex')),
  counter: Number(row.sign_count),
  transports: Array.isArray(row.transports) ? row.transports : [],
});

/** The credentials of a user's passkeys (to exclude them from a new registration). */
export async function userCredentials(q: Queryable, userId: string): Promise<StoredCredential[]> {
  const { rows } = await q.query<CredentialRow>(
    `select ${CREDENTIAL} from auth.webauthn_credentials w where w.user_id = $1
     order by w.created_at`,
    [userId],
  );
  return rows.map(stored);
}

/** The passkey with a credential id (base64url), locked for the sign-in that uses it. */
export async function passkeyByCredentialId(
  q: Queryable,
  credentialId: string,
): Promise<{ id: string; userId: string; credential: StoredCredential } | null> {
  const hex = Buffer.from(credentialId, 'base64url').toString('hex');
  const { rows } = await q.query<CredentialRow>(
    `select ${CREDENTIAL} from auth.webauthn_credentials w
     where w.credential_id = decode($1, 'hex') for update`,
    [hex],
  );
  const row = rows[0];
  return row ? { id: row.id, userId: row.user_id, credential: stored(row) } : null;
}

export async function countPasskeys(q: Queryable, userId: string): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    'select count(*)::int as n from auth.webauthn_credentials where user_id = $1',
    [userId],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Stores a verified credential as a passkey of a user; a known credential id → 422. */
export async function insertPasskey(
  q: Queryable,
  userId: string,
  credential: NewCredential,
  friendlyName: string,
): Promise<{ id: string; friendly_name?: string; created_at: string }> {
  try {
    const { rows } = await q.query<ItemRow>(
      `insert into auth.webauthn_credentials as w (user_id, credential_id, public_key,
         attestation_type, aaguid, sign_count, transports, backup_eligible, backed_up, friendly_name)
       values ($1, decode($2, 'hex'), decode($3, 'hex'), $4, $5::uuid, $6, $7::text::jsonb, $8, $9, $10)
       returning ${ITEM} as item`,
      [
        userId,
        Buffer.from(credential.id, 'base64url').toString('hex'),
        Buffer.from(credential.publicKey).toString('hex'),
        credential.attestationType,
        credential.aaguid,
        credential.counter,
        JSON.stringify(credential.transports),
        credential.backupEligible,
        credential.backedUp,
        friendlyName,
      ],
    );
    const { last_used_at: _unused, ...created } = item((rows[0] as ItemRow).item);
    return created;
  } catch (error) {
    if (pgError(error)?.code === '23505') {
      throw unprocessable('webauthn_credential_exists', 'This credential is already registered');
    }
    throw error;
  }
}

/** Records a sign-in with a passkey: the new counter and the time. */
export async function recordPasskeyUse(
  q: Queryable,
  id: string,
  counter: number,
  backedUp: boolean,
): Promise<void> {
  await q.query(
    `update auth.webauthn_credentials set sign_count = $2, backed_up = $3,
       last_used_at = now(), updated_at = now() where id = $1`,
    [id, counter, backedUp],
  );
}

export async function renamePasskey(
  q: Queryable,
  id: string,
  userId: string,
  name: string,
): Promise<PasskeyItem | null> {
  const { rows } = await q.query<ItemRow>(
    `update auth.webauthn_credentials w set friendly_name = $3, updated_at = now()
     where w.id = $1 and w.user_id = $2 returning ${ITEM} as item`,
    [id, userId, name],
  );
  return rows[0] ? item(rows[0].item) : null;
}

/** Deletes a passkey of a user; false when there was none. */
export async function deletePasskey(q: Queryable, id: string, userId: string): Promise<boolean> {
  const { rows } = await q.query(
    'delete from auth.webauthn_credentials where id = $1 and user_id = $2 returning id',
    [id, userId],
  );
  return rows.length > 0;
}

export type ChallengeType = 'registration' | 'authentication';

/** Keeps an open ceremony; expired ones older than a day are swept on the way. */
export async function saveChallenge(
  q: Queryable,
  params: { userId: string | null; type: ChallengeType; data: CeremonyData; seconds: number },
): Promise<{ id: string; expiresAt: number }> {
  const { rows } = await q.query<{ id: string; expires_at: number }>(
    `with swept as (
       delete from auth.webauthn_challenges where expires_at < now() - interval '1 day'
     )
     insert into auth.webauthn_challenges (user_id, challenge_type, session_data, expires_at)
     values ($1, $2, $3::text::jsonb, now() + make_interval(secs => $4))
     returning id, extract(epoch from expires_at)::bigint as expires_at`,
    [params.userId, params.type, JSON.stringify(params.data), params.seconds],
  );
  const row = rows[0] as { id: string; expires_at: number };
  return { id: row.id, expiresAt: Number(row.expires_at) };
}

/**
 * Takes an open ceremony out (once: a second try finds nothing), as GoTrue does before it
 * looks at the answer. Null when there is none of that type for that user (or, for sign-in,
 * none without a user).
 */
export async function consumeChallenge(
  q: Queryable,
  id: string,
  type: ChallengeType,
  userId: string | null,
): Promise<{ data: CeremonyData; expired: boolean } | null> {
  const { rows } = await q.query<{ session_data: CeremonyData; expired: boolean }>(
    `delete from auth.webauthn_challenges
     where id = $1 and challenge_type = $2 and user_id is not distinct from $3::uuid
     returning session_data, expires_at < now() as expired`,
    [id, type, userId],
  );
  const row = rows[0];
  return row ? { data: row.session_data, expired: row.expired } : null;
}
