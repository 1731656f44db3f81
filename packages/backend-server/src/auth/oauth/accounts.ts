/**
 * Users from external identities, as GoTrue decides it (`DetermineAccountLinking`,
 * `createAccountFromExternalIdentity`, `linkIdentityToUser`): an identity already known signs
 * its user in; a new one joins the user that owns one of its verified emails (automatic
 * linking) or makes a new user; manual linking adds it to the signed-in user. Runs inside the
 * caller's transaction; mails go out after commit (`mails`).
 */
import type { Queryable } from '../../db/index';
import type { OutgoingMail } from '../../mail/index';
import type { AuthContext } from '../context';
import { AuthError, forbidden, internal, SIGNUP_DISABLED, unprocessable } from '../errors';
import { prepareConfirmation } from '../mailer';
import { DUPLICATE_EMAIL, findUserById, insertUser, type UserRow, uniqueConflict } from '../users';
import type { Claims, ProviderEmail } from './types';

/** An external identity signing in (claims with the chosen email, see `withChosenEmail`). */
export interface ExternalIdentity {
  provider: string;
  emails: ProviderEmail[];
  claims: Claims;
  emailOptional: boolean;
}

/** What became of a sign-in: the user, and an error to report after the commit. */
export interface AccountOutcome {
  user: UserRow;
  created: boolean;
  /** GoTrue's "commit with error": the changes stay, the sign-in is refused. */
  error: AuthError | null;
  mails: OutgoingMail[];
}

type Decision =
  | { kind: 'exists'; userId: string; identityId: string }
  | { kind: 'link'; userId: string }
  | { kind: 'create' }
  | { kind: 'multiple' };

/** GoTrue's `DetermineAccountLinking` (one linking domain: this server has no SSO). */
async function decide(
  q: Queryable,
  ctx: AuthContext,
  identity: ExternalIdentity,
  candidate: { email: string },
): Promise<Decision> {
  const known = await q.query<{ id: string; user_id: string }>(
    'select id, user_id from auth.identities where provider_id = $1 and provider = $2',
    [identity.claims.sub, identity.provider],
  );
  if (known.rows[0]) {
    return { kind: 'exists', userId: known.rows[0].user_id, identityId: known.rows[0].id };
  }
  const autoconfirm = ctx.config.auth.autoconfirm;
  const verified = identity.emails
    .filter((e) => e.verified || autoconfirm)
    .map((e) => e.email.toLowerCase());
  if (verified.length === 0) {
    // No verified email: always a new user; its email stays empty if another user has it.
    if (candidate.email && (await emailTaken(q, candidate.email, null))) candidate.email = '';
    return { kind: 'create' };
  }
  const similar = await q.query<{ user_id: string }>(
    'select distinct user_id from auth.identities where email = any($1::text[])',
    [verified],
  );
  if (similar.rows.length === 0) {
    const users = await q.query<{ id: string }>(
      `select id from auth.users where lower(email) = any($1::text[]) and is_sso_user = false`,
      [verified],
    );
    if (users.rows.length === 1) return { kind: 'link', userId: users.rows[0]?.id as string };
    return users.rows.length > 1 ? { kind: 'multiple' } : { kind: 'create' };
  }
  if (similar.rows.length > 1) return { kind: 'multiple' };
  return { kind: 'link', userId: similar.rows[0]?.user_id as string };
}

/** GoTrue's `IsDuplicatedEmail`: another user already has this email (identities or users). */
async function emailTaken(q: Queryable, email: string, exceptUser: string | null) {
  const { rows } = await q.query(
    `select 1 from auth.identities i join auth.users u on u.id = i.user_id
     where i.email = lower($1) and u.aud = 'authenticated' and ($2::uuid is null or u.id <> $2)
     union all
     select 1 from auth.users where lower(email) = lower($1) and ($2::uuid is null or id <> $2)
     limit 1`,
    [email, exceptUser],
  );
  return rows.length > 0;
}

/** Adds an identity to a user (GoTrue's `NewIdentity`). */
export async function insertExternalIdentity(
  q: Queryable,
  userId: string,
  provider: string,
  claims: Claims,
): Promise<string> {
  const { rows } = await q.query<{ id: string }>(
    `insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at,
       created_at, updated_at)
     values ($1, $2, $3::text::jsonb, $4, now(), now(), now()) returning id`,
    [claims.sub, userId, JSON.stringify(claims), provider],
  );
  return rows[0]?.id as string;
}

/** Merges claims into user_metadata (keys replaced, as `UpdateUserMetaData`). */
export async function mergeUserMetadata(
  q: Queryable,
  userId: string,
  data: Record<string, unknown>,
) {
  await q.query(
    `update auth.users set raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) ||
       $2::text::jsonb, updated_at = now() where id = $1`,
    [userId, JSON.stringify(data)],
  );
}

/**
 * `app_metadata.providers`: the user's identity providers, oldest first; `provider` the first
 * of them (GoTrue's `UpdateAppMetaDataProviders`).
 */
export async function updateProviders(q: Queryable, userId: string): Promise<void> {
  await q.query(
    `update auth.users u set raw_app_meta_data = coalesce(u.raw_app_meta_data, '{}'::jsonb)
       || jsonb_build_object('providers', coalesce(p.list, '[]'::jsonb))
       || case when p.first is null then '{}'::jsonb else jsonb_build_object('provider', p.first) end
     from (select jsonb_agg(provider order by first_at, provider) as list,
                  (array_agg(provider order by first_at, provider))[1] as first
           from (select provider, min(created_at) as first_at from auth.identities
                 where user_id = $1 group by provider) x) p
     where u.id = $1`,
    [userId],
  );
}

/** GoTrue's `Confirm`: email confirmed, `email_verified` in user_metadata, tokens cleared. */
async function confirm(q: Queryable, userId: string): Promise<void> {
  await q.query(
    `update auth.users set email_confirmed_at = now(), confirmation_token = '',
       raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || '{"email_verified": true}'::jsonb,
       updated_at = now() where id = $1`,
    [userId],
  );
  await q.query('delete from auth.one_time_tokens where user_id = $1', [userId]);
}

/**
 * GoTrue's `RemoveUnconfirmedIdentities`: an unconfirmed user signing in with an external
 * identity keeps only that identity, its metadata, and no password (a door someone else may
 * have opened with an unconfirmed email).
 */
async function removeUnconfirmedIdentities(
  q: Queryable,
  userId: string,
  keep: { id: string; provider: string; claims: Claims },
): Promise<void> {
  await q.query(
    `update auth.users set raw_user_meta_data = $2::text::jsonb,
       encrypted_password = case when $3 then '' else encrypted_password end,
       updated_at = now() where id = $1`,
    [userId, JSON.stringify(keep.claims), keep.provider !== 'email' && keep.provider !== 'phone'],
  );
  await q.query('delete from auth.identities where user_id = $1 and id <> $2', [userId, keep.id]);
  await updateProviders(q, userId);
}

const needsVerification = (provider: string, sent: boolean) =>
  unprocessable(
    'provider_email_needs_verification',
    sent
      ? `Unverified email with ${provider}. A confirmation email has been sent to your ${provider} email`
      : `Unverified email with ${provider}. Verify the email with ${provider} in order to sign in`,
  );

/** The sign-in (or sign-up) of an external identity: GoTrue's `createAccountFromExternalIdentity`. */
export async function signInExternal(
  q: Queryable,
  ctx: AuthContext,
  identity: ExternalIdentity,
  redirectTo: string,
): Promise<AccountOutcome> {
  const { provider, claims } = identity;
  const primary = identity.emails.find((e) => e.primary);
  const candidate = { email: primary?.email.toLowerCase() ?? '', verified: !!primary?.verified };
  const decision = await decide(q, ctx, identity, candidate);
  let userId: string;
  let identityId: string;
  let created = false;
  switch (decision.kind) {
    case 'exists':
      userId = decision.userId;
      identityId = decision.identityId;
      await q.query(
        `update auth.identities set identity_data = $2::text::jsonb, updated_at = now() where id = $1`,
        [identityId, JSON.stringify(claims)],
      );
      await mergeUserMetadata(q, userId, claims);
      await updateProviders(q, userId);
      break;
    case 'link':
      userId = decision.userId;
      identityId = await insertExternalIdentity(q, userId, provider, claims);
      await mergeUserMetadata(q, userId, claims);
      await updateProviders(q, userId);
      break;
    case 'create':
      if (ctx.config.auth.disableSignup) throw SIGNUP_DISABLED();
      userId = await insertUser(
        q,
        {
          email: candidate.email || null,
          userMetadata: claims,
          appMetadata: { provider, providers: [provider] },
          external: true,
        },
        ctx.hooks,
      );
      identityId = await insertExternalIdentity(q, userId, provider, claims);
      created = true;
      break;
    default:
      throw internal(
        'Multiple accounts with the same email address in the same linking domain detected: default',
      );
  }
  let user = await findUserById(q, userId, true);
  if (!user) throw internal('Database error finding user');
  if (user.banned) throw forbidden('user_banned', 'User is banned');
  const hasEmails = !(identity.emailOptional && candidate.email === '');
  const mails: OutgoingMail[] = [];
  let error: AuthError | null = null;
  if (hasEmails && !user.email_confirmed_at) {
    await removeUnconfirmedIdentities(q, userId, { id: identityId, provider, claims });
    if (candidate.verified || ctx.config.auth.autoconfirm) {
      await confirm(q, userId);
    } else {
      const email = user.email;
      if (candidate.email && email) {
        mails.push(await prepareConfirmation(q, ctx, { id: userId, email }, redirectTo, null));
      }
      error = needsVerification(provider, mails.length > 0);
    }
    user = await findUserById(q, userId);
    if (!user) throw internal('Database error finding user');
  }
  return { user, created, error, mails };
}

/**
 * GoTrue's `UpdateUserEmailFromIdentities`: when no identity has the user's email any more,
 * the email of another identity takes its place (verified ones first, then unverified, then
 * none; oldest first) — one no other user has. Unconfirmed unless verified or autoconfirm.
 * Returns false when every candidate email belongs to someone else.
 */
export async function emailFromIdentities(q: Queryable, ctx: AuthContext, user: UserRow) {
  const { rows } = await q.query<{ email: string | null; verified: boolean }>(
    `select i.email, coalesce(i.identity_data ->> 'email_verified' = 'true', false) as verified
     from auth.identities i where i.user_id = $1
     order by case when coalesce(i.email, '') = '' then 2
                   when coalesce(i.identity_data ->> 'email_verified' = 'true', false) then 0
                   else 1 end,
              i.created_at, i.id::text`,
    [user.id],
  );
  const current = user.email ?? '';
  if (rows.some((r) => (r.email ?? '') === current)) return true;
  for (const r of rows) {
    const email = r.email ?? '';
    if (email && (await emailTaken(q, email, user.id))) continue;
    await q.query(
      `update auth.users set email = nullif($2, ''), updated_at = now() where id = $1`,
      [user.id, email],
    );
    if (!email || (!r.verified && !ctx.config.auth.autoconfirm)) {
      await q.query(
        `update auth.users set email_confirmed_at = null,
           raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || '{"email_verified": false}'::jsonb
         where id = $1`,
        [user.id],
      );
    }
    return true;
  }
  return false;
}

/** GoTrue's `linkIdentityToUser`: manual linking of an identity to the signed-in user. */
export async function linkExternal(
  q: Queryable,
  ctx: AuthContext,
  targetId: string,
  identity: ExternalIdentity,
  redirectTo: string,
): Promise<AccountOutcome> {
  const { provider, claims } = identity;
  const known = await q.query<{ user_id: string }>(
    'select user_id from auth.identities where provider_id = $1 and provider = $2',
    [claims.sub, provider],
  );
  if (known.rows[0]) {
    throw unprocessable(
      'identity_already_exists',
      known.rows[0].user_id === targetId
        ? 'Identity is already linked'
        : 'Identity is already linked to another user',
    );
  }
  let target = await findUserById(q, targetId, true);
  if (!target) throw unprocessable('user_not_found', 'Linking target user not found');
  await insertExternalIdentity(q, targetId, provider, claims);
  const mails: OutgoingMail[] = [];
  let error: AuthError | null = null;
  if (!target.email) {
    let ok: boolean;
    try {
      ok = await emailFromIdentities(q, ctx, target);
    } catch (e) {
      if (uniqueConflict(e)) throw new AuthError(400, 'email_exists', DUPLICATE_EMAIL);
      throw e;
    }
    if (!ok) throw new AuthError(400, 'email_exists', DUPLICATE_EMAIL);
    const updated = await findUserById(q, targetId);
    if (claims.email_verified !== true) {
      if (updated?.email) {
        const mail = { id: targetId, email: updated.email };
        mails.push(await prepareConfirmation(q, ctx, mail, redirectTo, null));
      }
      error = unprocessable(
        'email_not_confirmed',
        `Unverified email with ${provider}. A confirmation email has been sent to your ${provider} email`,
      );
    } else {
      await confirm(q, targetId);
      await q.query('update auth.users set is_anonymous = false where id = $1', [targetId]);
    }
  }
  await updateProviders(q, targetId);
  target = await findUserById(q, targetId);
  if (!target) throw internal('Database error finding user');
  return { user: target, created: false, error, mails };
}
