import type { AuthRateLimits } from '../config/index';
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

/**
 * Fixed-window request counters per IP and per email address, in memory.
 * `false` limits turn every check into a no-op.
 */
export class RateLimiter {
  readonly #counts = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly limits: AuthRateLimits | false) {}

  /** Counts one request; throws 429 when it goes over the bucket's limit. */
  hit(bucket: Bucket, key: string): void {
    if (!this.limits) return;
    const max = this.limits[bucket];
    const now = Date.now();
    const id = `${bucket}:${key}`;
    let entry = this.#counts.get(id);
    if (!entry || entry.resetAt <= now) {
      if (this.#counts.size > 10_000) this.#sweep(now);
      entry = { count: 0, resetAt: now + WINDOWS[bucket] * 1000 };
      this.#counts.set(id, entry);
    }
    entry.count += 1;
    if (entry.count > max) {
      if (bucket === 'emailPerAddress') {
        throw new AuthError(429, 'over_email_send_rate_limit', 'Email rate limit exceeded');
      }
      if (bucket === 'smsSent') {
        throw new AuthError(429, 'over_sms_send_rate_limit', 'SMS rate limit exceeded');
      }
      throw new AuthError(429, 'over_request_rate_limit', 'Request rate limit reached');
    }
  }

  #sweep(now: number): void {
    for (const [id, entry] of this.#counts) if (entry.resetAt <= now) this.#counts.delete(id);
  }
}
