import type { Hono } from 'hono';
import type { Transaction } from '../../db/index';
import type { OutgoingMail } from '../../mail/index';
import type { AppEnv } from '../../service-module';
import { readBody } from '../body';
import type { AuthContext } from '../context';
import { tokenHash } from '../crypto';
import { AuthError, badRequest, forbidden, unprocessable } from '../errors';
import { requireUser } from '../guard';
import { pkceParams, redirectTarget } from '../links';
import {
  clearOneTimeTokens,
  prepareEmailChange,
  prepareReauthentication,
  sendAll,
} from '../mailer';
import { requireAal2ForCredentials } from '../mfa/session';
import { checkPassword, checkStrength, hashPassword, validateEmail } from '../passwords';
import { checkChannel, sendPhoneCode, storePhoneCode, validatePhone } from '../phone';
import {
  DUPLICATE_EMAIL,
  DUPLICATE_PHONE,
  findUserByEmail,
  findUserById,
  findUserByPhone,
  mergeMetadata,
  userJson,
} from '../users';
import { applyPhoneChange } from './phone';
import { redirectParam } from './util';
import { applyEmailChange } from './verify';

const UPDATE = {
  email: 'string',
  password: 'string',
  data: 'object',
  app_metadata: 'object',
  phone: 'string',
  channel: 'string',
  nonce: 'string',
  code_challenge: 'string',
  code_challenge_method: 'string',
} as const;

const INVALID_NONCE = 'Nonce has expired or is invalid';

/**
 * With `securePasswordChange`, a password change on a session older than 24 h (or without
 * one) must carry the nonce mailed by GET /reauthenticate; the nonce is used up.
 */
async function checkReauthentication(
  tx: Transaction,
  ctx: AuthContext,
  user: { id: string; email: string | null; phone: string | null },
  sessionId: string | null,
  nonce: string | undefined,
): Promise<void> {
  if (!ctx.config.auth.securePasswordChange) return;
  if (sessionId) {
    const { rows } = await tx.query<{ recent: boolean }>(
      `select created_at + interval '24 hours' > now() as recent from auth.sessions where id = $1`,
      [sessionId],
    );
    if (rows[0]?.recent) return;
  }
  if (!nonce)
    throw badRequest('reauthentication_needed', 'Password update requires reauthentication');
  const { rows } = await tx.query(
    `update auth.users set reauthentication_token = '', updated_at = now()
     where id = $1 and reauthentication_token = $2 and reauthentication_token <> ''
       and reauthentication_sent_at + make_interval(secs => $3) >= now()
     returning id`,
    user.email
      ? [user.id, tokenHash(user.email, nonce), ctx.otpExpiry]
      : [user.id, tokenHash(user.phone ?? '', nonce), ctx.config.auth.sms.otpExpiry],
  );
  if (rows.length === 0) throw new AuthError(422, 'reauthentication_not_valid', INVALID_NONCE);
  await clearOneTimeTokens(tx, user.id, ['reauthentication_token']);
}

/** GET/PUT /user, GET /reauthenticate and POST /logout. */
export function userRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  routes.get('/user', async (c) => {
    const { user } = await requireUser(c, ctx);
    return c.json(userJson(user));
  });

  routes.put('/user', async (c) => {
    const { user, sessionId } = await requireUser(c, ctx);
    const body = await readBody(c, UPDATE);
    if (body.app_metadata) {
      throw forbidden('not_admin', 'Updating app_metadata requires admin privileges');
    }
    if (user.is_anonymous && body.password && !body.email && !body.phone) {
      throw unprocessable(
        'validation_failed',
        'Updating password of an anonymous user without an email or phone is not allowed',
      );
    }
    let newPhone: string | null = null;
    let channel: 'sms' | 'whatsapp' = 'sms';
    if (body.phone) {
      if (!ctx.config.auth.sms.enabled) {
        throw badRequest('phone_provider_disabled', 'Phone logins are disabled');
      }
      const phone = validatePhone(body.phone);
      channel = checkChannel(ctx, body.channel);
      if (phone !== (user.phone ?? '')) newPhone = phone;
    }
    await requireAal2ForCredentials(ctx, user, sessionId, { ...body, phone: newPhone ?? '' });
    if (newPhone) {
      const taken = await findUserByPhone(ctx.db, newPhone);
      if (taken && taken.id !== user.id) throw unprocessable('phone_exists', DUPLICATE_PHONE);
    }
    let newEmail: string | null = null;
    if (body.email && body.email.trim().toLowerCase() !== (user.email ?? '').toLowerCase()) {
      newEmail = validateEmail(body.email);
      const taken = await findUserByEmail(ctx.db, newEmail);
      if (taken && taken.id !== user.id) throw unprocessable('email_exists', DUPLICATE_EMAIL);
    }
    let passwordHash: string | null = null;
    if (body.password) {
      checkStrength(body.password, ctx.config.auth.passwordMinLength);
      if (await checkPassword(body.password, user.encrypted_password)) {
        throw unprocessable(
          'same_password',
          'New password should be different from the old password.',
        );
      }
      passwordHash = await hashPassword(body.password);
    }
    const pkce = pkceParams(body);
    const immediate = newEmail !== null && user.is_anonymous && ctx.config.auth.autoconfirm;
    if (newEmail && !immediate) await ctx.limiter.hit('emailPerAddress', newEmail);
    const redirectTo = redirectTarget(ctx, redirectParam(c));
    const mails: OutgoingMail[] = [];
    const phoneCode =
      newPhone && !ctx.config.auth.sms.autoconfirm
        ? await sendPhoneCode(ctx, user.id, newPhone, 'phone_change', channel)
        : null;
    const updated = await ctx.db.transaction(async (tx) => {
      if (phoneCode) await storePhoneCode(tx, user.id, phoneCode);
      if (newPhone && !phoneCode) {
        await tx.query('update auth.users set phone_change = $2 where id = $1', [
          user.id,
          newPhone,
        ]);
        await applyPhoneChange(tx, user.id);
      }
      if (passwordHash) await checkReauthentication(tx, ctx, user, sessionId, body.nonce);
      if (passwordHash) {
        await tx.query(
          'update auth.users set encrypted_password = $2, updated_at = now() where id = $1',
          [user.id, passwordHash],
        );
      }
      if (body.data) {
        await tx.query(
          'update auth.users set raw_user_meta_data = $2::text::jsonb, updated_at = now() where id = $1',
          [user.id, JSON.stringify(mergeMetadata(user.raw_user_meta_data, body.data))],
        );
      }
      if (newEmail && immediate) {
        await tx.query('update auth.users set email_change = $2 where id = $1', [
          user.id,
          newEmail,
        ]);
        await applyEmailChange(tx, user.id);
      } else if (newEmail) {
        mails.push(...(await prepareEmailChange(tx, ctx, user, newEmail, redirectTo, pkce)));
      }
      return findUserById(tx, user.id);
    });
    await sendAll(ctx, mails);
    return c.json(updated ? userJson(updated) : {});
  });

  routes.get('/reauthenticate', async (c) => {
    const { user } = await requireUser(c, ctx);
    const email = user.email;
    if (!email && !user.phone) {
      throw badRequest(
        'validation_failed',
        'Reauthentication requires the user to have an email or a phone number',
      );
    }
    if (!email && user.phone) {
      if (!user.phone_confirmed_at) {
        throw unprocessable('phone_not_confirmed', 'Please verify your phone first.');
      }
      const code = await sendPhoneCode(ctx, user.id, user.phone, 'reauthentication', 'sms');
      await ctx.db.transaction((tx) => storePhoneCode(tx, user.id, code));
      return c.json({});
    }
    if (!email) return c.json({});
    if (!user.email_confirmed_at) {
      throw unprocessable('email_not_confirmed', 'Please verify your email first.');
    }
    await ctx.limiter.hit('emailPerAddress', email);
    const mail = await ctx.db.transaction((tx) =>
      prepareReauthentication(tx, { id: user.id, email }),
    );
    await sendAll(ctx, [mail]);
    return c.json({});
  });

  routes.post('/logout', async (c) => {
    const { user, sessionId } = await requireUser(c, ctx);
    const scope = c.req.query('scope') ?? '';
    if (!['', 'global', 'local', 'others'].includes(scope)) {
      throw badRequest('validation_failed', `Unsupported logout scope "${scope}"`);
    }
    if (sessionId && scope === 'local') {
      await ctx.db.query('delete from auth.sessions where id = $1', [sessionId]);
    } else if (sessionId && scope === 'others') {
      await ctx.db.query('delete from auth.sessions where user_id = $1 and id <> $2', [
        user.id,
        sessionId,
      ]);
    } else {
      await ctx.db.query('delete from auth.sessions where user_id = $1', [user.id]);
    }
    return c.body(null, 204);
  });
}
