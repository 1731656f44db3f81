import type { ServerConfig } from '../config';
import type { Database } from '../db/index';
import type { Outbox } from '../mail/index';
import type { SmsOutbox } from '../sms/index';
import type { RateLimiter } from './rate-limit';

/** What every auth route reads: settings, the database, the outbox and the limiter. */
export interface AuthContext {
  config: ServerConfig;
  db: Database;
  outbox: Outbox;
  /** Every SMS the server sends (`/_dev/sms`). */
  sms: SmsOutbox;
  limiter: RateLimiter;
  /** `iss` of access tokens: `<url>/auth/v1`. */
  issuer: string;
  /** The HS256 key. */
  secret: Uint8Array;
  /** One-time tokens (links and codes) are valid this long, in seconds. */
  otpExpiry: number;
  /** Anonymous sign-ins allowed. */
  anonymousUsers: boolean;
}
