/**
 * Phone numbers and SMS codes as the hosted service handles them: E.164 numbers stored as
 * digits, codes by SMS through the configured provider (or the outbox), fixed test codes,
 * the per-user resend interval and the global SMS rate limit.
 */
import { formatPhone } from '../config/sms-mfa';
import type { Queryable } from '../db/index';
import { SmsProviderError, type SmsType, sendTwilio } from '../sms/index';
import type { AuthContext } from './context';
import { generateOtp, tokenHash } from './crypto';
import { AuthError, badRequest, internal, unprocessable } from './errors';
import { setOneTimeToken } from './mailer';
import { findUserById, userJson } from './users';

const E164 = /^[1-9][0-9]{1,14}$/;
export const INVALID_PHONE = 'Invalid phone number format (E.164 required)';
export const INVALID_CHANNEL =
  "Invalid channel, supported values are 'sms' or 'whatsapp'. 'whatsapp' is only supported if Twilio or Twilio Verify is used as the provider.";

/** A phone number in E.164 (`+` and spaces allowed), as stored: digits only; else 400. */
export function validatePhone(phone: string): string {
  const formatted = formatPhone(phone);
  if (!E164.test(formatted)) throw badRequest('validation_failed', INVALID_PHONE);
  return formatted;
}

/** The message channel of a request: `sms` by default; `whatsapp` with Twilio or the outbox. */
export function checkChannel(ctx: AuthContext, channel: string | undefined): 'sms' | 'whatsapp' {
  const value = channel || 'sms';
  if (value === 'sms') return 'sms';
  if (value === 'whatsapp' && ctx.config.auth.sms.provider !== 'none') return 'whatsapp';
  throw badRequest('validation_failed', INVALID_CHANNEL);
}

/** The fixed code of a test number while test codes are valid, else null. */
export function testOtp(ctx: AuthContext, phone: string): string | null {
  const { testOtp: codes, testOtpValidUntil: until } = ctx.config.auth.sms;
  if (until !== null && Date.now() >= until) return null;
  return codes[phone] ?? null;
}

/** The text of a message: the template with `{{ .Code }}` replaced. */
export const smsText = (template: string, code: string) =>
  template.replace(/\{\{\s*\.Code\s*\}\}/g, code);

/** "For security purposes, you can only request this after N seconds." (429). */
export const tooSoon = (seconds: number) =>
  new AuthError(
    429,
    'over_sms_send_rate_limit',
    `For security purposes, you can only request this after ${Math.max(0, Math.floor(seconds))} seconds.`,
  );

/**
 * Sends a new code to a number through the provider (kept in the SMS outbox too) and returns
 * the code and the provider's message id. Provider errors are the caller's `failure`. With a
 * send-SMS hook, the hook gets the code instead (with the user, when there is one yet).
 */
export async function deliverCode(
  ctx: AuthContext,
  sms: {
    phone: string;
    type: SmsType;
    channel: 'sms' | 'whatsapp';
    template: string;
    digits: number;
    failure: (reason: string) => AuthError;
    /** The user the code is for (null: not created yet). */
    userId: string | null;
  },
): Promise<{ otp: string; messageId: string | null }> {
  if (ctx.hooks.has('sendSms')) {
    const otp = generateOtp(sms.digits);
    const user = sms.userId ? await findUserById(ctx.db, sms.userId) : null;
    await ctx.hooks.sendSms(user ? userJson(user) : null, {
      otp,
      phone: sms.phone,
      ...(sms.type === 'mfa' ? { sms_type: 'mfa' } : {}),
    });
    return { otp, messageId: null };
  }
  const { provider, twilio } = ctx.config.auth.sms;
  if (provider === 'none') throw internal('Unable to get SMS provider');
  const otp = generateOtp(sms.digits);
  const body = smsText(sms.template, otp);
  let messageId: string | null = null;
  if (provider === 'twilio') {
    if (!twilio?.accountSid || !twilio.authToken || !twilio.messageServiceSid) {
      throw internal('Unable to get SMS provider');
    }
    try {
      messageId = await sendTwilio(twilio, { to: sms.phone, body, channel: sms.channel, otp });
    } catch (error) {
      if (error instanceof SmsProviderError) throw sms.failure(error.message);
      throw error;
    }
  }
  await ctx.sms.record({
    to: sms.phone,
    body,
    channel: sms.channel,
    type: sms.type,
    otp,
    provider,
    message_id: messageId,
  });
  return { otp, messageId };
}

/** The user columns of each kind of phone code. */
const COLUMNS = {
  confirmation: ['confirmation_token', 'confirmation_sent_at', 'confirmation_token'],
  phone_change: ['phone_change_token', 'phone_change_sent_at', 'phone_change_token'],
  reauthentication: [
    'reauthentication_token',
    'reauthentication_sent_at',
    'reauthentication_token',
  ],
} as const;

type PhoneCodeKind = keyof typeof COLUMNS;

/** A code on its way: its stored form and the provider's message id. */
export interface PhoneCode {
  kind: PhoneCodeKind;
  phone: string;
  hash: string;
  messageId: string | null;
}

/**
 * Sends a code of `kind` to `phone` (the new number for `phone_change`), outside any
 * transaction: 429 when the user's last one is more recent than the resend interval (no
 * check for a user not created yet); a test number gets its fixed code and no message.
 * Store the returned code with {@link storePhoneCode}.
 */
export async function sendPhoneCode(
  ctx: AuthContext,
  userId: string | null,
  phone: string,
  kind: PhoneCodeKind,
  channel: 'sms' | 'whatsapp',
): Promise<PhoneCode> {
  const [, sentColumn] = COLUMNS[kind];
  const { sms } = ctx.config.auth;
  if (userId) {
    const { rows } = await ctx.db.query<{ wait: number | null }>(
      `select extract(epoch from ${sentColumn} + make_interval(secs => $2) - now())::float8 as wait
       from auth.users where id = $1`,
      [userId, sms.maxFrequency],
    );
    const wait = rows[0]?.wait ?? null;
    if (wait !== null && wait > 0) throw tooSoon(wait);
  }
  const test = testOtp(ctx, phone);
  if (test) return { kind, phone, hash: tokenHash(phone, test), messageId: 'test-otp' };
  if (!sms.autoconfirm) await ctx.limiter.hit('smsSent', 'all');
  const sent = await deliverCode(ctx, {
    phone,
    type: kind,
    channel,
    template: sms.template,
    digits: sms.otpLength,
    failure: (reason) =>
      unprocessable('sms_send_failed', `Error sending ${kind} OTP to provider: ${reason}`),
    userId,
  });
  return { kind, phone, hash: tokenHash(phone, sent.otp), messageId: sent.messageId };
}

/** Stores a sent code on its user (and in auth.one_time_tokens). */
export async function storePhoneCode(q: Queryable, userId: string, code: PhoneCode) {
  const [tokenColumn, sentColumn, tokenType] = COLUMNS[code.kind];
  await q.query(
    `update auth.users set ${tokenColumn} = $2, ${sentColumn} = now(),
       phone_change = case when $3 then $4 else phone_change end, updated_at = now()
     where id = $1`,
    [userId, code.hash, code.kind === 'phone_change', code.phone],
  );
  await setOneTimeToken(q, userId, tokenType, code.hash, code.phone);
}
