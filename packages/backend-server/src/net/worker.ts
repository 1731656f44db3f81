/**
 * The pg_net worker: sends what `net.http_get` / `http_post` / `http_delete` queued (see
 * src/db/extensions/pg-net.ts) and records each answer in `net._http_response`.
 *
 * It listens on the `pg_net` channel, which Postgres delivers when the queuing transaction
 * commits, and drains the queue then (and once at start, for requests queued while no
 * server ran): no polling. Requests are claimed by deleting them from the queue with
 * `for update skip locked`, so servers sharing one PostgreSQL send each request once. At
 * most `concurrency` requests are in flight; answers are written in batches. Answers older
 * than `pg_net.ttl` (default 6 hours, as pg_net) are deleted at start and every
 * `pruneEveryMs`. Nothing here throws into the server: a database error is logged and the
 * next notification tries again. Without pg_net installed it stays idle.
 */
import type { Database } from '../db/index';
import { pgError } from '../db/index';
import { type QueuedRequest, type RecordedResponse, sendRequest } from './send';

export interface NetWorkerOptions {
  db: Database;
  /** The server's own URL: where gateway URLs of the local stack are sent. */
  selfUrl: string;
  log(message: string): void;
  /** Requests in flight at once. Default 50. */
  concurrency?: number;
  /** How often answers past their TTL are deleted. Default one minute. */
  pruneEveryMs?: number;
}

export interface NetWorker {
  /** Drains the queue now (what a notification does). */
  wake(): void;
  /** Resolves when the queue is empty and every answer is written. */
  idle(): Promise<void>;
  /** Deletes answers older than `pg_net.ttl`; resolves to how many. */
  prune(): Promise<number>;
  /** Stops listening, aborts requests in flight, waits for the worker to finish. */
  stop(): Promise<void>;
}

const CLAIM_SQL = `
  delete from net.http_request_queue q
  where q.id in (
    select id from net.http_request_queue order by id limit $1 for update skip locked)
  returning q.id::text, q.method::text, q.url, q.headers, q.body, q.timeout_milliseconds`;

const RECORD_SQL = `
  insert into net._http_response
    (id, status_code, content_type, headers, content, timed_out, error_msg)
  select r.id, r.status_code, r.content_type, r.headers, r.content, r.timed_out, r.error_msg
  from jsonb_to_recordset($1::text::jsonb) as r(id bigint, status_code integer,
    content_type text, headers jsonb, content text, timed_out boolean, error_msg text)`;

const PRUNE_SQL = `
  with gone as (
    delete from net._http_response
    where created < now() - coalesce(nullif(current_setting('pg_net.ttl', true), ''), '6 hours')::interval
    returning 1)
  select count(*)::int as n from gone`;

/** pg_net is not installed (or was dropped): nothing to do, and nothing to report. */
function notInstalled(error: unknown): boolean {
  const code = pgError(error)?.code;
  return code === '42P01' || code === '3F000';
}

export async function startNetWorker(options: NetWorkerOptions): Promise<NetWorker> {
  const { db, selfUrl, log } = options;
  const concurrency = options.concurrency ?? 50;
  const stopping = new AbortController();
  let inFlight = 0;
  let pumping = false;
  let wanted = false;
  let written: RecordedResponse[] = [];
  let writing: Promise<void> | null = null;
  let idleWaiters: (() => void)[] = [];

  const settleIdle = () => {
    if (pumping || wanted || inFlight > 0 || writing || written.length > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  const flush = () => {
    if (writing || written.length === 0) return;
    writing = (async () => {
      while (written.length > 0) {
        const rows = written;
        written = [];
        await db
          .query(RECORD_SQL, [JSON.stringify(rows)])
          .catch((error) =>
            log(`pg_net: recording ${rows.length} answers failed: ${String(error)}`),
          );
      }
    })().finally(() => {
      writing = null;
      settleIdle();
    });
  };

  const send = (request: QueuedRequest) => {
    inFlight++;
    void sendRequest(request, selfUrl, stopping.signal).then((row) => {
      inFlight--;
      if (!stopping.signal.aborted) {
        written.push(row);
        flush();
      }
      void pump();
    });
  };

  const pump = async () => {
    if (pumping || stopping.signal.aborted) return settleIdle();
    pumping = true;
    try {
      while (!stopping.signal.aborted && inFlight < concurrency) {
        wanted = false;
        const { rows } = await db.query<QueuedRequest>(CLAIM_SQL, [concurrency - inFlight]);
        for (const request of rows) send(request);
        if (rows.length === 0 && !wanted) break;
      }
    } catch (error) {
      wanted = false;
      if (!notInstalled(error)) log(`pg_net: reading the request queue failed: ${String(error)}`);
    } finally {
      pumping = false;
      settleIdle();
    }
  };

  const wake = () => {
    wanted = true;
    void pump();
  };

  const prune = async () => {
    try {
      const { rows } = await db.query<{ n: number }>(PRUNE_SQL);
      return rows[0]?.n ?? 0;
    } catch (error) {
      if (!notInstalled(error)) log(`pg_net: deleting old answers failed: ${String(error)}`);
      return 0;
    }
  };

  const unlisten = await db.listen('pg_net', wake);
  await prune();
  const timer = setInterval(() => void prune(), options.pruneEveryMs ?? 60_000);
  timer.unref();
  wake();

  return {
    wake,
    idle: () =>
      new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        settleIdle();
      }),
    prune,
    async stop() {
      clearInterval(timer);
      await unlisten().catch(() => {});
      stopping.abort();
      // In-flight requests end at once (aborted); wait for the claim and writes under way.
      while (pumping || writing || inFlight > 0) {
        await (writing ?? new Promise((resolve) => setTimeout(resolve, 5)));
      }
    },
  };
}
