import { randomBytes, randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import type { Transaction } from '../../db/index';
import type { AppEnv } from '../../service-module';
import { readBody } from '../body';
import type { AuthContext } from '../context';
import { AuthError, badRequest, notFound } from '../errors';
import { requireUser } from '../guard';
import { isAllowedRedirect } from '../links';
import { findClient } from './clients';
import { HS256_ID_TOKEN } from './oidc';

/** The scopes a client may ask for (GoTrue's supported scopes); `email` when none is given. */
export const SCOPES = ['openid', 'email', 'profile', 'phone', 'offline_access'];
const DEFAULT_SCOPE = 'email';

interface AuthorizationRow {
  id: string;
  authorization_id: string;
  client_id: string;
  user_id: string | null;
  redirect_uri: string;
  scope: string;
  state: string | null;
  status: string;
  expired: boolean;
}

const scopeList = (scope: string) => scope.split(' ').filter(Boolean);
const NOT_FOUND = () => notFound('oauth_authorization_not_found', 'authorization not found');

/** `redirect_uri` with extra query parameters (its own query kept). */
function withParams(uri: string, params: Record<string, string | null>): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v) url.searchParams.set(k, v);
  return url.toString();
}

/** The `/oauth/authorize` checks after client and redirect URI: an error message or null. */
function requestError(q: Record<string, string | undefined>, scope: string): string | null {
  if ((q.response_type || 'code') !== 'code') return 'only response_type=code is supported';
  const unknown = scopeList(scope).find((s) => !SCOPES.includes(s));
  if (unknown) return `unsupported scope: ${unknown}`;
  if (!q.code_challenge || !q.code_challenge_method) {
    return 'PKCE flow requires both code_challenge and code_challenge_method';
  }
  if (q.code_challenge_method.toLowerCase() !== 's256')
    return "code_challenge_method must be 'S256'";
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(q.code_challenge)) {
    return 'code_challenge must be between 43 and 128 characters';
  }
  if (q.resource && (!URL.canParse(q.resource) || /[#?]/.test(q.resource))) {
    return 'resource must be an absolute URI without query or fragment';
  }
  if ((q.nonce ?? '').length > 255) return 'nonce must be at most 255 characters';
  return null;
}

/**
 * The consent API is called by the app's consent page, which `/oauth/authorize` sent the
 * browser to: a browser request from another origin is refused, as GoTrue does (requests
 * without `Origin`, from servers and native apps, pass).
 */
function checkOrigin(c: Context<AppEnv>, ctx: AuthContext): void {
  const origin = c.req.header('origin');
  if (origin && !isAllowedRedirect(ctx, origin)) {
    throw badRequest('validation_failed', 'unauthorized request origin');
  }
}

/** GET /oauth/authorize: checks the request, stores it and sends the browser to the consent page. */
async function authorize(c: Context<AppEnv>, ctx: AuthContext) {
  const q = c.req.query();
  if (!q.client_id) throw badRequest('validation_failed', 'client_id is required');
  if (!q.redirect_uri) throw badRequest('validation_failed', 'redirect_uri is required');
  const client = await findClient(ctx.db, q.client_id);
  if (!client) throw badRequest('oauth_client_not_found', 'invalid client_id');
  if (!client.redirect_uris.split(',').includes(q.redirect_uri)) {
    throw badRequest('validation_failed', 'invalid redirect_uri');
  }
  // From here on errors go back to the client app, as RFC 6749 §4.1.2.1 wants.
  const scope = q.scope || DEFAULT_SCOPE;
  const problem = requestError(q, scope);
  const hs256 = scopeList(scope).includes('openid') && ctx.keys.current().alg === 'HS256';
  if (problem || hs256) {
    return c.redirect(
      withParams(q.redirect_uri, {
        error: problem ? 'invalid_request' : 'invalid_scope',
        error_description: problem ?? HS256_ID_TOKEN().message,
        state: q.state ?? null,
      }),
      302,
    );
  }
  const authorizationId = randomBytes(24).toString('base64url');
  await ctx.db.query(
    `insert into auth.oauth_authorizations (id, authorization_id, client_id, redirect_uri, scope,
       state, resource, code_challenge, code_challenge_method, nonce, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, 's256', $10, now() + make_interval(secs => $9))`,
    [
      randomUUID(),
      authorizationId,
      client.id,
      q.redirect_uri,
      scopeList(scope).join(' '),
      q.state || null,
      q.resource || null,
      q.code_challenge,
      ctx.config.auth.oauthServer.authorizationTtl,
      q.nonce || null,
    ],
  );
  const site = (ctx.config.auth.siteUrl ?? ctx.config.url).replace(/\/+$/, '');
  const consent = new URL(site + ctx.config.auth.oauthServer.authorizationUrlPath);
  consent.searchParams.set('authorization_id', authorizationId);
  return c.redirect(consent.toString(), 302);
}

/** The pending authorization for `userId` (claimed by the first user who opens it), locked. */
async function lockAuthorization(
  tx: Transaction,
  id: string,
): Promise<AuthorizationRow | AuthError> {
  const { rows } = await tx.query<AuthorizationRow>(
    `select id, authorization_id, client_id, user_id, redirect_uri, scope, state, status::text,
            expires_at < now() as expired
     from auth.oauth_authorizations where authorization_id = $1 for update`,
    [id],
  );
  const row = rows[0];
  if (!row) return NOT_FOUND();
  if (row.expired) {
    await tx.query(
      `update auth.oauth_authorizations set status = 'expired' where id = $1 and status = 'pending'`,
      [row.id],
    );
    return NOT_FOUND();
  }
  return row;
}

/** Approves: a one-time code, the user's consent to these scopes, and the client redirect. */
async function approve(tx: Transaction, row: AuthorizationRow, userId: string): Promise<string> {
  const code = randomBytes(32).toString('base64url');
  await tx.query(
    `with approved as (
       update auth.oauth_authorizations
       set status = 'approved', approved_at = now(), authorization_code = $2 where id = $1
     )
     insert into auth.oauth_consents (id, user_id, client_id, scopes)
     values ($3, $4, $5, $6)
     on conflict (user_id, client_id) do update set
       scopes = case when auth.oauth_consents.revoked_at is null
         then (select string_agg(distinct s, ' ' order by s)
               from unnest(string_to_array(auth.oauth_consents.scopes || ' ' || excluded.scopes, ' ')) s)
         else excluded.scopes end,
       granted_at = now(), revoked_at = null`,
    [row.id, code, randomUUID(), userId, row.client_id, row.scope],
  );
  return withParams(row.redirect_uri, { code, state: row.state });
}

/** Runs `fn` on the locked authorization; a not-found found while expiring still commits. */
async function withAuthorization<T>(
  ctx: AuthContext,
  id: string,
  fn: (tx: Transaction, row: AuthorizationRow) => Promise<T>,
): Promise<T> {
  const out = await ctx.db.transaction(async (tx) => {
    const row = await lockAuthorization(tx, id);
    return row instanceof AuthError ? { error: row } : { value: await fn(tx, row) };
  });
  if ('error' in out) throw out.error;
  return out.value;
}

/**
 * The consent API of the app's consent page: `GET /oauth/authorizations/:id` (details, or
 * at once a redirect when the user already granted these scopes) and `POST …/consent`.
 */
export function authorizationRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  routes.get('/oauth/authorize', (c) => authorize(c, ctx));
  routes.get('/oauth/authorizations/:id', async (c) => {
    checkOrigin(c, ctx);
    const { user } = await requireUser(c, ctx);
    const result = await withAuthorization(ctx, c.req.param('id'), async (tx, row) => {
      if (row.status !== 'pending') {
        throw badRequest('validation_failed', 'authorization request cannot be processed');
      }
      if (row.user_id && row.user_id !== user.id) throw NOT_FOUND();
      if (!row.user_id) {
        await tx.query('update auth.oauth_authorizations set user_id = $2 where id = $1', [
          row.id,
          user.id,
        ]);
        const consent = await tx.query<{ scopes: string }>(
          `select scopes from auth.oauth_consents
           where user_id = $1 and client_id = $2 and revoked_at is null`,
          [user.id, row.client_id],
        );
        const granted = scopeList(consent.rows[0]?.scopes ?? '');
        if (consent.rows[0] && scopeList(row.scope).every((s) => granted.includes(s))) {
          return { redirect_url: await approve(tx, row, user.id) };
        }
      }
      return { row };
    });
    if ('redirect_url' in result) return c.json(result);
    const { row } = result;
    const client = await findClient(ctx.db, row.client_id);
    if (!client) throw NOT_FOUND();
    const details: Record<string, string> = { id: client.id };
    if (client.client_name) details.name = client.client_name;
    if (client.client_uri) details.uri = client.client_uri;
    if (client.logo_uri) details.logo_uri = client.logo_uri;
    return c.json({
      authorization_id: row.authorization_id,
      redirect_uri: row.redirect_uri,
      client: details,
      user: { id: user.id, email: user.email ?? '' },
      scope: row.scope,
    });
  });
  routes.post('/oauth/authorizations/:id/consent', async (c) => {
    checkOrigin(c, ctx);
    const { user } = await requireUser(c, ctx);
    const { action } = await readBody(c, { action: 'string' });
    if (action !== 'approve' && action !== 'deny') {
      throw badRequest('validation_failed', "action must be 'approve' or 'deny'");
    }
    const redirectUrl = await withAuthorization(ctx, c.req.param('id'), async (tx, row) => {
      if (row.status !== 'pending') {
        throw badRequest('validation_failed', 'authorization request is no longer pending');
      }
      if (row.user_id !== user.id) throw NOT_FOUND();
      if (action === 'approve') return approve(tx, row, user.id);
      await tx.query(`update auth.oauth_authorizations set status = 'denied' where id = $1`, [
        row.id,
      ]);
      return withParams(row.redirect_uri, {
        error: 'access_denied',
        error_description: 'User denied the request',
        state: row.state,
      });
    });
    return c.json({ redirect_url: redirectUrl });
  });
}
