/**
 * What the console's replicas share on one PostgreSQL: its secret (the token of its links
 * and of a password login) and the request log of every replica (src/logs/cluster-log.ts).
 * In the private `_console` schema: no API role can read it; never dumped or exported.
 */
import type { Queryable } from '../db/index';

export const CONSOLE_SQL = /* sql */ `
create schema if not exists _console;
create table if not exists _console.secrets (
  name text primary key,
  value text not null,
  created_at timestamptz not null default now()
);
revoke all on _console.secrets from public;
`;

/**
 * The console token every replica accepts: the one the first replica stored, or `mine`
 * when there is none yet (stored now; concurrent starts agree on the first insert).
 */
export async function sharedConsoleToken(db: Queryable, mine: string): Promise<string> {
  await db.query(
    `insert into _console.secrets (name, value) values ('token', $1) on conflict (name) do nothing`,
    [mine],
  );
  // A statement of its own: it sees the row a replica that started alongside inserted first.
  const { rows } = await db.query<{ value: string }>(
    `select value from _console.secrets where name = 'token'`,
  );
  return rows[0]?.value ?? mine;
}
