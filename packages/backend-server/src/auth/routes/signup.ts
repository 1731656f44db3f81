import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import type { OutgoingMail } from '../../mail/index';
import type { AppEnv } from '../../service-module';
import { readBody } from '../body';
import type { AuthContext } from '../context';
import { badRequest, SIGNUP_DISABLED, unprocessable } from '../errors';
import { pkceParams, redirectTarget } from '../links';
import { prepareConfirmation, sendAll } from '../mailer';
import { checkStrength, hashPassword, validateEmail } from '../passwords';
import { startSession } from '../sessions';
import {
  admitNewUser,
  confirmEmail,
  findUserByEmail,
  findUserById,
  insertUser,
  userJson,
} from '../users';
import { phoneSignup } from './phone';
import { clientIp, redirectParam, userAgent } from './util';

const SIGNUP = {
  email: 'string',
  phone: 'string',
  password: 'string',
  data: 'object',
  channel: 'string',
  code_challenge: 'string',
  code_challenge_method: 'string',
} as const;

/** POST /signup: email + password, or anonymous when neither email nor phone is given. */
export function signupRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  routes.post('/signup', async (c) => {
    if (ctx.config.auth.disableSignup) throw SIGNUP_DISABLED();
    const body = await readBody(c, SIGNUP);
    const ip = clientIp(c);
    if (!body.email && !body.phone) {
      if (!ctx.anonymousUsers) {
        throw unprocessable('anonymous_provider_disabled', 'Anonymous sign-ins are disabled');
      }
      await ctx.limiter.hit('signupPerIp', ip);
      const admitted = await admitNewUser(ctx.hooks, {
        isAnonymous: true,
        userMetadata: body.data ?? {},
      });
      const session = await ctx.db.transaction(async (tx) => {
        const id = await insertUser(tx, admitted);
        return startSession(tx, ctx, id, 'anonymous', { userAgent: userAgent(c) });
      });
      return c.json(session);
    }
    if (body.email && body.phone) {
      throw badRequest(
        'validation_failed',
        'Only an email address or phone number should be provided on signup.',
      );
    }
    if (body.phone) return phoneSignup(c, ctx, { ...body, phone: body.phone });
    if (!body.password) throw badRequest('validation_failed', 'Signup requires a valid password');
    if (!body.email) throw badRequest('validation_failed', 'Signup requires a valid password');
    const email = validateEmail(body.email);
    checkStrength(body.password, ctx.config.auth.passwordMinLength);
    const pkce = pkceParams(body);
    await ctx.limiter.hit('signupPerIp', ip);
    const redirectTo = redirectTarget(ctx, redirectParam(c));
    const autoconfirm = ctx.config.auth.autoconfirm;

    const existing = await findUserByEmail(ctx.db, email);
    if (existing?.email_confirmed_at) {
      if (autoconfirm) throw unprocessable('user_already_exists', 'User already registered');
      // Do not reveal that the address is taken: a look-alike user that has no identities.
      const now = new Date().toISOString();
      return c.json({
        ...userJson({
          ...existing,
          raw_app_meta_data: {},
          raw_user_meta_data: body.data ?? {},
          factors: [],
        }),
        id: randomUUID(),
        identities: [],
        created_at: now,
        updated_at: now,
        confirmation_sent_at: now,
      });
    }
    if (!autoconfirm) await ctx.limiter.hit('emailPerAddress', email);
    const admitted = existing
      ? null
      : await admitNewUser(ctx.hooks, {
          email,
          passwordHash: await hashPassword(body.password),
          userMetadata: body.data ?? {},
          emailConfirmed: autoconfirm,
        });
    const mails: OutgoingMail[] = [];
    const result = await ctx.db.transaction(async (tx) => {
      // An unconfirmed existing user is not changed (their identity is not proven yet).
      const id = admitted ? await insertUser(tx, admitted) : (existing?.id as string);
      if (autoconfirm) {
        if (existing) await confirmEmail(tx, id);
        return startSession(tx, ctx, id, 'password', { userAgent: userAgent(c) });
      }
      mails.push(await prepareConfirmation(tx, ctx, { id, email }, redirectTo, pkce));
      const user = await findUserById(tx, id);
      return user ? userJson(user) : {};
    });
    await sendAll(ctx, mails);
    return c.json(result);
  });
}
