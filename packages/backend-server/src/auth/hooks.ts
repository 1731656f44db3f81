/**
 * The auth hooks of a server (`auth.hooks`): where each one is called, with GoTrue's payloads
 * and its reading of the answers. hook-dispatch.ts runs them.
 */
import type { HookName, ResolvedHooks } from '../config/auth-hooks';
import type { Database, Queryable } from '../db/index';
import { dispatchHook, hookError, hookMetadata } from './hook-dispatch';

type JsonType = 'string' | 'integer' | 'object' | 'array' | 'null' | 'number' | 'boolean';

function typeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

/** GoTrue's minimum schema of the claims a hook returns: required members and their types. */
const CLAIM_TYPES: Record<string, readonly JsonType[]> = {
  aud: ['string', 'array'],
  exp: ['integer'],
  jti: ['string'],
  iat: ['integer'],
  iss: ['string'],
  nbf: ['integer'],
  sub: ['string'],
  email: ['string'],
  phone: ['string'],
  app_metadata: ['object'],
  user_metadata: ['object'],
  role: ['string'],
  aal: ['string'],
  amr: ['array'],
  session_id: ['string'],
  client_id: ['string'],
};
const REQUIRED = [
  'aud',
  'exp',
  'iat',
  'sub',
  'email',
  'phone',
  'role',
  'aal',
  'session_id',
  'is_anonymous',
];

/** The schema violations of hook output claims, in GoTrue's wording (empty when valid). */
export function claimProblems(claims: unknown): string[] {
  const kind = typeOf(claims);
  if (kind !== 'object') return [`(root): Invalid type. Expected: object, given: ${kind}`];
  const record = claims as Record<string, unknown>;
  const problems: string[] = [];
  for (const name of REQUIRED) {
    if (!(name in record)) problems.push(`(root): ${name} is required`);
  }
  for (const [name, types] of Object.entries(CLAIM_TYPES)) {
    if (!(name in record)) continue;
    const given = typeOf(record[name]);
    const fits = types.includes(given) || (given === 'integer' && types.includes('number'));
    if (!fits) {
      problems.push(`${name}: Invalid type. Expected: ${types.join('/')}, given: ${given}`);
    }
  }
  const amr = record.amr;
  if (Array.isArray(amr)) {
    amr.forEach((item, i) => {
      const t = typeOf(item);
      if (t !== 'string' && t !== 'object') {
        problems.push(`amr.${i}: Must validate at least one schema (anyOf)`);
      }
    });
  }
  return problems;
}

/** The `email_data` of the send-email hook, as GoTrue fills it. */
export interface EmailData {
  token: string;
  token_hash: string;
  redirect_to: string;
  email_action_type: string;
  site_url: string;
  token_new: string;
  token_hash_new: string;
}

/** A hook's decision on a verification attempt. */
export interface AttemptDecision {
  reject: boolean;
  message: string;
  shouldLogoutUser: boolean;
}

/** The configured hooks of one server; each call is a no-op when its hook is not configured. */
export interface AuthHooks {
  /** Is this hook configured (and enabled)? */
  has(name: HookName): boolean;
  /**
   * Runs the custom access-token hook, when configured, in the issuing transaction `q` as
   * GoTrue does, and returns the claims to sign: the hook's `claims`, or the given ones when
   * no hook is configured. Hook errors, missing or invalid output claims become the errors
   * GoTrue answers with.
   */
  customizeAccessToken(
    q: Queryable,
    input: { userId: string; claims: Record<string, unknown>; method: string },
  ): Promise<Record<string, unknown>>;
  /** Before a user is inserted (in `q`, or on its own): the hook may reject it with `{ error }`. */
  beforeUserCreated(q: Queryable | null, user: Record<string, unknown>): Promise<void>;
  /** Hands a mail to the send-email hook instead of the mailer. */
  sendEmail(user: Record<string, unknown>, emailData: EmailData): Promise<void>;
  /** Hands a code to the send-SMS hook instead of the SMS provider. */
  sendSms(
    user: Record<string, unknown> | null,
    sms: { otp: string; phone: string; sms_type?: string },
  ): Promise<void>;
  /** After checking an MFA code (outside the verify transaction): `reject` when the hook says so. */
  mfaVerificationAttempt(input: {
    userId: string;
    factorId: string;
    factorType: string;
    valid: boolean;
  }): Promise<AttemptDecision>;
  /** After checking a password: `reject` when the hook decided so. */
  passwordVerificationAttempt(input: { userId: string; valid: boolean }): Promise<AttemptDecision>;
}

const DEFAULT_MFA_REJECTION = 'Further MFA verification attempts will be rejected.';
const DEFAULT_PASSWORD_REJECTION = 'Further password verification attempts will be rejected.';

/** A verification hook's answer (`{ decision, message, should_logout_user }`), checked. */
function decision(answer: unknown, fallback: string): AttemptDecision {
  const a = (answer ?? {}) as Record<string, unknown>;
  const wrong = (key: string, type: string) => a[key] !== undefined && typeof a[key] !== type;
  if (
    typeof a !== 'object' ||
    Array.isArray(a) ||
    wrong('decision', 'string') ||
    wrong('message', 'string') ||
    wrong('should_logout_user', 'boolean')
  ) {
    throw hookError(500, 'Error unmarshaling JSON output.');
  }
  return {
    reject: a.decision === 'reject',
    message: (a.message as string | undefined) || fallback,
    shouldLogoutUser: a.should_logout_user === true,
  };
}

/** The hooks of a server from its resolved `auth.hooks` setting. */
export function createHooks(db: Database, hooks: ResolvedHooks): AuthHooks {
  const run = (name: HookName, q: Queryable | null, event: string, body: object) => {
    const hook = hooks[name];
    if (!hook) return Promise.resolve(null);
    return dispatchHook(db, q, hook, { metadata: hookMetadata(event), ...body });
  };
  return {
    has: (name) => hooks[name] !== undefined,
    async customizeAccessToken(q, { userId, claims, method }) {
      if (!hooks.customAccessToken) return claims;
      const parsed = await run('customAccessToken', q, 'customize-access-token', {
        user_id: userId,
        claims,
        authentication_method: method,
      });
      const result = (parsed ?? {}) as { claims?: unknown };
      if (parsed !== null && (typeof parsed !== 'object' || !('claims' in (parsed as object)))) {
        throw hookError(500, 'output claims field is missing');
      }
      const problems = claimProblems(result.claims ?? null);
      if (problems.length > 0) {
        throw hookError(
          500,
          `output claims do not conform to the expected schema: \n${problems.map((p) => `- ${p}\n`).join('')}`,
        );
      }
      return result.claims as Record<string, unknown>;
    },
    async beforeUserCreated(q, user) {
      await run('beforeUserCreated', q, 'before-user-created', { user });
    },
    async sendEmail(user, emailData) {
      await run('sendEmail', null, 'send-email', { user, email_data: emailData });
    },
    async sendSms(user, sms) {
      await run('sendSms', null, 'send-sms', { ...(user ? { user } : {}), sms });
    },
    async mfaVerificationAttempt(input) {
      if (!hooks.mfaVerificationAttempt) {
        return { reject: false, message: '', shouldLogoutUser: false };
      }
      const answer = await run('mfaVerificationAttempt', null, 'mfa-verification', {
        user_id: input.userId,
        factor_id: input.factorId,
        factor_type: input.factorType,
        valid: input.valid,
      });
      return decision(answer, DEFAULT_MFA_REJECTION);
    },
    async passwordVerificationAttempt(input) {
      if (!hooks.passwordVerificationAttempt) {
        return { reject: false, message: '', shouldLogoutUser: false };
      }
      const answer = await run('passwordVerificationAttempt', null, 'password-verification', {
        user_id: input.userId,
        valid: input.valid,
      });
      return decision(answer, DEFAULT_PASSWORD_REJECTION);
    },
  };
}
