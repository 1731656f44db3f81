/**
 * The project's S3 access keys beyond the configured one (the hosted dashboard's Storage →
 * S3 access keys): made, listed and deleted from the console and the CLI. SigV4 needs the
 * secret itself to check a signature (a hash would not do), so it is kept as is in the
 * private `_auth` schema, which no API role can read and which is neither dumped nor
 * exported (as the JWT signing keys). A request reads its key from the table, so a deleted
 * key is refused at once by every replica (no cache to expire, no notification to miss).
 */
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/index';

export const S3_KEYS_SQL = /* sql */ `
create schema if not exists _auth;
create table if not exists _auth.s3_access_keys (
  id text primary key,
  secret text not null,
  description text not null default '',
  created_at timestamptz not null default now()
);
revoke all on _auth.s3_access_keys from public;
`;

/** A stored key as listed: never its secret. */
export interface S3AccessKeyInfo {
  id: string;
  description: string;
  created_at: string;
}

/** A key just made: the only time its secret is answered. */
export interface NewS3AccessKey extends S3AccessKeyInfo {
  secret: string;
}

/** Longest description accepted (characters). */
export const MAX_DESCRIPTION = 200;

/** Why a description is refused, or null when it is fine. */
export function descriptionProblem(description: unknown): string | null {
  if (typeof description !== 'string') return 'The description must be a string.';
  if (description.length > MAX_DESCRIPTION)
    return `The description is over ${MAX_DESCRIPTION} characters.`;
  return null;
}

const INFO = `id, description, to_char(created_at at time zone 'UTC',
  'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at`;

/**
 * Makes a key: a 32-hex-digit id and a 64-hex-digit secret, as the hosted platform's.
 *
 * @example
 * const key = await createS3Key(db, 'CI uploads'); // key.secret: shown once
 */
export async function createS3Key(db: Queryable, description = ''): Promise<NewS3AccessKey> {
  const id = randomBytes(16).toString('hex');
  const secret = randomBytes(32).toString('hex');
  const { rows } = await db.query<S3AccessKeyInfo>(
    `insert into _auth.s3_access_keys (id, secret, description) values ($1, $2, $3)
     returning ${INFO}`,
    [id, secret, description.trim()],
  );
  const row = rows[0] as S3AccessKeyInfo;
  return { ...row, secret };
}

/** The stored keys, oldest first, without their secrets. */
export async function listS3Keys(db: Queryable): Promise<S3AccessKeyInfo[]> {
  const { rows } = await db.query<S3AccessKeyInfo>(
    `select ${INFO} from _auth.s3_access_keys order by created_at, id`,
  );
  return rows;
}

/** Deletes a key; false when there was none with that id. */
export async function deleteS3Key(db: Queryable, id: string): Promise<boolean> {
  const { affectedRows } = await db.query('delete from _auth.s3_access_keys where id = $1', [id]);
  return affectedRows > 0;
}

/** The secret of a stored key, or null. */
export async function s3KeySecret(db: Queryable, id: string): Promise<string | null> {
  const { rows } = await db.query<{ secret: string }>(
    'select secret from _auth.s3_access_keys where id = $1',
    [id],
  );
  return rows[0]?.secret ?? null;
}
