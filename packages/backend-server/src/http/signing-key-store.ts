import type { Database, Queryable } from '../db/index';
import type {
  SigningKeyStatus,
  SigningKeyStore,
  SigningKeys,
  StoredSigningKey,
} from './signing-keys';

/** The NOTIFY channel a replica announces a change of the key set on. */
export const SIGNING_KEYS_CHANNEL = 'signing_keys';

/** Key of the advisory lock held by every change and by the seeding at start. */
const LOCK_KEY = 7_290_113_021;

/** Default interval of the re-read that catches a missed notification, on PostgreSQL. */
export const DEFAULT_KEYS_REFRESH_MS = 10_000;

/**
 * The key set, in the private `_auth` schema (no API role can read it; it is neither dumped
 * nor exported): one row per JWK with its private part, and the legacy secret's status in
 * the row whose `kid` is `''` (the secret itself stays in the config).
 */
export const SIGNING_KEYS_SQL = /* sql */ `
create schema if not exists _auth;
create table if not exists _auth.signing_keys (
  kid text primary key,
  jwk jsonb,
  status text not null check (status in ('current', 'standby', 'previous', 'revoked')),
  ord integer not null default 0,
  updated_at timestamptz not null default now()
);
revoke all on _auth.signing_keys from public;
`;

const READ_SQL = 'select kid, jwk, status from _auth.signing_keys order by ord, kid';

const WRITE_SQL = /* sql */ `
insert into _auth.signing_keys as k (kid, jwk, status, ord)
select kid, jwk, status, ord
  from jsonb_to_recordset($1::text::jsonb) as r(kid text, jwk jsonb, status text, ord integer)
on conflict (kid) do update
   set jwk = excluded.jwk, status = excluded.status, ord = excluded.ord, updated_at = now()
 where (k.jwk, k.status, k.ord) is distinct from (excluded.jwk, excluded.status, excluded.ord)`;

const read = async (db: Queryable) =>
  (await db.query<StoredSigningKey>(READ_SQL)).rows.map((r) => ({
    kid: r.kid,
    jwk: r.jwk,
    status: r.status,
  }));

async function write(db: Queryable, rows: readonly StoredSigningKey[]): Promise<void> {
  await db.query('delete from _auth.signing_keys where kid <> all($1::text[])', [
    rows.map((r) => r.kid),
  ]);
  await db.query(WRITE_SQL, [JSON.stringify(rows.map((r, ord) => ({ ...r, ord })))]);
}

/**
 * The set to store at start: the config's keys when the table is empty; otherwise the
 * table's, plus the config's keys it does not know. Such a key keeps its status, except
 * that a key the config marks current becomes current only while the legacy secret signs
 * (which then becomes previous); after that it waits in standby for a rotation.
 */
export function seededKeys(
  table: readonly StoredSigningKey[],
  config: readonly StoredSigningKey[],
): StoredSigningKey[] {
  if (table.length === 0) return [...config];
  const out = table.map((r) => ({ ...r }));
  const known = new Set(out.map((r) => r.kid));
  for (const key of config) {
    if (known.has(key.kid)) continue;
    let status: SigningKeyStatus = key.status;
    if (status === 'current') {
      const legacy = out.find((r) => r.kid === '');
      if (legacy?.status === 'current') legacy.status = 'previous';
      else status = 'standby';
    }
    out.push({ ...key, status });
  }
  return out;
}

export interface KeyTableOptions {
  /** Re-read interval on PostgreSQL, the fallback of the notifications (ms). */
  refreshMs?: number;
  log?: (message: string) => void;
}

/**
 * The server's keys kept in `_auth.signing_keys`. At start the table is seeded from the
 * config (under an advisory lock, so replicas starting together seed once) and the server
 * loads what it holds. A change (add, rotate, revoke, …) runs in one transaction under the
 * same lock, on the table's current set, and sends a NOTIFY; on PostgreSQL every replica
 * LISTENs (on the database's one LISTEN connection) and re-reads the table, and re-reads it
 * every `refreshMs` as well in case a notification was missed. PGlite has one process: the
 * change is loaded in memory at once, nothing listens.
 */
export class SigningKeyTable implements SigningKeyStore {
  #unlisten: (() => Promise<void>) | null = null;
  #timer: NodeJS.Timeout | null = null;
  #reading: Promise<void> | null = null;
  #again = false;
  #seen = '';
  /** How many re-reads a notification started (tests tell the paths apart). */
  notified = 0;

  private constructor(
    private readonly db: Database,
    private readonly keys: SigningKeys,
    private readonly log: (message: string) => void,
  ) {}

  static async start(
    db: Database,
    keys: SigningKeys,
    options: KeyTableOptions = {},
  ): Promise<SigningKeyTable> {
    const table = new SigningKeyTable(db, keys, options.log ?? (() => {}));
    const stored = await db.transaction(async (tx) => {
      await table.#lock(tx);
      const rows = seededKeys(await read(tx), keys.stored());
      keys.copy().load(rows);
      await write(tx, rows);
      return read(tx);
    });
    table.#apply(stored);
    keys.attach(table);
    if (db.kind === 'postgres') {
      table.#unlisten = await db.listen(SIGNING_KEYS_CHANNEL, () => {
        table.notified += 1;
        void table.refresh();
      });
      table.#timer = setInterval(
        () => void table.refresh(),
        options.refreshMs ?? DEFAULT_KEYS_REFRESH_MS,
      );
      table.#timer.unref();
    }
    return table;
  }

  async change<T>(change: (keys: SigningKeys) => T): Promise<T> {
    const { result, rows } = await this.db.transaction(async (tx) => {
      await this.#lock(tx);
      const copy = this.keys.copy();
      copy.load(await read(tx));
      const result = change(copy);
      await write(tx, copy.stored());
      await tx.query('select pg_notify($1, $2)', [SIGNING_KEYS_CHANNEL, 'changed']);
      return { result, rows: await read(tx) };
    });
    this.#apply(rows);
    return result;
  }

  /** Reads the table again and loads it when it changed (one read at a time). */
  async refresh(): Promise<void> {
    if (this.#reading) {
      this.#again = true;
      return this.#reading;
    }
    this.#reading = (async () => {
      do {
        this.#again = false;
        try {
          this.#apply(await read(this.db));
        } catch (error) {
          this.log(`signing keys: re-reading the key table failed: ${String(error)}`);
        }
      } while (this.#again && this.#timer);
    })().finally(() => {
      this.#reading = null;
    });
    return this.#reading;
  }

  /** Stops listening and re-reading; the keys keep the last set read. */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.keys.attach(null);
    const unlisten = this.#unlisten;
    this.#unlisten = null;
    await unlisten?.().catch(() => {});
    await this.#reading;
  }

  #apply(rows: readonly StoredSigningKey[]): void {
    const seen = JSON.stringify(rows);
    if (seen === this.#seen) return;
    this.keys.load(rows);
    this.#seen = seen;
  }

  async #lock(tx: Queryable): Promise<void> {
    if (this.db.kind === 'postgres')
      await tx.query('select pg_advisory_xact_lock($1::bigint)', [LOCK_KEY]);
  }
}
