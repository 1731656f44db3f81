import type { ServerConfig } from '../config/index';
import type { Database } from '../db/index';
import type { SigningKeys } from '../http/signing-keys';
import type { Outbox } from '../mail/index';
import type { SmsOutbox } from '../sms/index';
import type { AuthHooks } from './hooks';
import type { OidcCache } from './oauth/oidc';
import type { EmulatorCodes } from './oauth/providers';
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
  /** The signing keys: the current one signs access tokens, all trusted ones verify. */
  keys: SigningKeys;
  /** The configured auth hooks (the custom access-token hook). */
  hooks: AuthHooks;
  /** One-time tokens (links and codes) are valid this long, in seconds. */
  otpExpiry: number;
  /** Anonymous sign-ins allowed. */
  anonymousUsers: boolean;
  /** Discovery documents and keys of OpenID providers. */
  oidc: OidcCache;
  /** Codes of the emulated provider's sign-in page. */
  emulatorCodes: EmulatorCodes;
}
