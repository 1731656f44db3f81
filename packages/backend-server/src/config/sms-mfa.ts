/**
 * Settings of phone sign-in (SMS) and multi-factor authentication, with their defaults.
 * Part of the one config loader (`resolveConfig` in `resolve.ts` calls these).
 */

/** A Twilio-compatible SMS API (`POST <baseUrl>/2010-04-01/Accounts/<sid>/Messages.json`). */
export interface TwilioOptions {
  /** Account SID (basic-auth user and part of the path). */
  accountSid: string;
  /** Auth token (basic-auth password). */
  authToken: string;
  /** Messaging service SID or sender number (`From`). */
  messageServiceSid: string;
  /** WhatsApp content template SID; when set, WhatsApp messages send it with the code. */
  contentSid?: string;
  /** API base URL. Default `https://api.twilio.com`. */
  baseUrl?: string;
}

/** Phone sign-up, sign-in and phone change by SMS code (the hosted `[auth.sms]`). */
export interface SmsOptions {
  /** Phone sign-ups and sign-ins (the hosted phone provider). Default false, as hosted. */
  enabled?: boolean;
  /** Phone sign-ups are confirmed at once, without a code. Default true (`enable_confirmations = false`). */
  autoconfirm?: boolean;
  /**
   * Where codes go. `outbox` (default): kept in the SMS outbox (`GET /_dev/sms`) and logged;
   * `twilio`: sent through {@link SmsOptions.twilio} (and kept in the outbox too); `none`: no
   * provider, sending fails as on a hosted project without one.
   */
  provider?: 'outbox' | 'twilio' | 'none';
  /** The Twilio-compatible API, for `provider: 'twilio'`. */
  twilio?: TwilioOptions;
  /** Message text; `{{ .Code }}` is replaced by the code. Default `Your code is {{ .Code }}`. */
  template?: string;
  /** Seconds before another code may be sent to the same user. Default 60. */
  maxFrequency?: number;
  /** Seconds a code stays valid. Default 60. */
  otpExpiry?: number;
  /** Digits of a code, 6–10. Default 6. */
  otpLength?: number;
  /**
   * Fixed codes for test numbers (`{ "15550001111": "123456" }`): nothing is sent to them and
   * the code always verifies, as the hosted `[auth.sms.test_otp]`.
   */
  testOtp?: Record<string, string>;
  /** Test codes stop working after this time (ISO 8601). Default never. */
  testOtpValidUntil?: string;
}

/** Multi-factor authentication (the hosted `[auth.mfa]`). */
export interface MfaOptions {
  /** Most factors a user may have, verified or not. Default 10. */
  maxEnrolledFactors?: number;
  /** Most verified factors a user may have. Default 10. */
  maxVerifiedFactors?: number;
  /** Authenticator-app factors: enrolment and verification. Default both true. */
  totp?: { enroll?: boolean; verify?: boolean };
  /**
   * SMS code factors: enrolment and verification (default both false, as hosted: opt-in), code
   * length (6–10, default 6), message template and the least seconds between two codes (60).
   */
  phone?: {
    enroll?: boolean;
    verify?: boolean;
    otpLength?: number;
    template?: string;
    maxFrequency?: number;
  };
  /**
   * WebAuthn (security key / passkey) factors: enrolment and verification. Default both false,
   * as hosted (opt-in). The relying party is `auth.webauthn`.
   *
   * @example
   * startServer({ auth: { mfa: { webauthn: { enroll: true, verify: true } } } });
   */
  webauthn?: { enroll?: boolean; verify?: boolean };
  /** Seconds a challenge can be verified. Default 300 (the least allowed). */
  challengeExpiry?: number;
  /** Seconds an unverified factor without challenges is kept. Default 300 (the least allowed). */
  factorExpiry?: number;
}

export interface ResolvedSms {
  enabled: boolean;
  autoconfirm: boolean;
  provider: 'outbox' | 'twilio' | 'none';
  twilio: TwilioOptions | null;
  template: string;
  maxFrequency: number;
  otpExpiry: number;
  otpLength: number;
  testOtp: Record<string, string>;
  testOtpValidUntil: number | null;
}

export interface ResolvedMfa {
  maxEnrolledFactors: number;
  maxVerifiedFactors: number;
  totp: { enroll: boolean; verify: boolean };
  phone: {
    enroll: boolean;
    verify: boolean;
    otpLength: number;
    template: string;
    maxFrequency: number;
  };
  webauthn: { enroll: boolean; verify: boolean };
  challengeExpiry: number;
  factorExpiry: number;
}

const TEMPLATE = 'Your code is {{ .Code }}';
const otpLength = (n: number | undefined) => (n && n >= 6 && n <= 10 ? Math.floor(n) : 6);
/** A phone number as stored: digits only (no `+`, no spaces). */
export const formatPhone = (phone: string) => phone.trim().replace(/^\+/, '').replace(/ /g, '');

export function resolveSms(o: SmsOptions = {}): ResolvedSms {
  const provider = o.provider ?? 'outbox';
  if (!['outbox', 'twilio', 'none'].includes(provider)) {
    throw new Error('auth.sms.provider must be "outbox", "twilio" or "none"');
  }
  if (provider === 'twilio' && !o.twilio) throw new Error('auth.sms.twilio is required');
  const until = o.testOtpValidUntil ? Date.parse(o.testOtpValidUntil) : null;
  if (until !== null && Number.isNaN(until)) {
    throw new Error('auth.sms.testOtpValidUntil must be an ISO 8601 time');
  }
  return {
    enabled: o.enabled ?? false,
    autoconfirm: o.autoconfirm ?? true,
    provider,
    twilio: o.twilio ?? null,
    template: o.template || TEMPLATE,
    maxFrequency: o.maxFrequency ?? 60,
    otpExpiry: o.otpExpiry || 60,
    otpLength: otpLength(o.otpLength),
    testOtp: Object.fromEntries(
      Object.entries(o.testOtp ?? {}).map(([phone, code]) => [formatPhone(phone), String(code)]),
    ),
    testOtpValidUntil: until,
  };
}

export function resolveMfa(o: MfaOptions = {}): ResolvedMfa {
  return {
    maxEnrolledFactors: o.maxEnrolledFactors ?? 10,
    maxVerifiedFactors: o.maxVerifiedFactors ?? 10,
    totp: { enroll: o.totp?.enroll ?? true, verify: o.totp?.verify ?? true },
    phone: {
      enroll: o.phone?.enroll ?? false,
      verify: o.phone?.verify ?? false,
      otpLength: otpLength(o.phone?.otpLength),
      template: o.phone?.template || TEMPLATE,
      maxFrequency: o.phone?.maxFrequency || 60,
    },
    webauthn: { enroll: o.webauthn?.enroll ?? false, verify: o.webauthn?.verify ?? false },
    challengeExpiry: Math.max(300, o.challengeExpiry ?? 300),
    factorExpiry: Math.max(300, o.factorExpiry ?? 300),
  };
}
