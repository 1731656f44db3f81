import type { Context, Hono } from 'hono';
import type { OutgoingMail } from '../../mail/index';
import type { AppEnv } from '../../service-module';
import { readBody } from '../body';
import type { AuthContext } from '../context';
import { badRequest, SIGNUP_DISABLED, unprocessable } from '../errors';
import { pkceParams, redirectTarget } from '../links';
import { prepareConfirmation, prepareEmailChange, prepareRecovery, sendAll } from '../mailer';
import { validateEmail } from '../passwords';
import { admitNewUser, findUserByEmail, insertUser } from '../users';
import { phoneOtp, phoneResend } from './phone';
import { clientIp, redirectParam } from './util';

const PKCE = { code_challenge: 'string', code_challenge_method: 'string' } as const;

/** POST /otp (and the legacy /magiclink): a magic link and code, creating the user if asked. */
async function otp(c: Context<AppEnv>, ctx: AuthContext, legacy: boolean) {
  const body = await readBody(c, {
    email: 'string',
    phone: 'string',
    data: 'object',
    create_user: 'boolean',
    channel: 'string',
    ...PKCE,
  });
  if (body.email && body.phone) {
    throw badRequest(
      'validation_failed',
      'Only an email address or phone number should be provided',
    );
  }
  if (body.email && body.channel) {
    throw badRequest('validation_failed', 'Channel should only be specified with Phone OTP');
  }
  if (body.phone) return phoneOtp(c, ctx, { ...body, phone: body.phone });
  if (!body.email) {
    if (legacy) throw unprocessable('validation_failed', 'Password recovery requires an email');
    throw badRequest('validation_failed', 'One of email or phone must be set');
  }
  const email = validateEmail(body.email);
  const pkce = pkceParams(body);
  await ctx.limiter.hit('otpPerIp', clientIp(c));
  const user = await findUserByEmail(ctx.db, email);
  if (!user && body.create_user === false) {
    throw unprocessable('otp_disabled', 'Signups not allowed for otp');
  }
  // A new or unconfirmed address goes through sign-up, as in GoTrue.
  if (ctx.config.auth.disableSignup && !user?.email_confirmed_at) throw SIGNUP_DISABLED();
  await ctx.limiter.hit('emailPerAddress', email);
  const redirectTo = redirectTarget(ctx, redirectParam(c));
  const autoconfirm = ctx.config.auth.autoconfirm;
  const admitted = user
    ? null
    : await admitNewUser(ctx.hooks, {
        email,
        userMetadata: body.data ?? {},
        emailConfirmed: autoconfirm,
      });
  const mail = await ctx.db.transaction(async (tx) => {
    const id = admitted ? await insertUser(tx, admitted) : (user?.id as string);
    const confirmed = user ? !!user.email_confirmed_at : autoconfirm;
    // Unconfirmed users get the signup confirmation, which signs them in as well.
    if (!confirmed && !autoconfirm) {
      return prepareConfirmation(tx, ctx, { id, email }, redirectTo, pkce);
    }
    return prepareRecovery(tx, ctx, { id, email }, redirectTo, pkce, 'magiclink');
  });
  await sendAll(ctx, [mail]);
  return c.json({});
}

/** POST /otp, /magiclink, /recover, /resend. */
export function mailFlowRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  routes.post('/otp', (c) => otp(c, ctx, false));
  routes.post('/magiclink', (c) => otp(c, ctx, true));

  routes.post('/recover', async (c) => {
    const body = await readBody(c, { email: 'string', ...PKCE });
    if (!body.email) throw badRequest('validation_failed', 'Password recovery requires an email');
    const email = validateEmail(body.email);
    const pkce = pkceParams(body);
    await ctx.limiter.hit('otpPerIp', clientIp(c));
    const user = await findUserByEmail(ctx.db, email);
    if (!user) return c.json({});
    await ctx.limiter.hit('emailPerAddress', email);
    const redirectTo = redirectTarget(ctx, redirectParam(c));
    const mail = await ctx.db.transaction((tx) =>
      prepareRecovery(tx, ctx, { id: user.id, email }, redirectTo, pkce, 'recovery'),
    );
    await sendAll(ctx, [mail]);
    return c.json({});
  });

  routes.post('/resend', async (c) => {
    const body = await readBody(c, { type: 'string', email: 'string', phone: 'string', ...PKCE });
    const type = body.type ?? '';
    if (!['signup', 'email_change', 'sms', 'phone_change'].includes(type)) {
      throw badRequest(
        'validation_failed',
        'Missing one of these types: signup, email_change, sms, phone_change',
      );
    }
    if (type === 'sms' || type === 'phone_change') {
      if (!body.phone)
        throw badRequest('validation_failed', 'Type provided requires a phone number');
      if (body.email) {
        throw badRequest(
          'validation_failed',
          'Only an email address or phone number should be provided.',
        );
      }
      return phoneResend(c, ctx, type, body.phone);
    }
    if (!body.email)
      throw badRequest('validation_failed', 'Type provided requires an email address');
    if (body.phone) {
      throw badRequest(
        'validation_failed',
        'Only an email address or phone number should be provided.',
      );
    }
    const email = validateEmail(body.email);
    const pkce = pkceParams(body);
    await ctx.limiter.hit('otpPerIp', clientIp(c));
    const user = await findUserByEmail(ctx.db, email);
    if (!user) return c.json({});
    if (type === 'signup' && user.email_confirmed_at) return c.json({});
    if (type === 'email_change' && !user.email_change) return c.json({});
    await ctx.limiter.hit('emailPerAddress', email);
    const redirectTo = redirectTarget(ctx, redirectParam(c));
    const mails: OutgoingMail[] = await ctx.db.transaction(async (tx) =>
      type === 'signup'
        ? [await prepareConfirmation(tx, ctx, { id: user.id, email }, redirectTo, pkce)]
        : prepareEmailChange(tx, ctx, user, user.email_change ?? '', redirectTo, pkce),
    );
    await sendAll(ctx, mails);
    return c.json({});
  });
}
