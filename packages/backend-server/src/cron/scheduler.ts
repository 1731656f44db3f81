/**
 * The scheduler of the server's pg_cron (src/db/extensions/pg-cron.ts): reads `cron.job`,
 * sleeps until the next due time of any active job, runs the due ones and records each run
 * in `cron.job_run_details`. It does not poll: a change to `cron.job` notifies
 * `cron_job_changed`, which reloads the jobs, and one timer waits for the next due time.
 *
 * Each run is claimed in the database first (`cron.job_claim`: one row per job, the last due
 * time claimed; an upsert that only succeeds for a later due time and when no run of the job
 * is still running), after a lock on the job's row, which a manual run takes too. Replicas of the server on one PostgreSQL all wake for the same due time
 * and the row lock lets exactly one claim it; a job whose previous run is still going is not
 * started again. The command runs in a transaction as the job's `username` (`set local
 * role`): its changes commit when it succeeds; when it fails they are rolled back and the run
 * is recorded `failed` with Postgres' message.
 *
 * When `cron.job` is not the server's own (a real pg_cron installed on PostgreSQL), its
 * background worker runs the jobs and this scheduler stays idle.
 */

import { CRON_MARK } from '../db/extensions/pg-cron';
import type { Database, QueryResult } from '../db/index';
import { quoteIdent } from '../db/quote';
import { nextDue, parseSchedule, type Schedule } from './schedule';

/** Time and timers, injectable for tests. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

interface Job {
  jobid: string;
  schedule: string;
  command: string;
  database: string;
  username: string;
  /** The server's database: the only one its jobs can run in. */
  current: string;
  parsed: Schedule;
  due: number | null;
}

export interface CronScheduler {
  /** Reloads the jobs (also done on every change notified by `cron.job`). */
  reload(): Promise<void>;
  /** Stops the timer and waits for the runs in progress. */
  stop(): Promise<void>;
}

const LOAD_SQL = /* sql */ `
  select j.jobid::text as jobid, j.schedule, j.command, j.database, j.username,
         current_database() as current
    from cron.job j
   where j.active and to_regclass('cron.job_claim') is not null
     and obj_description('cron.job'::regclass, 'pg_class') = $1`;

const CLAIM_SQL = /* sql */ `
  with claim as (
    insert into cron.job_claim as c (jobid, last_due) values ($1::bigint, $2::timestamptz)
    on conflict (jobid) do update set last_due = excluded.last_due
     where c.last_due < excluded.last_due
       and not exists (select 1 from cron.job_run_details r
                        where r.jobid = $1::bigint and r.status in ('starting', 'running'))
    returning jobid)
  insert into cron.job_run_details
    (jobid, job_pid, database, username, command, status, start_time)
  select jobid, pg_backend_pid(), $3, $4, $5, 'running', clock_timestamp() from claim
  returning runid::text as runid`;

/**
 * Taken before a run is claimed, scheduled or manual, in the claim's transaction: the claim's
 * own statement then starts after any other claim of the job committed, so its check that no
 * run is going sees that run (one statement's snapshot would not).
 */
const LOCK_SQL = 'select 1 from cron.job where jobid = $1::bigint for update';

/** Runs `sql` after the job's lock, in one transaction; resolves its rows. */
async function claimRun<T>(db: Database, sql: string, params: unknown[]): Promise<T[]> {
  return await db.transaction(async (tx) => {
    await tx.query(LOCK_SQL, [params[0]]);
    return (await tx.query<T>(sql, params)).rows as T[];
  });
}

const FINISH_SQL = /* sql */ `
  update cron.job_run_details
     set status = $2, return_message = $3, end_time = clock_timestamp()
   where runid = $1::bigint`;

/**
 * Runs left 'running' by a server that stopped without finishing them (or brought by an
 * import: their backend served another database).
 */
const STALE_SQL = /* sql */ `
  update cron.job_run_details
     set status = 'failed', return_message = 'server restarted', end_time = clock_timestamp()
   where status in ('starting', 'running')
     and ($1 or job_pid not in (select pid from pg_stat_activity
                                 where datname = current_database() and pid is not null))`;

const lastStatement = (command: string) =>
  command
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean)
    .pop() ?? '';

/**
 * The run's `return_message` as pg_cron writes it: `N row(s)` for a statement that returns
 * rows, else the command's status (`INSERT 0 1`, `UPDATE 3`, `CREATE TABLE`, …). The drivers
 * give a statement's row count but not its status text, so the status is its verb and count.
 */
function statusOf(command: string, result: QueryResult | null): string {
  if (result && result.fields.length > 0)
    return `${result.rows.length} row${result.rows.length === 1 ? '' : 's'}`;
  const verb = (/^\s*(\w+)/.exec(command)?.[1] ?? '').toUpperCase();
  if (!result) return verb;
  if (verb === 'INSERT') return `INSERT 0 ${result.affectedRows}`;
  if (['UPDATE', 'DELETE', 'MERGE', 'SELECT', 'COPY', 'MOVE', 'FETCH'].includes(verb))
    return `${verb} ${result.affectedRows}`;
  return verb;
}

/** Runs a job's command once as its `username`, in a transaction; its run's `return_message`. */
async function runCommand(
  db: Database,
  job: Pick<Job, 'command' | 'database' | 'username' | 'current'>,
): Promise<string> {
  if (job.current !== job.database)
    throw new Error(`database "${job.database}" is not available to this server's scheduler`);
  return db.transaction(async (tx) => {
    await tx.query(`set local role ${quoteIdent(job.username)}`);
    await tx.query('savepoint cron_command');
    try {
      return statusOf(job.command, await tx.query(job.command));
    } catch (error) {
      // Several statements (PGlite's driver refuses them in one query): a script, whose
      // status is its last statement's verb.
      if (!/cannot insert multiple commands/.test((error as Error).message)) throw error;
      await tx.query('rollback to savepoint cron_command');
      await tx.exec(job.command);
      return statusOf(lastStatement(job.command), null);
    }
  });
}

const MANUAL_SQL = /* sql */ `
  insert into cron.job_run_details
    (jobid, job_pid, database, username, command, status, start_time)
  select j.jobid, pg_backend_pid(), j.database, j.username, j.command, 'running', clock_timestamp()
    from cron.job j
   where j.jobid = $1::bigint
     and not exists (select 1 from cron.job_run_details r
                      where r.jobid = j.jobid and r.status in ('starting', 'running'))
  returning runid::text as runid, database, username, command, current_database() as current`;

/**
 * Runs a job once now, outside its schedule (the console's "Run now"), as the scheduler runs
 * it: as the job's `username`, recorded in `cron.job_run_details`. Its schedule is not
 * changed. Resolves the run's id once it has finished, or null when there is no such job or
 * a run of it is still going (the scheduler does not start a job twice either).
 *
 * @example
 * await runJobNow(db, '1'); // '12': see cron.job_run_details where runid = 12
 */
export async function runJobNow(db: Database, jobid: string): Promise<string | null> {
  const rows = await claimRun<{
    runid: string;
    database: string;
    username: string;
    command: string;
    current: string;
  }>(db, MANUAL_SQL, [jobid]);
  const run = rows[0];
  if (!run) return null;
  let status = 'succeeded';
  let message: string;
  try {
    message = await runCommand(db, run);
  } catch (error) {
    status = 'failed';
    message = (error as Error).message;
  }
  await db.query(FINISH_SQL, [run.runid, status, message]);
  return run.runid;
}

/** Starts the scheduler on `db`; jobs scheduled later (or by a later migration) are picked up. */
export async function startCronScheduler(
  db: Database,
  options: { clock?: Clock; log?: (message: string) => void } = {},
): Promise<CronScheduler> {
  const clock = options.clock ?? SYSTEM_CLOCK;
  const log = options.log ?? (() => {});
  let jobs = new Map<string, Job>();
  let timer: unknown = null;
  let stopped = false;
  let loading: Promise<void> | null = null;
  let again = false;
  let firstLoad = true;
  const running = new Map<string, Promise<void>>();

  const arm = () => {
    if (timer !== null) clock.clearTimeout(timer);
    timer = null;
    if (stopped) return;
    let next = Number.POSITIVE_INFINITY;
    for (const job of jobs.values()) if (job.due !== null && job.due < next) next = job.due;
    if (next === Number.POSITIVE_INFINITY) return;
    // Timers beyond ~24.8 days overflow: wake earlier and look again.
    timer = clock.setTimeout(tick, Math.min(Math.max(0, next - clock.now()), 2 ** 30));
  };

  const tick = () => {
    timer = null;
    const now = clock.now();
    for (const job of jobs.values()) {
      if (job.due === null || job.due > now) continue;
      start(job, job.due);
      job.due = nextDue(job.parsed, Math.max(job.due, now));
    }
    arm();
  };

  const start = (job: Job, due: number) => {
    if (running.has(job.jobid) || stopped) return;
    const run = execute(job, due)
      .catch((error: unknown) => log(`cron job ${job.jobid}: ${(error as Error).message}`))
      .finally(() => running.delete(job.jobid));
    running.set(job.jobid, run);
  };

  const execute = async (job: Job, due: number) => {
    let claimed: { runid: string }[];
    try {
      claimed = await claimRun<{ runid: string }>(db, CLAIM_SQL, [
        job.jobid,
        new Date(due).toISOString(),
        job.database,
        job.username,
        job.command,
      ]);
    } catch (error) {
      // The extension was dropped, or the job deleted in between: look again.
      void reload();
      throw error;
    }
    const runid = claimed[0]?.runid;
    if (!runid) return; // another replica runs it, or its previous run is still going
    let status = 'succeeded';
    let message: string | null;
    try {
      message = await runCommand(db, job);
    } catch (error) {
      status = 'failed';
      message = (error as Error).message;
    }
    await db.query(FINISH_SQL, [runid, status, message]);
  };

  const load = async () => {
    const { rows } = await db
      .query<Omit<Job, 'parsed' | 'due'>>(LOAD_SQL, [CRON_MARK])
      .catch((error: { code?: string }) => {
        // No pg_cron (yet): nothing to run.
        if (error.code === '42P01' || error.code === '3F000') return { rows: [] };
        throw error;
      });
    const now = clock.now();
    const next = new Map<string, Job>();
    const reboot: Job[] = [];
    for (const row of rows) {
      const parsed = parseSchedule(row.schedule);
      if (!parsed) continue;
      const old = jobs.get(row.jobid);
      const due =
        old && old.schedule === row.schedule && old.due !== null ? old.due : nextDue(parsed, now);
      const job = { ...row, parsed, due };
      next.set(row.jobid, job);
      if (parsed.kind === 'reboot' && firstLoad) reboot.push(job);
    }
    if (firstLoad && rows.length > 0)
      await db.query(STALE_SQL, [db.kind === 'pglite']).catch(() => {});
    firstLoad = false;
    jobs = next;
    for (const job of reboot) start(job, now);
    arm();
  };

  const reload = async (): Promise<void> => {
    if (stopped) return;
    if (loading) {
      again = true;
      return loading;
    }
    loading = (async () => {
      do {
        again = false;
        await load().catch((error: Error) => log(`cron: cannot load jobs: ${error.message}`));
      } while (again && !stopped);
    })().finally(() => {
      loading = null;
    });
    return loading;
  };

  const unlisten = await db.listen('cron_job_changed', () => void reload());
  await reload();

  return {
    reload,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (timer !== null) clock.clearTimeout(timer);
      timer = null;
      await unlisten().catch(() => {});
      await loading;
      await Promise.all(running.values());
    },
  };
}
