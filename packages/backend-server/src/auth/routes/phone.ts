/**
 * The phone halves of sign-up, `/otp`, `/resend` and `/verify`: codes by SMS, numbers in
 * E.164, the hosted messages. The email halves stay in their own route files.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import type { Queryable, Transaction } from '../../db/index';
import type { AppEnv } from '../../service-module';
import type { AuthContext } from '../context';
import { tokenHash } from '../crypto';
import { badRequest, forbidden, unprocessable } from '../errors';
import { clearOneTimeTokens } from '../mailer';
import { checkStrength, hashPassword } from '../passwords';
import { checkChannel, sendPhoneCode, storePhoneCode, testOtp, validatePhone } from '../phone';
import { startSession } from '../sessions';
import {
  admitNewUser,
  findUser,
  findUserById,
  findUserByPhone,
  insertUser,
  uniqueConflict,
  userJson,
} from '../users';
import { clientIp, userAgent } from './util';

const UNSUPPORTED_PROVIDER = 'Unsupported phone provider';
const phoneDisabled = (message: string) => badRequest('phone_provider_disabled', message);

/** Marks the user's phone confirmed (and its phone identity verified). */
export async function confirmPhone(q: Queryable, userId: string): Promise<void> {
  await q.query(
    `with identity as (
       update auth.identities set identity_data = identity_data || '{"phone_verified": true}'::jsonb,
         updated_at = now() where user_id = $1 and provider = 'phone'
     )
     update auth.users set phone_confirmed_at = coalesce(phone_confirmed_at, now()),
       confirmation_token = '', is_anonymous = false, updated_at = now() where id = $1`,
    [userId],
  );
  await clearOneTimeTokens(q, userId, ['confirmation_token']);
}

/** `app_metadata.providers` from the user's identities, oldest first (as the hosted service). */
async function syncProviders(q: Queryable, userId: string): Promise<void> {
  await q.query(
    `update auth.users u set raw_app_meta_data = coalesce(u.raw_app_meta_data, '{}'::jsonb)
       || jsonb_build_object('providers', p.list, 'provider', p.list -> 0)
     from (select coalesce(jsonb_agg(provider order by first), '[]'::jsonb) as list
           from (select provider, min(created_at) as first from auth.identities
                 where user_id = $1 group by provider) i) p
     where u.id = $1 and jsonb_array_length(p.list) > 0`,
    [userId],
  );
}

/** Completes a phone change: the new number becomes the user's, confirmed, with an identity. */
export async function applyPhoneChange(tx: Transaction, userId: string): Promise<void> {
  try {
    await tx.query(
      `insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
       select id::text, id, jsonb_build_object('sub', id::text, 'phone', phone_change,
                'phone_verified', true, 'email_verified', false), 'phone', now(), now()
       from auth.users where id = $1
       on conflict (provider_id, provider) do update set identity_data =
         auth.identities.identity_data || jsonb_build_object('phone', excluded.identity_data ->> 'phone',
           'phone_verified', true), updated_at = now()`,
      [userId],
    );
    await tx.query(
      `update auth.users set phone = phone_change, phone_change = '', phone_change_token = '',
         phone_confirmed_at = now(), is_anonymous = false, updated_at = now() where id = $1`,
      [userId],
    );
  } catch (error) {
    throw uniqueConflict(error) ?? error;
  }
  await clearOneTimeTokens(tx, userId, ['phone_change_token']);
  await syncProviders(tx, userId);
}

interface PhoneSignup {
  phone: string;
  password?: string;
  data?: Record<string, unknown>;
  channel?: string;
  code_challenge?: string;
}

/** POST /signup with a phone number. */
export async function phoneSignup(c: Context<AppEnv>, ctx: AuthContext, body: PhoneSignup) {
  const { sms } = ctx.config.auth;
  if (!body.password) throw badRequest('validation_failed', 'Signup requires a valid password');
  checkStrength(body.password, ctx.config.auth.passwordMinLength);
  const channel = checkChannel(ctx, body.channel);
  if (body.code_challenge) {
    throw badRequest('validation_failed', 'PKCE not supported for phone signups');
  }
  if (!sms.enabled) throw phoneDisabled('Phone signups are disabled');
  const phone = validatePhone(body.phone);
  await ctx.limiter.hit('signupPerIp', clientIp(c));
  const existing = await findUserByPhone(ctx.db, phone);
  if (existing?.phone_confirmed_at) {
    if (sms.autoconfirm || ctx.config.auth.autoconfirm) {
      throw unprocessable('user_already_exists', 'User already registered');
    }
    // Do not reveal that the number is taken: a look-alike user that has no identities.
    const now = new Date().toISOString();
    return c.json({
      ...userJson({
        ...existing,
        email: '',
        raw_app_meta_data: { provider: 'phone', providers: ['phone'] },
        raw_user_meta_data: body.data ?? {},
        factors: [],
        phone_confirmed_at: null,
        confirmed_at: null,
        last_sign_in_at: null,
      }),
      id: randomUUID(),
      identities: [],
      created_at: now,
      updated_at: now,
      confirmation_sent_at: now,
    });
  }
  const admitted = existing
    ? null
    : await admitNewUser(ctx.hooks, {
        phone,
        passwordHash: await hashPassword(body.password),
        userMetadata: body.data ?? {},
        phoneConfirmed: sms.autoconfirm,
      });
  const code = sms.autoconfirm
    ? null
    : await sendPhoneCode(ctx, existing?.id ?? null, phone, 'confirmation', channel);
  const result = await ctx.db.transaction(async (tx) => {
    const id = admitted ? await insertUser(tx, admitted) : (existing?.id as string);
    if (code) {
      await storePhoneCode(tx, id, code);
      const user = await findUserById(tx, id);
      return user ? userJson(user) : {};
    }
    if (existing) await confirmPhone(tx, id);
    return startSession(tx, ctx, id, 'password', { userAgent: userAgent(c) });
  });
  return c.json(result);
}

/** POST /otp with a phone number: a sign-in code by SMS, creating the user if allowed. */
export async function phoneOtp(
  c: Context<AppEnv>,
  ctx: AuthContext,
  body: { phone: string; data?: Record<string, unknown>; create_user?: boolean; channel?: string },
) {
  const { sms } = ctx.config.auth;
  const phone = validatePhone(body.phone);
  const existing = await findUserByPhone(ctx.db, phone);
  if (!existing && body.create_user === false) {
    throw unprocessable('otp_disabled', 'Signups not allowed for otp');
  }
  if (!sms.enabled) throw phoneDisabled(UNSUPPORTED_PROVIDER);
  const channel = checkChannel(ctx, body.channel);
  await ctx.limiter.hit('otpPerIp', clientIp(c));
  let userId = existing?.id ?? null;
  if (!existing?.phone_confirmed_at && !sms.autoconfirm) {
    // A new or unconfirmed number gets the sign-up confirmation code (which signs in too).
    const admitted = userId
      ? null
      : await admitNewUser(ctx.hooks, { phone, userMetadata: body.data ?? {} });
    const code = await sendPhoneCode(ctx, userId, phone, 'confirmation', channel);
    await ctx.db.transaction(async (tx) => {
      const id = admitted ? await insertUser(tx, admitted) : (userId as string);
      await storePhoneCode(tx, id, code);
    });
    return c.json({});
  }
  if (!userId) {
    const admitted = await admitNewUser(ctx.hooks, {
      phone,
      userMetadata: body.data ?? {},
      phoneConfirmed: true,
    });
    userId = await ctx.db.transaction((tx) => insertUser(tx, admitted));
  } else if (!existing?.phone_confirmed_at) {
    await confirmPhone(ctx.db, userId);
  }
  const id = userId;
  const code = await sendPhoneCode(ctx, id, phone, 'confirmation', channel);
  await ctx.db.transaction((tx) => storePhoneCode(tx, id, code));
  return c.json(code.messageId ? { message_id: code.messageId } : {});
}

/** POST /resend of type `sms` (sign-up code again) or `phone_change` (to the new number). */
export async function phoneResend(
  c: Context<AppEnv>,
  ctx: AuthContext,
  type: 'sms' | 'phone_change',
  rawPhone: string,
) {
  if (!ctx.config.auth.sms.enabled) throw phoneDisabled('Phone logins are disabled');
  const phone = validatePhone(rawPhone);
  await ctx.limiter.hit('otpPerIp', clientIp(c));
  const user = await findUserByPhone(ctx.db, phone);
  if (!user) return c.json({});
  if (type === 'sms' && user.phone_confirmed_at) return c.json({});
  if (type === 'phone_change' && !user.phone_change) return c.json({});
  const to = type === 'sms' ? phone : (user.phone_change ?? '');
  const code = await sendPhoneCode(
    ctx,
    user.id,
    to,
    type === 'sms' ? 'confirmation' : 'phone_change',
    'sms',
  );
  await ctx.db.transaction((tx) => storePhoneCode(tx, user.id, code));
  return c.json(code.messageId ? { message_id: code.messageId } : {});
}

const INVALID_TOKEN = 'Token has expired or is invalid';

/** POST /verify with a phone number: types `sms` and `phone_change`; signs in. */
export async function verifyPhone(
  c: Context<AppEnv>,
  ctx: AuthContext,
  type: string,
  rawPhone: string,
  token: string,
) {
  const phone = validatePhone(rawPhone);
  if (type !== 'sms' && type !== 'phone_change') throw forbidden('otp_expired', INVALID_TOKEN);
  const { sms } = ctx.config.auth;
  const [tokenColumn, sentColumn] =
    type === 'sms'
      ? ['confirmation_token', 'confirmation_sent_at']
      : ['phone_change_token', 'phone_change_sent_at'];
  const session = await ctx.db.transaction(async (tx) => {
    const found = await findUser(
      tx,
      `${type === 'sms' ? 'u.phone' : 'u.phone_change'} = $1 and u.deleted_at is null`,
      [phone, tokenHash(phone, token), sms.otpExpiry],
      true,
      `(u.${tokenColumn} = $2 and u.${sentColumn} + make_interval(secs => $3) >= now()) as code_valid`,
    );
    if (!found) throw forbidden('otp_expired', INVALID_TOKEN);
    if (found.banned) throw forbidden('user_banned', 'User is banned');
    const valid = (found as unknown as { code_valid: boolean | null }).code_valid === true;
    const test = testOtp(ctx, phone);
    if (!valid && !(test !== null && token === test)) throw forbidden('otp_expired', INVALID_TOKEN);
    if (type === 'sms') {
      await confirmPhone(tx, found.id);
      await syncProviders(tx, found.id);
    } else {
      await applyPhoneChange(tx, found.id);
    }
    return startSession(tx, ctx, found.id, 'otp', { userAgent: userAgent(c) });
  });
  return c.json(session);
}
