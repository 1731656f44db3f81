/**
 * The locks of tus uploads, one holder per upload across every replica on one database.
 *
 * On PostgreSQL a lock is a session advisory lock on a connection of its own (one per
 * replica, so in-flight uploads hold no pool connection), and a request that finds the lock
 * held asks its holder to let go with a NOTIFY, as the hosted storage service does: the holder
 * (a PATCH whose client stalled, most often) stops reading and unlocks, and the new request
 * retries until it gets the lock or the wait ends. Session locks are re-entrant, so the
 * replica's own holders are also kept in memory: two requests of one replica never share a
 * lock. On PGlite one process owns the database and the in-memory half is the whole lock.
 */
import type { Lock, Locker, RequestRelease } from '@tus/server';
import postgres from 'postgres';
import type { Database } from '../../db/types';
import { tusError } from './tus-ids';

/** The channel on which a request asks the holder of an upload's lock to let go. */
const RELEASE_CHANNEL = 'storage_tus_release';
/** The first key of every tus advisory lock ('tus'); the second is the upload id's hash. */
const LOCK_CLASS = 0x747573;
/** The longest pause between two attempts at a held lock. */
const MAX_PAUSE_MS = 500;

interface Holder {
  requestRelease?: RequestRelease;
}

/** A lock taken with {@link TusLocker.tryLock}. */
export interface HeldLock {
  unlock(): Promise<void>;
}

export class TusLocker implements Locker {
  readonly #holders = new Map<string, Holder>();
  #unlisten: (() => Promise<void>) | null = null;
  /** The backend of the lock connection: a new one means the old one's locks are gone. */
  #pid: number | null = null;

  private constructor(
    private readonly db: Database,
    private readonly sql: postgres.Sql | null,
    private readonly timeoutMs: number,
  ) {}

  /** Opens the locker of `db` (its own connection and release listener on PostgreSQL). */
  static async open(db: Database, timeoutMs = 30_000): Promise<TusLocker> {
    // A session of its own: on the database itself when the pool goes through a pooler.
    const url = db.kind === 'postgres' ? (db.sessionUrl ?? db.url) : null;
    const sql = url
      ? postgres(url, {
          max: 1,
          onnotice: () => {},
          connection: { application_name: 'backend-server tus locks' },
        })
      : null;
    const locker = new TusLocker(db, sql, timeoutMs);
    if (sql) {
      locker.#unlisten = await db.listen(RELEASE_CHANNEL, (id) => {
        void locker.#holders.get(id)?.requestRelease?.();
      });
    }
    return locker;
  }

  newLock(id: string): Lock {
    let holder: Holder | null = null;
    return {
      lock: async (signal, requestRelease) => {
        holder = await this.#acquire(id, signal, requestRelease);
      },
      unlock: async () => {
        if (!holder) throw new Error('Releasing an unlocked lock!');
        const held = holder;
        holder = null;
        await this.#release(id, held);
      },
    };
  }

  /** Takes `id`'s lock when nobody holds it (no wait, no release asked), else null. */
  async tryLock(id: string): Promise<HeldLock | null> {
    const holder: Holder = {};
    if (!(await this.#take(id, holder))) return null;
    return { unlock: () => this.#release(id, holder) };
  }

  async close(): Promise<void> {
    await this.#unlisten?.().catch(() => {});
    await this.sql?.end({ timeout: 5 });
  }

  async #acquire(id: string, signal: AbortSignal, requestRelease: RequestRelease) {
    const holder: Holder = { requestRelease };
    const deadline = Date.now() + this.timeoutMs;
    const asked = new WeakSet<Holder>();
    let pause = 20;
    for (;;) {
      if (signal.aborted) throw tusError(400, 'Request aborted due to lock acquired');
      const local = this.#holders.get(id);
      if (local) {
        // Held by a request of this replica: ask it once.
        if (!asked.has(local)) {
          asked.add(local);
          await local.requestRelease?.();
        }
      } else if (await this.#take(id, holder)) {
        return holder;
      } else {
        // Held on another replica: ask whoever holds it, at every attempt.
        await this.db.query('select pg_notify($1, $2)', [RELEASE_CHANNEL, id]);
      }
      if (Date.now() >= deadline) {
        throw tusError(423, 'The upload is locked by another request, try again later');
      }
      await sleep(pause, signal);
      pause = Math.min(pause * 2, MAX_PAUSE_MS);
    }
  }

  /** One attempt: the in-memory slot, then (on PostgreSQL) the advisory lock. */
  async #take(id: string, holder: Holder): Promise<boolean> {
    if (this.#holders.has(id)) return false;
    this.#holders.set(id, holder);
    if (!this.sql) return true;
    let ok = false;
    try {
      const [row] = await this.sql<{ ok: boolean; pid: number }[]>`
        select pg_try_advisory_lock(${LOCK_CLASS}::int, hashtext(${id})) as ok,
               pg_backend_pid() as pid`;
      ok = row?.ok === true;
      this.#sessionIs(row?.pid ?? null, holder);
      return ok;
    } finally {
      if (!ok && this.#holders.get(id) === holder) this.#holders.delete(id);
    }
  }

  /**
   * The lock connection was replaced (PostgreSQL ended the old session, and its locks with
   * it): every holder from before is asked to let go, as it no longer excludes anyone.
   */
  #sessionIs(pid: number | null, current: Holder) {
    if (pid === null || pid === this.#pid) return;
    const before = this.#pid;
    this.#pid = pid;
    if (before === null) return;
    for (const holder of this.#holders.values()) {
      if (holder !== current) void holder.requestRelease?.();
    }
  }

  async #release(id: string, holder: Holder) {
    if (this.#holders.get(id) !== holder) return;
    this.#holders.delete(id);
    const sql = this.sql;
    if (!sql) return;
    await sql`select pg_advisory_unlock(${LOCK_CLASS}::int, hashtext(${id}))`.catch(() => {});
  }
}

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
