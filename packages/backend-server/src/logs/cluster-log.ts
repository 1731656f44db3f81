import type { LogEntry } from '../console/api-types';
import type { Database } from '../db/index';
import type { LiveLog } from './log';

/**
 * The log of every replica on one PostgreSQL, in the private `_console` schema (no API role
 * can read it; never dumped or exported): one row per entry, tagged with its replica.
 */
export const CLUSTER_LOG_SQL = /* sql */ `
create schema if not exists _console;
create table if not exists _console.log_entries (
  id bigserial primary key,
  replica text not null,
  at timestamptz not null,
  entry jsonb not null
);
create index if not exists log_entries_at_idx on _console.log_entries (at);
revoke all on _console.log_entries from public;
`;

/** Entries waiting to be written at most; older ones are dropped while the database lags. */
const OUTBOX_MAX = 10_000;

export interface ClusterLogOptions {
  /** This replica's name in the entries. */
  replica: string;
  /** Rows kept, the newest (the console's `logCapacity`). */
  maxRows: number;
  /** Rows older than this are deleted (ms). Default a day. */
  maxAgeMs?: number;
  /** How often the entries pushed since are written, in one statement (ms). Default 250. */
  flushMs?: number;
  /** How often old rows are deleted (ms). Default 30 s. */
  sweepMs?: number;
  log?: (message: string) => void;
}

const INSERT_SQL = /* sql */ `
insert into _console.log_entries (replica, at, entry)
select $1, to_timestamp((e->>'time')::float8 / 1000), e - 'seq' - 'time'
  from jsonb_array_elements($2::text::jsonb) as e`;

const SWEEP_SQL = /* sql */ `
delete from _console.log_entries
 where at < now() - make_interval(secs => $1::float8 / 1000)
    or id <= (select id from _console.log_entries order by id desc offset $2 limit 1)`;

const COLUMNS = `id::float8 as seq, replica, (extract(epoch from at) * 1000)::float8 as time, entry`;

interface Row {
  seq: number;
  replica: string;
  time: number;
  entry: Omit<LogEntry, 'seq' | 'time'>;
}

const toEntry = (r: Row): LogEntry => ({
  ...r.entry,
  seq: r.seq,
  time: r.time,
  replica: r.replica,
});

/**
 * Writes what this replica's live log records to `_console.log_entries`, and reads the
 * whole cluster's log back for the console. Pushing stays what it was (the live log's ring
 * buffer, no I/O on a request's path): a timer writes the entries pushed since in one
 * statement, and now and then deletes rows past the retention (age and count). Used on
 * PostgreSQL only; on PGlite one process owns the database, so its live log is already the
 * whole log.
 */
export class ClusterLog {
  #outbox: LogEntry[] = [];
  #dropped = 0;
  #flushing: Promise<void> = Promise.resolve();
  #unfollow: () => void;
  #flushTimer: NodeJS.Timeout;
  #sweepTimer: NodeJS.Timeout;
  readonly replica: string;
  readonly capacity: number;

  constructor(
    private readonly db: Database,
    live: LiveLog,
    private readonly options: ClusterLogOptions,
  ) {
    this.replica = options.replica;
    this.capacity = options.maxRows;
    this.#unfollow = live.follow((entry) => {
      this.#outbox.push(entry);
      if (this.#outbox.length > OUTBOX_MAX) {
        this.#outbox.shift();
        this.#dropped += 1;
      }
    });
    this.#flushTimer = setInterval(() => void this.flush(), options.flushMs ?? 250);
    this.#sweepTimer = setInterval(() => void this.sweep(), options.sweepMs ?? 30_000);
    this.#flushTimer.unref();
    this.#sweepTimer.unref();
  }

  /** Writes the entries pushed so far (one write at a time). */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      if (this.#outbox.length === 0) return;
      const batch = this.#outbox;
      this.#outbox = [];
      try {
        await this.db.query(INSERT_SQL, [this.replica, JSON.stringify(batch)]);
      } catch (error) {
        this.#dropped += batch.length;
        this.options.log?.(`cluster log: ${batch.length} entries not written: ${String(error)}`);
      }
    });
    return this.#flushing;
  }

  /** Entries lost to a full outbox or a failed write since start. */
  get dropped(): number {
    return this.#dropped;
  }

  /**
   * The cluster's entries after `afterSeq`, oldest first (the newest `capacity` at most);
   * this replica's pending entries are written first, so they are among them.
   */
  async since(afterSeq = 0): Promise<LogEntry[]> {
    await this.flush();
    const { rows } = await this.db.query<Row>(
      `select * from (select ${COLUMNS} from _console.log_entries where id > $1
                       order by id desc limit $2) newest order by seq`,
      [afterSeq, this.capacity],
    );
    return rows.map(toEntry);
  }

  /** Number of the newest entry of the cluster (0 before the first). */
  async lastSeq(): Promise<number> {
    await this.flush();
    const { rows } = await this.db.query<{ seq: number }>(
      'select coalesce(max(id), 0)::float8 as seq from _console.log_entries',
    );
    return rows[0]?.seq ?? 0;
  }

  /** Deletes every replica's entries. */
  async clear(): Promise<void> {
    await this.flush();
    await this.db.query('delete from _console.log_entries');
  }

  /** Writes what is left and stops. */
  async stop(): Promise<void> {
    this.#unfollow();
    clearInterval(this.#flushTimer);
    clearInterval(this.#sweepTimer);
    await this.flush();
  }

  /** Deletes the rows past the retention (older than `maxAgeMs`, or past `maxRows`). */
  async sweep(): Promise<void> {
    await this.db
      .query(SWEEP_SQL, [this.options.maxAgeMs ?? 86_400_000, this.capacity])
      .catch((error) => this.options.log?.(`cluster log: sweep failed: ${String(error)}`));
  }
}
