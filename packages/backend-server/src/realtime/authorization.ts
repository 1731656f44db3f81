import { randomUUID } from 'node:crypto';
import {
  type Database,
  isRoleRefusal,
  pgError,
  switchRoleSql,
  type Transaction,
} from '../db/index';

/** Who asks for which private topic. */
export interface TopicContext {
  role: string;
  claims: Record<string, unknown>;
  /** The topic without the `realtime:` prefix. */
  topic: string;
  headers: Record<string, string>;
}

export type Extension = 'broadcast' | 'presence';

/**
 * The session the hosted service sets before evaluating realtime.messages policies; the role
 * switch is the one every service uses (a role the API role may not become is refused).
 */
const SET_CONTEXT = `select
  ${switchRoleSql('$1')},
  set_config('realtime.topic', $2, true),
  set_config('request.jwt.claims', $3, true),
  set_config('request.jwt.claim.sub', $4, true),
  set_config('request.jwt.claim.role', $5, true),
  set_config('request.headers', $6, true)`;

class Rollback<T> {
  constructor(readonly value: T) {}
}

/** Runs `fn` in a transaction that is always rolled back, returning its result. */
async function rolledBack<T>(db: Database, fn: (tx: Transaction) => Promise<T>): Promise<T> {
  try {
    await db.transaction(async (tx) => {
      throw new Rollback(await fn(tx));
    });
  } catch (error) {
    if (error instanceof Rollback) return error.value as T;
    throw error;
  }
  throw new Error('unreachable');
}

function setContext(tx: Transaction, ctx: TopicContext) {
  const sub = typeof ctx.claims.sub === 'string' ? ctx.claims.sub : '';
  return tx.query(SET_CONTEXT, [
    ctx.role,
    ctx.topic,
    JSON.stringify(ctx.claims),
    sub,
    ctx.role,
    JSON.stringify(ctx.headers),
  ]);
}

/**
 * Read permissions on a private topic, decided by SELECT policies on realtime.messages:
 * probe rows are written (as the server), then read back as the user; all rolled back.
 */
export function readPermissions(
  db: Database,
  ctx: TopicContext,
  extensions: readonly Extension[],
): Promise<Record<Extension, boolean>> {
  const probe = rolledBack(db, async (tx) => {
    const ids = extensions.map(() => randomUUID());
    await tx.query(
      `insert into realtime.messages (id, topic, extension, private)
       select id, $2, ext, true from unnest($1::uuid[], $3::text[]) as p(id, ext)`,
      [ids, ctx.topic, extensions],
    );
    await setContext(tx, ctx);
    const { rows } = await tx.query<{ id: string }>(
      'select id::text as id from realtime.messages where id = any($1::uuid[])',
      [ids],
    );
    const seen = new Set(rows.map((r) => r.id));
    const result = { broadcast: false, presence: false };
    extensions.forEach((ext, i) => {
      result[ext] = seen.has(ids[i] as string);
    });
    return result;
  });
  // A role the API role may not become reads nothing.
  return probe.catch((error: unknown) => {
    if (isRoleRefusal(error)) return { broadcast: false, presence: false };
    throw error;
  });
}

/**
 * Write permission on a private topic for one extension, decided by INSERT policies on
 * realtime.messages (the probe insert is rolled back).
 */
export function writePermission(
  db: Database,
  ctx: TopicContext,
  extension: Extension,
): Promise<boolean> {
  const probe = rolledBack(db, async (tx) => {
    await setContext(tx, ctx);
    await tx.query('savepoint realtime_probe');
    try {
      await tx.query(
        'insert into realtime.messages (topic, extension, private) values ($1, $2, true)',
        [ctx.topic, extension],
      );
      return true;
    } catch (error) {
      if (pgError(error)?.code !== '42501') throw error;
      await tx.query('rollback to savepoint realtime_probe');
      return false;
    }
  });
  return probe.catch((error: unknown) => {
    if (isRoleRefusal(error)) return false;
    throw error;
  });
}
