/**
 * `backend-server signing-keys list | add [--algorithm ES256|RS256] | rotate [KID] | revoke
 * KID`: the JWT signing keys of `_auth.signing_keys` from the command line, through the same
 * key table and changes as the console's `/_console/api/signing-keys` and
 * `server.signingKeys` (so running replicas see a change at once: it sends their NOTIFY).
 */
import { randomBytes } from 'node:crypto';
import { generateSigningKey } from '../config/keys';
import type { Database } from '../db/index';
import { SigningKeyTable } from '../http/signing-key-store';
import { SigningKeyError, type SigningKeyInfo, SigningKeys } from '../http/signing-keys';
import { DataError } from './restore';

export const SIGNING_KEYS_HELP = `  backend-server signing-keys list [DATABASE]
      The JWT signing keys (kid, algorithm, status; never a private part), the legacy
      secret first (kid "legacy").
  backend-server signing-keys add [--algorithm ES256|RS256] [DATABASE]
      A new key in standby (published in the JWKS, not signing yet); prints its kid.
  backend-server signing-keys rotate [KID] [DATABASE]
      The standby key (or KID; "legacy" for the legacy secret) signs from now on; the
      current one becomes previous (its tokens still verify).
  backend-server signing-keys revoke KID [DATABASE]
      Tokens signed by KID are refused at once, by every replica.
`;

const LEGACY = 'legacy';
const kidOf = (arg: string) => (arg === LEGACY ? null : arg);
const line = (k: SigningKeyInfo) => `${k.kid ?? LEGACY}  ${k.alg}  ${k.status}`;

/** Runs `signing-keys SUB [ARG]` on an open database; writes to `out`. */
export async function runSigningKeys(
  db: Database,
  sub: string | undefined,
  arg: string | undefined,
  algorithm: string | undefined,
  out: (line: string) => void,
): Promise<void> {
  if (!['list', 'add', 'rotate', 'revoke'].includes(sub ?? '') || (sub === 'revoke' && !arg)) {
    throw new DataError(
      'say signing-keys list, signing-keys add, signing-keys rotate [KID] or signing-keys revoke KID',
    );
  }
  if (algorithm !== undefined && algorithm !== 'ES256' && algorithm !== 'RS256') {
    throw new DataError('--algorithm is ES256 or RS256');
  }
  const { rows } = await db.query<{ n: number }>(
    'select count(*)::int as n from _auth.signing_keys',
  );
  if (!rows[0]?.n) {
    throw new DataError('this database has no signing keys yet: start the server on it once');
  }
  // The table's keys (the legacy secret's value is not stored, only its status: a stand-in
  // serves here, and nothing is signed).
  const keys = new SigningKeys(randomBytes(32).toString('hex'));
  const table = await SigningKeyTable.start(db, keys);
  try {
    if (sub === 'list') {
      for (const k of keys.list()) out(line(k));
    } else if (sub === 'add') {
      const key = await keys.add(generateSigningKey((algorithm ?? 'ES256') as 'ES256'));
      out(`Added ${line(key)}.`);
    } else if (sub === 'rotate') {
      const key = await keys.rotate(arg === undefined ? undefined : kidOf(arg));
      out(`Rotated: ${line(key)}.`);
    } else {
      const key = await keys.setStatus(kidOf(arg as string), 'revoked');
      out(`Revoked ${line(key)}.`);
    }
  } catch (error) {
    if (error instanceof SigningKeyError) throw new DataError(error.message);
    throw error;
  } finally {
    await table.stop();
  }
}
