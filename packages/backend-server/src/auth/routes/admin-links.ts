import type { Hono } from 'hono';
import type { OutgoingMail } from '../../mail/index';
import type { AppEnv } from '../../service-module';
import { readBody } from '../body';
import type { AuthContext } from '../context';
import { badRequest, notFound, unprocessable } from '../errors';
import { requireAdmin } from '../guard';
import { redirectTarget } from '../links';
import { prepareConfirmation, prepareEmailChange, prepareRecovery, sendAll } from '../mailer';
import { checkStrength, hashPassword, validateEmail } from '../passwords';
import {
  admitNewUser,
  DUPLICATE_EMAIL,
  findUserByEmail,
  findUserById,
  insertUser,
  userJson,
} from '../users';
import { redirectParam } from './util';

const LINK_TYPES = [
  'signup',
  'invite',
  'magiclink',
  'recovery',
  'email_change_current',
  'email_change_new',
] as const;
type LinkType = (typeof LINK_TYPES)[number];

/** The hashed token carried by a verification link. */
const hashedToken = (link: string) =>
  (new URL(link).searchParams.get('token') ?? '').replace(/^pkce_/, '');

/** POST /admin/generate_link and POST /invite (service role only). */
export function adminLinkRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  routes.post('/admin/generate_link', async (c) => {
    const body = await readBody(c, {
      type: 'string',
      email: 'string',
      password: 'string',
      new_email: 'string',
      data: 'object',
      redirect_to: 'string',
    });
    const type = body.type as LinkType;
    if (!LINK_TYPES.includes(type)) {
      throw badRequest('validation_failed', 'Invalid email action link type requested');
    }
    if (!body.email) throw badRequest('validation_failed', 'An email address is required');
    const email = validateEmail(body.email);
    const redirectTo = redirectTarget(ctx, body.redirect_to ?? redirectParam(c));
    const existing = await findUserByEmail(ctx.db, email);
    const newEmail = body.new_email ? validateEmail(body.new_email) : null;
    if (type === 'signup' || type === 'invite') {
      if (existing?.email_confirmed_at) throw unprocessable('email_exists', DUPLICATE_EMAIL);
    } else if (!existing) {
      throw notFound('user_not_found', 'User with this email not found');
    }
    if (type === 'email_change_current' || type === 'email_change_new') {
      if (!newEmail) {
        throw badRequest('validation_failed', 'The new_email address is required for email change');
      }
      if (await findUserByEmail(ctx.db, newEmail))
        throw unprocessable('email_exists', DUPLICATE_EMAIL);
    }
    let passwordHash: string | null = null;
    if (type === 'signup') {
      if (!body.password) throw badRequest('validation_failed', 'Signup requires a valid password');
      checkStrength(body.password, ctx.config.auth.passwordMinLength);
      passwordHash = await hashPassword(body.password);
    }
    const admitted = existing
      ? null
      : await admitNewUser(ctx.hooks, {
          email,
          passwordHash,
          userMetadata: body.data ?? {},
          invited: type === 'invite',
        });
    const { mail, user } = await ctx.db.transaction(async (tx) => {
      const id = admitted ? await insertUser(tx, admitted) : (existing?.id as string);
      let prepared: OutgoingMail;
      if (type === 'signup' || type === 'invite') {
        prepared = await prepareConfirmation(tx, ctx, { id, email }, redirectTo, null, type);
      } else if (type === 'magiclink' || type === 'recovery') {
        prepared = await prepareRecovery(tx, ctx, { id, email }, redirectTo, null, type);
      } else {
        const mails = await prepareEmailChange(
          tx,
          ctx,
          { id, email },
          newEmail ?? '',
          redirectTo,
          null,
        );
        const wanted = type === 'email_change_new' ? newEmail : email;
        prepared = mails.find((m) => m.to === wanted) ?? (mails[0] as OutgoingMail);
      }
      return { mail: prepared, user: await findUserById(tx, id) };
    });
    const link = mail.links[0] ?? '';
    return c.json({
      ...(user ? userJson(user) : {}),
      action_link: link,
      email_otp: mail.otp ?? '',
      hashed_token: hashedToken(link),
      verification_type: type,
      redirect_to: redirectTo,
    });
  });

  routes.post('/invite', async (c) => {
    await requireAdmin(c, ctx);
    const body = await readBody(c, { email: 'string', data: 'object' });
    if (!body.email) throw badRequest('validation_failed', 'An email address is required');
    const email = validateEmail(body.email);
    const existing = await findUserByEmail(ctx.db, email);
    if (existing?.email_confirmed_at) throw unprocessable('email_exists', DUPLICATE_EMAIL);
    await ctx.limiter.hit('emailPerAddress', email);
    const redirectTo = redirectTarget(ctx, redirectParam(c));
    const admitted = existing
      ? null
      : await admitNewUser(ctx.hooks, { email, userMetadata: body.data ?? {}, invited: true });
    const { mail, user } = await ctx.db.transaction(async (tx) => {
      const id = admitted ? await insertUser(tx, admitted) : (existing?.id as string);
      const prepared = await prepareConfirmation(
        tx,
        ctx,
        { id, email },
        redirectTo,
        null,
        'invite',
      );
      return { mail: prepared, user: await findUserById(tx, id) };
    });
    await sendAll(ctx, [mail]);
    return c.json(user ? userJson(user) : {});
  });
}
