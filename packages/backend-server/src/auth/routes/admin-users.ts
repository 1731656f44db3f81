import type { Context, Hono } from 'hono';
import type { Queryable } from '../../db/index';
import type { AppEnv } from '../../service-module';
import { readBody } from '../body';
import type { AuthContext } from '../context';
import { badRequest, internal, notFound, unprocessable } from '../errors';
import { isUuid } from '../guard';
import { checkStrength, hashPassword, validateEmail } from '../passwords';
import { validatePhone } from '../phone';
import {
  DUPLICATE_EMAIL,
  findUserByEmail,
  findUserById,
  insertUser,
  mergeMetadata,
  USER_SELECT,
  type UserRow,
  uniqueConflict,
  userJson,
} from '../users';
import { pageHeaders, pageParams } from './util';

const USER_FIELDS = {
  email: 'string',
  phone: 'string',
  password: 'string',
  password_hash: 'string',
  email_confirm: 'boolean',
  phone_confirm: 'boolean',
  user_metadata: 'object',
  app_metadata: 'object',
  data: 'object',
  role: 'string',
  ban_duration: 'string',
  id: 'string',
} as const;

const GO_DURATION = /^(\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/;
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1e3,
  m: 6e4,
  h: 36e5,
};

/** `banned_until` for a Go duration (`24h`, `1h30m`); null for `none`. */
export function banUntil(duration: string): string | null {
  if (duration === 'none') return null;
  if (!GO_DURATION.test(duration)) {
    throw badRequest(
      'validation_failed',
      `invalid format for ban duration: time: invalid duration "${duration}"`,
    );
  }
  let ms = 0;
  for (const [, n, unit] of duration.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) {
    ms += Number(n) * (UNIT_MS[unit as string] ?? 0);
  }
  return new Date(Date.now() + ms).toISOString();
}

async function loadUser(q: Queryable, id: string): Promise<UserRow> {
  if (!isUuid(id)) throw notFound('validation_failed', 'user_id must be an UUID');
  const user = await findUserById(q, id);
  if (!user) throw notFound('user_not_found', 'User not found');
  return user;
}

async function listUsers(c: Context<AppEnv>, ctx: AuthContext) {
  const paging = pageParams(c);
  const { page, perPage } = paging;
  const filter = c.req.query('filter') ?? '';
  const where = filter
    ? `where u.email ilike $1 or u.raw_user_meta_data ->> 'full_name' ilike $1`
    : 'where $1::text is null';
  const pattern = filter ? `%${filter.replace(/[\\%_]/g, '\\$&')}%` : null;
  const total = await ctx.db.query<{ n: number }>(
    `select count(*)::int as n from auth.users u ${where}`,
    [pattern],
  );
  const { rows } = await ctx.db.query<UserRow>(
    `select ${USER_SELECT} from auth.users u ${where}
     order by u.created_at desc, u.id limit $2 offset $3`,
    [pattern, perPage, (page - 1) * perPage],
  );
  const count = total.rows[0]?.n ?? 0;
  pageHeaders(c, `${ctx.config.url}/auth/v1/admin/users`, paging, count);
  return c.json({ users: rows.map(userJson), aud: 'authenticated' });
}

async function createUser(c: Context<AppEnv>, ctx: AuthContext) {
  const body = await readBody(c, USER_FIELDS);
  if (!body.email && !body.phone) {
    throw badRequest('validation_failed', 'Cannot create a user without either an email or phone');
  }
  const email = body.email ? validateEmail(body.email) : null;
  if (email && (await findUserByEmail(ctx.db, email))) {
    throw unprocessable('email_exists', DUPLICATE_EMAIL);
  }
  const phone = body.phone ? validatePhone(body.phone) : null;
  if (body.password && body.password_hash) {
    throw badRequest('validation_failed', 'Only a password or a password hash should be provided');
  }
  if (body.password) checkStrength(body.password, ctx.config.auth.passwordMinLength);
  if (body.password_hash && !/^\$2[aby]?\$\d{2}\$/.test(body.password_hash)) {
    throw badRequest('validation_failed', 'Invalid password hash format');
  }
  if (body.id !== undefined && !isUuid(body.id)) {
    throw badRequest('validation_failed', 'ID must conform to the uuid v4 format');
  }
  const bannedUntil = body.ban_duration ? banUntil(body.ban_duration) : null;
  const passwordHash = body.password
    ? await hashPassword(body.password)
    : (body.password_hash ?? null);
  const user = await ctx.db.transaction(async (tx) => {
    const id = await insertUser(tx, {
      ...(body.id ? { id: body.id } : {}),
      email,
      phone,
      passwordHash,
      role: body.role || 'authenticated',
      userMetadata: body.user_metadata ?? body.data ?? {},
      appMetadata: body.app_metadata ?? {},
      emailConfirmed: body.email_confirm ?? false,
      phoneConfirmed: body.phone_confirm ?? false,
      bannedUntil,
    });
    return findUserById(tx, id);
  });
  return c.json(user ? userJson(user) : {});
}

async function updateUser(c: Context<AppEnv>, ctx: AuthContext) {
  const current = await loadUser(ctx.db, c.req.param('id') ?? '');
  const body = await readBody(c, USER_FIELDS);
  const email = body.email ? validateEmail(body.email) : null;
  if (email && email !== current.email) {
    const taken = await findUserByEmail(ctx.db, email);
    if (taken && taken.id !== current.id) throw unprocessable('email_exists', DUPLICATE_EMAIL);
  }
  const phone = body.phone ? validatePhone(body.phone) : null;
  if (body.password) checkStrength(body.password, ctx.config.auth.passwordMinLength);
  const bannedUntil = body.ban_duration ? banUntil(body.ban_duration) : undefined;
  const passwordHash = body.password
    ? await hashPassword(body.password)
    : (body.password_hash ?? null);
  const userMetadata = body.user_metadata ?? body.data;
  const sets: string[] = [];
  const params: unknown[] = [current.id];
  const set = (sql: string, value: unknown) => {
    params.push(value);
    sets.push(sql.replace('?', `$${params.length}`));
  };
  if (email && email !== current.email) set('email = ?', email);
  if (phone) set('phone = ?', phone);
  if (passwordHash) set('encrypted_password = ?', passwordHash);
  if (body.role) set('role = ?', body.role);
  if (userMetadata)
    set(
      'raw_user_meta_data = ?::text::jsonb',
      JSON.stringify(mergeMetadata(current.raw_user_meta_data, userMetadata)),
    );
  if (body.app_metadata)
    set(
      'raw_app_meta_data = ?::text::jsonb',
      JSON.stringify(mergeMetadata(current.raw_app_meta_data, body.app_metadata)),
    );
  if (bannedUntil !== undefined) set('banned_until = ?::timestamptz', bannedUntil);
  if (body.email_confirm === true)
    sets.push('email_confirmed_at = coalesce(email_confirmed_at, now())');
  if (body.phone_confirm === true)
    sets.push('phone_confirmed_at = coalesce(phone_confirmed_at, now())');
  const user = await ctx.db.transaction(async (tx) => {
    try {
      await tx.query(
        `update auth.users set ${[...sets, 'updated_at = now()'].join(', ')} where id = $1`,
        params,
      );
      if (email && email !== current.email) {
        await tx.query(
          `update auth.identities set identity_data = identity_data || jsonb_build_object('email', $2::text),
             updated_at = now() where user_id = $1 and provider = 'email'`,
          [current.id, email],
        );
      }
    } catch (error) {
      throw uniqueConflict(error) ?? internal('Error updating user', error);
    }
    return findUserById(tx, current.id);
  });
  return c.json(user ? userJson(user) : {});
}

async function deleteUser(c: Context<AppEnv>, ctx: AuthContext) {
  const user = await loadUser(ctx.db, c.req.param('id') ?? '');
  const body = await readBody(c, { should_soft_delete: 'boolean' }, { allowEmpty: true });
  await ctx.db.transaction(async (tx) => {
    try {
      if (body.should_soft_delete) {
        await tx.query(
          `update auth.users set deleted_at = now(), email = null, phone = null,
             encrypted_password = '', confirmation_token = '', recovery_token = '',
             email_change = '', email_change_token_new = '', email_change_token_current = '',
             raw_app_meta_data = '{}'::jsonb, raw_user_meta_data = '{}'::jsonb, updated_at = now()
           where id = $1`,
          [user.id],
        );
        await tx.query('delete from auth.identities where user_id = $1', [user.id]);
        await tx.query('delete from auth.sessions where user_id = $1', [user.id]);
      } else {
        await tx.query('delete from auth.users where id = $1', [user.id]);
      }
    } catch (error) {
      throw internal('Database error deleting user', error);
    }
  });
  return c.json({});
}

/** Admin user management under /admin/users (the admin guard is mounted in front). */
export function adminUserRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  routes.get('/admin/users', (c) => listUsers(c, ctx));
  routes.post('/admin/users', (c) => createUser(c, ctx));
  routes.get('/admin/users/:id', async (c) =>
    c.json(userJson(await loadUser(ctx.db, c.req.param('id')))),
  );
  routes.put('/admin/users/:id', (c) => updateUser(c, ctx));
  routes.delete('/admin/users/:id', (c) => deleteUser(c, ctx));
}
