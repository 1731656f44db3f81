import type { Context, Hono } from 'hono';
import { pgError, type Transaction } from '../../db/index';
import type { AppEnv } from '../../service-module';
import { readBody } from '../body';
import type { AuthContext } from '../context';
import { tokenHash } from '../crypto';
import { AuthError, badRequest, forbidden, internal, unprocessable } from '../errors';
import { PKCE_PREFIX, redirectTarget } from '../links';
import { clearOneTimeTokens } from '../mailer';
import { startSession } from '../sessions';
import { confirmEmail, DUPLICATE_EMAIL, findUser, type UserRow } from '../users';
import { verifyPhone } from './phone';
import { clientIp, redirectParam, userAgent } from './util';

const EMAIL_TYPES = ['signup', 'invite', 'magiclink', 'recovery', 'email_change', 'email'] as const;
type VerifyType = (typeof EMAIL_TYPES)[number];
const PHONE_TYPES = ['sms', 'phone_change'];

const COLUMNS: Record<VerifyType, { tokens: string[]; sentAt: string[] }> = {
  signup: { tokens: ['confirmation_token'], sentAt: ['confirmation_sent_at'] },
  invite: { tokens: ['confirmation_token'], sentAt: ['confirmation_sent_at'] },
  magiclink: { tokens: ['recovery_token'], sentAt: ['recovery_sent_at'] },
  recovery: { tokens: ['recovery_token'], sentAt: ['recovery_sent_at'] },
  email: {
    tokens: ['confirmation_token', 'recovery_token'],
    sentAt: ['confirmation_sent_at', 'recovery_sent_at'],
  },
  email_change: {
    tokens: ['email_change_token_new', 'email_change_token_current'],
    sentAt: ['email_change_sent_at', 'email_change_sent_at'],
  },
};

const FLOW_METHOD: Record<VerifyType, string[]> = {
  signup: ['email/signup'],
  invite: ['invite'],
  magiclink: ['magiclink'],
  recovery: ['recovery'],
  email: ['magiclink', 'email/signup'],
  email_change: ['email_change'],
};

const SECURE_CHANGE_MESSAGE =
  'Confirmation link accepted. Please proceed to confirm link sent to the other email';

type Outcome =
  | { kind: 'session'; session: Record<string, unknown> }
  | { kind: 'message'; message: string }
  | { kind: 'code'; code: string };

/** Completes a pending email change: the new address becomes the user's, confirmed. */
export async function applyEmailChange(tx: Transaction, userId: string): Promise<void> {
  try {
    await tx.query(
      `update auth.users set email = email_change, email_change = '', email_change_token_new = '',
         email_change_token_current = '', email_change_confirm_status = 0,
         email_confirmed_at = now(), is_anonymous = false, updated_at = now(),
         raw_app_meta_data = coalesce(raw_app_meta_data, '{}'::jsonb) || jsonb_build_object(
           'provider', coalesce(raw_app_meta_data ->> 'provider', 'email'),
           'providers', (select jsonb_agg(distinct p) from jsonb_array_elements_text(
             coalesce(raw_app_meta_data -> 'providers', '[]'::jsonb) || '["email"]'::jsonb) p))
       where id = $1`,
      [userId],
    );
    await tx.query(
      `insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
       select id::text, id, jsonb_build_object('sub', id::text, 'email', email,
                'email_verified', true, 'phone_verified', false), 'email', now(), now()
       from auth.users where id = $1
       on conflict (provider_id, provider) do update
         set identity_data = excluded.identity_data, updated_at = now()`,
      [userId],
    );
  } catch (error) {
    if (pgError(error)?.code === '23505') throw unprocessable('email_exists', DUPLICATE_EMAIL);
    throw internal('Database error updating user', error);
  }
  await clearOneTimeTokens(tx, userId, ['email_change_token_new', 'email_change_token_current']);
}

/** Finds the user a token belongs to, applies the verification and signs them in. */
async function verifyHash(
  c: Context<AppEnv>,
  ctx: AuthContext,
  type: VerifyType,
  hash: string,
  options: { link: boolean; pkce: boolean },
): Promise<Outcome> {
  const invalid = () =>
    forbidden(
      'otp_expired',
      options.link ? 'Email link is invalid or has expired' : 'Token has expired or is invalid',
    );
  const { tokens, sentAt } = COLUMNS[type];
  const where = tokens
    .map((col, i) => `(u.${col} = $1 and u.${sentAt[i]} + make_interval(secs => $2) >= now())`)
    .join(' or ');
  return ctx.db.transaction(async (tx): Promise<Outcome> => {
    const user = await findUser(
      tx,
      `(${where}) and u.deleted_at is null`,
      [hash, ctx.otpExpiry],
      true,
    );
    if (!user) throw invalid();
    if (user.banned) throw forbidden('user_banned', 'User is banned');
    const matched = tokens.find((col) => user[col as keyof UserRow] === hash) ?? tokens[0];
    if (matched === 'confirmation_token') {
      await confirmEmail(tx, user.id);
      await clearOneTimeTokens(tx, user.id, ['confirmation_token']);
    } else if (matched === 'recovery_token') {
      await tx.query(
        `update auth.users set recovery_token = '', updated_at = now() where id = $1`,
        [user.id],
      );
      await confirmEmail(tx, user.id);
      await clearOneTimeTokens(tx, user.id, ['recovery_token']);
    } else {
      const secure =
        !ctx.config.auth.autoconfirm &&
        user.email_change_confirm_status === 0 &&
        !!user.email &&
        !!user.email_change_token_new &&
        !!user.email_change_token_current;
      if (secure) {
        await tx.query(
          `update auth.users set email_change_confirm_status = 1, ${matched} = '', updated_at = now()
           where id = $1`,
          [user.id],
        );
        await clearOneTimeTokens(tx, user.id, [matched as 'email_change_token_new']);
        return { kind: 'message', message: SECURE_CHANGE_MESSAGE };
      }
      await applyEmailChange(tx, user.id);
    }
    if (options.pkce) {
      const { rows } = await tx.query<{ auth_code: string }>(
        `update auth.flow_state set auth_code_issued_at = now(), updated_at = now()
         where id = (select id from auth.flow_state where user_id = $1
                       and authentication_method = any($2::text[])
                     order by created_at desc limit 1)
         returning auth_code`,
        [user.id, FLOW_METHOD[type]],
      );
      if (!rows[0]) throw badRequest('flow_state_not_found', 'No associated flow state found.');
      return { kind: 'code', code: rows[0].auth_code };
    }
    const session = await startSession(tx, ctx, user.id, 'otp', { userAgent: userAgent(c) });
    return { kind: 'session', session };
  });
}

function checkType(type: string | undefined, phone = false): VerifyType {
  if (!type) throw badRequest('validation_failed', 'Verify requires a verification type');
  if (phone && PHONE_TYPES.includes(type)) return type as VerifyType;
  if (!(EMAIL_TYPES as readonly string[]).includes(type)) {
    throw badRequest('validation_failed', 'Unsupported verification type');
  }
  return type as VerifyType;
}

/** `key=value&…` in sorted key order, like Go's url.Values. */
const encodeSorted = (values: Record<string, string>) =>
  new URLSearchParams(Object.entries(values).sort(([a], [b]) => a.localeCompare(b))).toString();

const OAUTH_ERRORS: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized_client',
  403: 'access_denied',
  429: 'too_many_requests',
  500: 'server_error',
};

/** GET /verify (the email link, 303 redirect) and POST /verify (code or token hash). */
export function verifyRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  routes.get('/verify', async (c) => {
    const type = checkType(c.req.query('type'));
    const token = c.req.query('token') ?? '';
    if (!token) throw badRequest('validation_failed', 'Verify requires a token or a token hash');
    await ctx.limiter.hit('otpPerIp', clientIp(c));
    const pkce = token.startsWith(PKCE_PREFIX);
    const target = new URL(redirectTarget(ctx, redirectParam(c)));
    try {
      const hash = pkce ? token.slice(PKCE_PREFIX.length) : token;
      const outcome = await verifyHash(c, ctx, type, hash, { link: true, pkce });
      if (outcome.kind === 'code') {
        target.searchParams.set('code', outcome.code);
      } else if (outcome.kind === 'message') {
        if (pkce) target.searchParams.set('message', outcome.message);
        target.hash = encodeSorted({ message: outcome.message, sb: '' });
      } else {
        const s = outcome.session;
        target.hash = encodeSorted({
          access_token: String(s.access_token),
          expires_at: String(s.expires_at),
          expires_in: String(s.expires_in),
          refresh_token: String(s.refresh_token),
          token_type: 'bearer',
          type,
          sb: '',
        });
      }
    } catch (error) {
      if (!(error instanceof AuthError) || error.status >= 500) throw error;
      const values = {
        ...(OAUTH_ERRORS[error.status] ? { error: OAUTH_ERRORS[error.status] as string } : {}),
        error_code: error.code,
        error_description: error.message,
      };
      if (pkce) for (const [k, v] of Object.entries(values)) target.searchParams.set(k, v);
      target.hash = encodeSorted({ ...values, sb: '' });
    }
    return c.redirect(target.toString(), 303);
  });

  routes.post('/verify', async (c) => {
    const body = await readBody(c, {
      type: 'string',
      token: 'string',
      token_hash: 'string',
      email: 'string',
      phone: 'string',
    });
    const type = checkType(body.type, !!body.phone);
    if (!body.token && !body.token_hash) {
      throw badRequest('validation_failed', 'Verify requires either a token or a token hash');
    }
    if (body.phone && body.email) {
      throw badRequest(
        'validation_failed',
        'Only an email address or phone number should be provided on verify',
      );
    }
    await ctx.limiter.hit('otpPerIp', clientIp(c));
    if (body.token_hash && (body.email || body.phone)) {
      throw badRequest('validation_failed', 'Only the token_hash and type should be provided');
    }
    if (body.phone && body.token) return verifyPhone(c, ctx, type, body.phone, body.token);
    if (PHONE_TYPES.includes(type)) {
      throw badRequest('validation_failed', 'Unsupported verification type');
    }
    let hash: string;
    if (body.token_hash) hash = body.token_hash.replace(/^pkce_/, '');
    else if (body.email) hash = tokenHash(body.email.trim(), body.token ?? '');
    else hash = (body.token ?? '').replace(/^pkce_/, '');
    const outcome = await verifyHash(c, ctx, type, hash, { link: false, pkce: false });
    if (outcome.kind === 'message') return c.json({ msg: outcome.message, code: '200' });
    return c.json(outcome.kind === 'session' ? outcome.session : {});
  });
}
