import { randomUUID } from 'node:crypto';
import { pgError, type Queryable } from '../db/index';
import { AuthError, internal, unprocessable } from './errors';
import type { AuthHooks } from './hooks';

/** Timestamps as the hosted service prints them (RFC 3339, UTC, microseconds). */
export const iso = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const TIMESTAMPS = [
  'email_confirmed_at',
  'invited_at',
  'confirmation_sent_at',
  'recovery_sent_at',
  'email_change_sent_at',
  'last_sign_in_at',
  'created_at',
  'updated_at',
  'phone_confirmed_at',
  'confirmed_at',
  'banned_until',
  'reauthentication_sent_at',
  'deleted_at',
  'phone_change_sent_at',
];

const IDENTITIES = `(select coalesce(json_agg(json_build_object(
    'identity_id', i.id, 'id', i.provider_id, 'user_id', i.user_id,
    'identity_data', i.identity_data, 'provider', i.provider,
    'last_sign_in_at', ${iso('i.last_sign_in_at')}, 'created_at', ${iso('i.created_at')},
    'updated_at', ${iso('i.updated_at')}, 'email', i.email) order by i.created_at), '[]'::json)
  from auth.identities i where i.user_id = u.id) as identities`;

/** The columns of a factor row (`f`) as its JSON, timestamps formatted. */
export const FACTOR_FIELDS = `'id', f.id, 'created_at', ${iso('f.created_at')},
    'updated_at', ${iso('f.updated_at')}, 'status', f.status, 'friendly_name', f.friendly_name,
    'factor_type', f.factor_type, 'phone', coalesce(f.phone, ''),
    'last_challenged_at', ${iso('f.last_challenged_at')}, 'web_authn_aaguid', f.web_authn_aaguid,
    'last_webauthn_challenge_data', f.last_webauthn_challenge_data`;

const FACTORS = `(select coalesce(json_agg(json_build_object(${FACTOR_FIELDS}) order by f.created_at),
    '[]'::json) from auth.mfa_factors f where f.user_id = u.id) as factors`;

/** A factor as the hosted service shows it (`friendly_name` left out when empty). */
export interface FactorJson {
  id: string;
  created_at: string;
  updated_at: string;
  status: 'verified' | 'unverified';
  friendly_name?: string;
  factor_type: 'totp' | 'phone' | 'webauthn';
  phone: string;
  last_challenged_at: string | null;
  /** WebAuthn factors: the authenticator model of the registered credential. */
  web_authn_aaguid?: string | null;
  /** WebAuthn factors: the last challenge answered and the browser's answer. */
  last_webauthn_challenge_data?: unknown;
}

/** Fields the hosted JSON omits when empty. */
const OMIT_EMPTY = new Set(['friendly_name', 'web_authn_aaguid', 'last_webauthn_challenge_data']);

/** Drops what the hosted JSON omits when empty (`friendly_name`, the WebAuthn fields). */
export function factorJson(raw: FactorJson): FactorJson {
  return Object.fromEntries(
    Object.entries(raw).filter(([key, value]) => !OMIT_EMPTY.has(key) || !!value),
  ) as unknown as FactorJson;
}

/** The select list of a user row (`u`), timestamps formatted, identities attached. */
export const USER_SELECT = [
  'u.id',
  'u.aud',
  'u.role',
  'u.email',
  'u.encrypted_password',
  'u.confirmation_token',
  'u.recovery_token',
  'u.email_change_token_new',
  'u.email_change_token_current',
  'u.email_change',
  'u.email_change_confirm_status',
  'u.raw_app_meta_data',
  'u.raw_user_meta_data',
  'u.phone',
  'u.phone_change',
  'u.is_anonymous',
  'u.banned_until > now() as banned',
  ...TIMESTAMPS.map((c) => `${iso(`u.${c}`)} as ${c}`),
  IDENTITIES,
  FACTORS,
].join(', ');

/** A user as read from auth.users (timestamps already formatted). */
export interface UserRow {
  id: string;
  aud: string | null;
  role: string | null;
  email: string | null;
  encrypted_password: string | null;
  confirmation_token: string | null;
  recovery_token: string | null;
  email_change_token_new: string | null;
  email_change_token_current: string | null;
  email_change: string | null;
  email_change_confirm_status: number | null;
  raw_app_meta_data: Record<string, unknown> | null;
  raw_user_meta_data: Record<string, unknown> | null;
  phone: string | null;
  phone_change: string | null;
  is_anonymous: boolean;
  banned: boolean | null;
  email_confirmed_at: string | null;
  invited_at: string | null;
  confirmation_sent_at: string | null;
  recovery_sent_at: string | null;
  email_change_sent_at: string | null;
  last_sign_in_at: string | null;
  created_at: string;
  updated_at: string;
  phone_confirmed_at: string | null;
  confirmed_at: string | null;
  banned_until: string | null;
  reauthentication_sent_at: string | null;
  deleted_at: string | null;
  phone_change_sent_at: string | null;
  identities: unknown[];
  factors?: FactorJson[];
}

/** The one user matching `where` (on alias `u`), or null. */
export async function findUser(
  q: Queryable,
  where: string,
  params: readonly unknown[],
  lock = false,
  /** Extra select-list items (may use the same parameters). */
  extra?: string,
): Promise<UserRow | null> {
  const { rows } = await q.query<UserRow>(
    `select ${USER_SELECT}${extra ? `, ${extra}` : ''} from auth.users u where ${where} limit 1${lock ? ' for update of u' : ''}`,
    params,
  );
  return rows[0] ?? null;
}

export const findUserById = (q: Queryable, id: string, lock = false) =>
  findUser(q, 'u.id = $1', [id], lock);

export const findUserByEmail = (q: Queryable, email: string, lock = false) =>
  findUser(q, 'lower(u.email) = lower($1) and u.is_sso_user = false', [email], lock);

/** The user with a phone number (digits only, as stored). */
export const findUserByPhone = (q: Queryable, phone: string, lock = false) =>
  findUser(q, 'u.phone = $1', [phone], lock);

const optional = (key: string, value: string | null | undefined) => (value ? { [key]: value } : {});

/**
 * An identity as GoTrue's JSON has it: `identity_data`, `last_sign_in_at` and `email` left out
 * when empty (`omitempty`).
 */
export function identityJson(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const empty =
      value === null ||
      value === '' ||
      (key === 'identity_data' && typeof value === 'object' && !Object.keys(value).length);
    if (empty && (key === 'identity_data' || key === 'last_sign_in_at' || key === 'email')) {
      continue;
    }
    out[key] = value;
  }
  return out;
}

/** The hosted User JSON (`email`/`phone` are "" when unset; empty timestamps omitted). */
export function userJson(row: UserRow): Record<string, unknown> {
  return {
    id: row.id,
    aud: row.aud ?? '',
    role: row.role ?? '',
    email: row.email ?? '',
    ...optional('email_confirmed_at', row.email_confirmed_at),
    phone: row.phone ?? '',
    ...optional('phone_confirmed_at', row.phone_confirmed_at),
    ...optional('confirmation_sent_at', row.confirmation_sent_at),
    ...optional('confirmed_at', row.confirmed_at),
    ...optional('invited_at', row.invited_at),
    ...optional('recovery_sent_at', row.recovery_sent_at),
    ...optional('new_email', row.email_change),
    ...optional('email_change_sent_at', row.email_change_sent_at),
    ...optional('new_phone', row.phone_change),
    ...optional('phone_change_sent_at', row.phone_change_sent_at),
    ...optional('reauthentication_sent_at', row.reauthentication_sent_at),
    ...optional('last_sign_in_at', row.last_sign_in_at),
    app_metadata: row.raw_app_meta_data ?? {},
    user_metadata: row.raw_user_meta_data ?? {},
    identities: (row.identities ?? []).map((i) => identityJson(i as Record<string, unknown>)),
    ...(row.factors?.length ? { factors: row.factors.map(factorJson) } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
    ...optional('banned_until', row.banned_until),
    ...optional('deleted_at', row.deleted_at),
    is_anonymous: row.is_anonymous,
  };
}

/** The provider and app metadata a new user starts with. */
function newUserMetadata(user: NewUser) {
  const provider: 'email' | 'phone' | null =
    user.isAnonymous || user.external ? null : user.email ? 'email' : user.phone ? 'phone' : null;
  const appMetadata = {
    ...(provider ? { provider, providers: [provider] } : {}),
    ...(user.appMetadata ?? {}),
  };
  return { provider, appMetadata };
}

/** A user about to be stored, as the before-user-created hook sees it. */
function newUserJson(user: NewUser & { id: string }): Record<string, unknown> {
  const now = new Date().toISOString();
  return {
    id: user.id,
    aud: 'authenticated',
    role: user.role ?? 'authenticated',
    email: user.email ?? '',
    phone: user.phone ?? '',
    app_metadata: newUserMetadata(user).appMetadata,
    user_metadata: user.userMetadata ?? {},
    identities: [],
    created_at: now,
    updated_at: now,
    is_anonymous: user.isAnonymous ?? false,
  };
}

/**
 * Runs the before-user-created hook for a user about to be created, before the transaction
 * that stores it (as GoTrue: outside it, a Postgres hook in a transaction of its own, so an
 * HTTP hook may call back into the database). Returns the user with its id fixed, for
 * {@link insertUser}; a rejection is the hook's error.
 */
export async function admitNewUser(
  hooks: Pick<AuthHooks, 'beforeUserCreated'>,
  user: NewUser,
): Promise<NewUser & { id: string }> {
  const admitted = { ...user, id: user.id ?? randomUUID() };
  await hooks.beforeUserCreated(null, newUserJson(admitted));
  return admitted;
}

/** What a new user starts with. */
export interface NewUser {
  id?: string;
  email?: string | null;
  phone?: string | null;
  passwordHash?: string | null;
  role?: string;
  userMetadata?: Record<string, unknown>;
  appMetadata?: Record<string, unknown>;
  emailConfirmed?: boolean;
  phoneConfirmed?: boolean;
  invited?: boolean;
  isAnonymous?: boolean;
  bannedUntil?: string | null;
  /** Signs up through an external provider: no email/phone identity, `appMetadata` as given. */
  external?: boolean;
}

export const DUPLICATE_EMAIL = 'A user with this email address has already been registered';
export const DUPLICATE_PHONE = 'Phone number already registered by another user';

/** 422 `email_exists` / `phone_exists` for a unique violation on those columns, else null. */
export function uniqueConflict(error: unknown): AuthError | null {
  const pg = pgError(error);
  if (pg?.code !== '23505') return null;
  const text = `${pg.message} ${pg.detail ?? ''}`;
  if (/\bemail\b|email_partial/.test(text)) return unprocessable('email_exists', DUPLICATE_EMAIL);
  if (/\bphone\b|phone_key/.test(text)) return unprocessable('phone_exists', DUPLICATE_PHONE);
  return null;
}

/**
 * Creates a user by INSERTing into auth.users (so the app's triggers fire), plus its email
 * identity; with `hooks`, the before-user-created hook sees it first and may reject it. A duplicate email → 422 `email_exists`; any other database error (e.g. a failing
 * trigger) → 500 "Database error saving new user", the details kept on the server.
 */
export async function insertUser(
  q: Queryable,
  user: NewUser,
  hooks?: Pick<AuthHooks, 'beforeUserCreated'>,
): Promise<string> {
  const id = user.id ?? randomUUID();
  const { provider, appMetadata } = newUserMetadata(user);
  if (hooks) await hooks.beforeUserCreated(q, newUserJson({ ...user, id }));
  try {
    await q.query(
      `insert into auth.users (instance_id, id, aud, role, email, phone, encrypted_password,
         raw_app_meta_data, raw_user_meta_data, email_confirmed_at, phone_confirmed_at, invited_at,
         is_anonymous, banned_until, is_super_admin, created_at, updated_at)
       values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', $2, $3, $4, $5,
         $6::text::jsonb, $7::text::jsonb, case when $8 then now() end, case when $9 then now() end,
         case when $10 then now() end, $11, $12::timestamptz, false, now(), now())`,
      [
        id,
        user.role ?? 'authenticated',
        user.email ?? null,
        user.phone ?? null,
        user.passwordHash ?? '',
        JSON.stringify(appMetadata),
        JSON.stringify(user.userMetadata ?? {}),
        user.emailConfirmed ?? false,
        user.phoneConfirmed ?? false,
        user.invited ?? false,
        user.isAnonymous ?? false,
        user.bannedUntil ?? null,
      ],
    );
    if (provider) {
      const verified = provider === 'email' ? !!user.emailConfirmed : !!user.phoneConfirmed;
      await insertIdentity(q, id, provider, user.email ?? null, user.phone ?? null, verified);
    }
  } catch (error) {
    if (error instanceof AuthError) throw error;
    const conflict = uniqueConflict(error);
    if (conflict) throw conflict;
    throw internal('Database error saving new user', error);
  }
  return id;
}

/** The email (or phone) identity of a user. */
export async function insertIdentity(
  q: Queryable,
  userId: string,
  provider: 'email' | 'phone',
  email: string | null,
  phone: string | null,
  verified = false,
): Promise<void> {
  const data = {
    sub: userId,
    ...(email ? { email } : {}),
    ...(phone ? { phone } : {}),
    email_verified: provider === 'email' && verified,
    phone_verified: provider === 'phone' && verified,
  };
  await q.query(
    `insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
     values ($1::text, $1::uuid, $2::text::jsonb, $3, now(), now())
     on conflict (provider_id, provider) do update set identity_data = excluded.identity_data, updated_at = now()`,
    [userId, JSON.stringify(data), provider],
  );
}

/** Marks the user's email confirmed (and its identity verified). */
export async function confirmEmail(q: Queryable, userId: string): Promise<void> {
  await q.query(
    `update auth.users set email_confirmed_at = coalesce(email_confirmed_at, now()),
       confirmation_token = '', updated_at = now() where id = $1`,
    [userId],
  );
  await q.query(
    `update auth.identities set identity_data = identity_data || '{"email_verified": true}'::jsonb,
       updated_at = now() where user_id = $1 and provider = 'email'`,
    [userId],
  );
}

/** Merges metadata like the hosted service: keys replaced, `null` values removed. */
export function mergeMetadata(
  current: Record<string, unknown> | null,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(current ?? {}) };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = value;
  }
  return out;
}
