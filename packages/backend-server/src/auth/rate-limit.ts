import type { AuthRateLimits } from '../config/index';
import type { Queryable } from '../db/index';
import { AuthError } from './errors';

type Bucket = keyof AuthRateLimits;

/** Window of each limit, in seconds. */
const WINDOWS: Record<Bucket, number> = {
  tokenPerIp: 300,
  signupPerIp: 3600,
  emailPerAddress: 3600,
  otpPerIp: 300,
  smsSent: 3600,
  mfaPerIp: 60,
  passkeyPerIp: 300,
};

/** Expired windows are deleted at most this often per process. */
const SWEEP_EVERY_MS = 60_000;

/**
 * The counters, in a private schema (not the app's, never dumped or exported): one row per
 * bucket and key, its count and the end of its window. Every replica on one database
 * counts in the same rows.
 */
export const RATE_LIMIT_SQL = /* sql */ `
create schema if not exists _auth;
create table if not exists _auth.rate_limits (
  key text primary key,
  hits integer not null,
  window_end timestamptz not null
);
create index if not exists rate_limits_window_end_idx on _auth.rate_limits (window_end);
`;

/**
 * One check: counts a hit and returns the count of the window. A window starts at the
 * first hit after the previous one ended and lasts the bucket's length (a fixed window per
 * key); the row of an ended window is started over.
 */
const HIT_SQL = /* sql */ `
insert into _auth.rate_limits as r (key, hits, window_end)
values ($1, 1, $2::timestamptz + make_interval(secs => $3))
on conflict (key) do update set
  hits = case when r.window_end <= $2::timestamptz then 1 else r.hits + 1 end,
  window_end = case when r.window_end <= $2::timestamptz then excluded.window_end else r.window_end end
returning hits`;

/** Deletes ended windows; rows another replica holds are left for the next sweep. */
const SWEEP_SQL = /* sql */ `
delete from _auth.rate_limits where key in (
  select key from _auth.rate_limits where window_end <= $1::timestamptz
  for update skip locked)`;

/** Counts a hit on `key` in a window of `seconds` (see HIT_SQL); the window's count. */
export async function countHit(
  db: Queryable,
  key: string,
  seconds: number,
  now: number,
): Promise<number> {
  const at = new Date(now).toISOString();
  const { rows } = await db.query<{ hits: number }>(HIT_SQL, [key, at, seconds]);
  return rows[0]?.hits ?? 0;
}

/** The hits counted on `key` in its window still open at `now` (0 when none is). */
export async function windowHits(db: Queryable, key: string, now: number): Promise<number> {
  const { rows } = await db.query<{ hits: number }>(
    'select hits from _auth.rate_limits where key = $1 and window_end > $2::timestamptz',
    [key, new Date(now).toISOString()],
  );
  return rows[0]?.hits ?? 0;
}

/** What a limiter needs besides its limits. */
export interface RateLimiterOptions {
  /** The clock, in milliseconds (tests move it). Default `Date.now`. */
  now?: () => number;
}

/**
 * Fixed-window request counters per IP and per email address, counted in the database
 * with one statement per check, so replicas on one database share them.
 * `false` limits turn every check into a no-op.
 */
export class RateLimiter {
  readonly #now: () => number;
  #nextSweep = 0;

  constructor(
    private readonly limits: AuthRateLimits | false,
    private readonly db: Queryable,
    options: RateLimiterOptions = {},
  ) {
    this.#now = options.now ?? Date.now;
  }

  /** Counts one request; throws 429 when it goes over the bucket's limit. */
  async hit(bucket: Bucket, key: string): Promise<void> {
    if (!this.limits) return;
    const max = this.limits[bucket];
    const now = this.#now();
    const at = new Date(now).toISOString();
    if (now >= this.#nextSweep) {
      this.#nextSweep = now + SWEEP_EVERY_MS;
      await this.db.query(SWEEP_SQL, [at]);
    }
    if ((await countHit(this.db, `${bucket}:${key}`, WINDOWS[bucket], now)) <= max) return;
    if (bucket === 'emailPerAddress') {
      throw new AuthError(429, 'over_email_send_rate_limit', 'Email rate limit exceeded');
    }
    if (bucket === 'smsSent') {
      throw new AuthError(429, 'over_sms_send_rate_limit', 'SMS rate limit exceeded');
    }
    throw new AuthError(429, 'over_request_rate_limit', 'Request rate limit reached');
  }
}
