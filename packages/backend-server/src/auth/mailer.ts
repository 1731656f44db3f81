import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/index';
import { authMail, type OutgoingMail } from '../mail/index';
import type { AuthContext } from './context';
import { generateOtp, tokenHash } from './crypto';
import type { EmailData } from './hooks';
import { createFlowState, issueToken, PKCE_PREFIX } from './links';
import { findUserById, userJson } from './users';

/**
 * What the send-email hook gets for a prepared mail (all but `site_url`, added when sent), or
 * null for a mail another mail's hook call covers (the current address of an email change).
 */
const HOOK_DATA = new WeakMap<
  OutgoingMail,
  { userId: string; data: Omit<EmailData, 'site_url'> } | null
>();

function forHook(
  mail: OutgoingMail,
  userId: string,
  data: Partial<Omit<EmailData, 'site_url'>> & { email_action_type: string },
): OutgoingMail {
  HOOK_DATA.set(mail, {
    userId,
    data: {
      token: '',
      token_hash: '',
      redirect_to: '',
      token_new: '',
      token_hash_new: '',
      ...data,
    },
  });
  return mail;
}

const withPrefix = (hash: string, pkce: unknown) => (pkce ? PKCE_PREFIX + hash : hash);

type TokenType =
  | 'confirmation_token'
  | 'recovery_token'
  | 'email_change_token_new'
  | 'email_change_token_current'
  | 'reauthentication_token'
  | 'phone_change_token';

/** Keeps auth.one_time_tokens in step with the token columns of auth.users. */
export async function setOneTimeToken(
  q: Queryable,
  userId: string,
  type: TokenType,
  hash: string,
  relatesTo: string,
): Promise<void> {
  await q.query(
    `insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to)
     values ($1, $2, $3::auth.one_time_token_type, $4, $5)
     on conflict (user_id, token_type) do update
       set token_hash = excluded.token_hash, relates_to = excluded.relates_to, updated_at = now()`,
    [randomUUID(), userId, type, hash, relatesTo],
  );
}

/** Forgets one-time tokens of a user once used. */
export async function clearOneTimeTokens(
  q: Queryable,
  userId: string,
  types: readonly TokenType[],
): Promise<void> {
  await q.query(
    `delete from auth.one_time_tokens where user_id = $1 and token_type::text = any($2::text[])`,
    [userId, types],
  );
}

export interface MailTarget {
  id: string;
  email: string;
}

type Pkce = { challenge: string; method: string } | null;

/** Signup confirmation (or invite): a new confirmation token; the mail to send after commit. */
export async function prepareConfirmation(
  q: Queryable,
  ctx: AuthContext,
  user: MailTarget,
  redirectTo: string,
  pkce: Pkce,
  kind: 'signup' | 'invite' = 'signup',
): Promise<OutgoingMail> {
  const token = issueToken(ctx, user.email, kind, redirectTo, pkce !== null);
  await q.query(
    `update auth.users set confirmation_token = $2, confirmation_sent_at = now(),
       invited_at = case when $3 then coalesce(invited_at, now()) else invited_at end,
       updated_at = now() where id = $1`,
    [user.id, token.hash, kind === 'invite'],
  );
  await setOneTimeToken(q, user.id, 'confirmation_token', token.hash, user.email);
  if (pkce) await createFlowState(q, user.id, pkce, kind === 'invite' ? 'invite' : 'email/signup');
  return forHook(authMail(kind, user.email, { link: token.link, otp: token.otp }), user.id, {
    token: token.otp,
    token_hash: withPrefix(token.hash, pkce),
    redirect_to: redirectTo,
    email_action_type: kind,
  });
}

/** Password recovery or magic link: a new recovery token; the mail to send after commit. */
export async function prepareRecovery(
  q: Queryable,
  ctx: AuthContext,
  user: MailTarget,
  redirectTo: string,
  pkce: Pkce,
  kind: 'recovery' | 'magiclink',
): Promise<OutgoingMail> {
  const token = issueToken(ctx, user.email, kind, redirectTo, pkce !== null);
  await q.query(
    `update auth.users set recovery_token = $2, recovery_sent_at = now(), updated_at = now()
     where id = $1`,
    [user.id, token.hash],
  );
  await setOneTimeToken(q, user.id, 'recovery_token', token.hash, user.email);
  if (pkce) await createFlowState(q, user.id, pkce, kind);
  return forHook(authMail(kind, user.email, { link: token.link, otp: token.otp }), user.id, {
    token: token.otp,
    token_hash: withPrefix(token.hash, pkce),
    redirect_to: redirectTo,
    email_action_type: kind,
  });
}

/**
 * Email change: the new address gets a token (and, when the user has one, the current address
 * too, for the secure double confirmation); the mails to send after commit.
 */
export async function prepareEmailChange(
  q: Queryable,
  ctx: AuthContext,
  user: { id: string; email: string | null },
  newEmail: string,
  redirectTo: string,
  pkce: Pkce,
): Promise<OutgoingMail[]> {
  const next = issueToken(ctx, newEmail, 'email_change_new', redirectTo, pkce !== null);
  const current = user.email
    ? issueToken(ctx, user.email, 'email_change_current', redirectTo, pkce !== null)
    : null;
  await q.query(
    `update auth.users set email_change = $2, email_change_token_new = $3,
       email_change_token_current = $4, email_change_confirm_status = 0,
       email_change_sent_at = now(), updated_at = now() where id = $1`,
    [user.id, newEmail, next.hash, current?.hash ?? ''],
  );
  await setOneTimeToken(q, user.id, 'email_change_token_new', next.hash, newEmail);
  if (current && user.email) {
    await setOneTimeToken(q, user.id, 'email_change_token_current', current.hash, user.email);
  }
  if (pkce) await createFlowState(q, user.id, pkce, 'email_change');
  // One send-email hook call covers both mails, with GoTrue's (crossed) tokens and hashes.
  const hookData = current
    ? {
        token: current.otp,
        token_hash: withPrefix(next.hash, pkce),
        token_new: next.otp,
        token_hash_new: withPrefix(current.hash, pkce),
      }
    : { token: next.otp, token_hash: withPrefix(next.hash, pkce) };
  const mails = [
    forHook(
      authMail('email_change_new', newEmail, { link: next.link, otp: next.otp, newEmail }),
      user.id,
      { ...hookData, redirect_to: redirectTo, email_action_type: 'email_change' },
    ),
  ];
  if (current && user.email) {
    const mail = authMail('email_change_current', user.email, {
      link: current.link,
      otp: current.otp,
      newEmail,
    });
    HOOK_DATA.set(mail, null);
    mails.push(mail);
  }
  return mails;
}

/** Reauthentication: a nonce (code only, no link) for a sensitive change; the mail to send. */
export async function prepareReauthentication(
  q: Queryable,
  user: MailTarget,
): Promise<OutgoingMail> {
  const otp = generateOtp();
  const hash = tokenHash(user.email, otp);
  await q.query(
    `update auth.users set reauthentication_token = $2, reauthentication_sent_at = now(),
       updated_at = now() where id = $1`,
    [user.id, hash],
  );
  await setOneTimeToken(q, user.id, 'reauthentication_token', hash, user.email);
  return forHook(authMail('reauthentication', user.email, { link: null, otp }), user.id, {
    token: otp,
    token_hash: hash,
    email_action_type: 'reauthentication',
  });
}

/**
 * Sends mails after their transaction committed: to the send-email hook when one is
 * configured (instead of the mailer and the outbox), else to the outbox.
 */
export async function sendAll(ctx: AuthContext, mails: readonly OutgoingMail[]): Promise<void> {
  for (const mail of mails) {
    const hook = HOOK_DATA.get(mail);
    if (hook === undefined || !ctx.hooks.has('sendEmail')) {
      await ctx.outbox.send(mail);
      continue;
    }
    if (hook === null) continue;
    const user = await findUserById(ctx.db, hook.userId);
    await ctx.hooks.sendEmail(user ? userJson(user) : { id: hook.userId }, {
      ...hook.data,
      site_url: `${ctx.config.url}/auth/v1`,
    });
  }
}
