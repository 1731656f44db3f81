import type { RestOptions } from '../config/index';
import { API_ROLE, type Queryable } from '../db/index';

/** How a transaction ends, and whether `Prefer: tx=` may change it (`db-tx-end`). */
export type TxEnd = 'commit' | 'commit-allow-override' | 'rollback' | 'rollback-allow-override';

/** The REST settings in effect: the server's options, overridden by in-database ones. */
export interface RestSettings {
  maxRows: number;
  aggregatesEnabled: boolean;
  planEnabled: boolean;
  txEnd: TxEnd;
  /** Schemas after the request's own in its search_path. */
  extraSearchPath: string[];
}

const TX_ENDS: readonly TxEnd[] = [
  'commit',
  'commit-allow-override',
  'rollback',
  'rollback-allow-override',
];

/**
 * In-database configuration, as the hosted REST service reads it: `pgrst.*` settings of the
 * API role (`alter role authenticator set pgrst.db_plan_enabled to 'true'`), the ones for
 * this database overriding the global ones; applied again on `notify pgrst, 'reload config'`.
 */
const DB_SETTINGS = `
select s.setdatabase <> 0 as this_database, kv
from pg_catalog.pg_db_role_setting s
join pg_catalog.pg_roles r on r.oid = s.setrole
cross join lateral unnest(s.setconfig) as kv
where r.rolname = $1
  and s.setdatabase in (0, (select oid from pg_catalog.pg_database where datname = current_database()))
  and kv like 'pgrst.%'
order by this_database`;

function bool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (['true', 'on', 'yes', '1'].includes(v)) return true;
  if (['false', 'off', 'no', '0'].includes(v)) return false;
  return undefined;
}

const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** The server's REST options as settings (before any in-database override). */
export function settingsOf(options: Required<RestOptions>): RestSettings {
  return {
    maxRows: options.maxRows,
    aggregatesEnabled: options.aggregatesEnabled,
    planEnabled: options.planEnabled,
    txEnd: options.txEnd,
    extraSearchPath: options.extraSearchPath,
  };
}

/** Reads the in-database settings and lays them over `base`. */
export async function loadSettings(db: Queryable, base: RestSettings): Promise<RestSettings> {
  const { rows } = await db.query<{ kv: string }>(DB_SETTINGS, [API_ROLE]);
  const found = new Map<string, string>();
  for (const { kv } of rows) {
    const eq = kv.indexOf('=');
    if (eq > 0) found.set(kv.slice('pgrst.'.length, eq), kv.slice(eq + 1));
  }
  const maxRows = Number(found.get('db_max_rows'));
  const txEnd = found.get('db_tx_end') as TxEnd | undefined;
  const extra = found.get('db_extra_search_path');
  return {
    maxRows: Number.isSafeInteger(maxRows) && maxRows > 0 ? maxRows : base.maxRows,
    aggregatesEnabled: bool(found.get('db_aggregates_enabled')) ?? base.aggregatesEnabled,
    planEnabled: bool(found.get('db_plan_enabled')) ?? base.planEnabled,
    txEnd: txEnd && TX_ENDS.includes(txEnd) ? txEnd : base.txEnd,
    extraSearchPath: extra !== undefined ? list(extra) : base.extraSearchPath,
  };
}
