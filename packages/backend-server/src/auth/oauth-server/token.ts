import type { Context, Hono } from 'hono';
import type { AppEnv } from '../../service-module';
import { readLimited } from '../body';
import type { AuthContext } from '../context';
import { s256 } from '../crypto';
import { AuthError, OAuthError } from '../errors';
import { userAgent } from '../routes/util';
import { refreshGrant, startSession } from '../sessions';
import { findUserById } from '../users';
import { type ClientRow, findClient, secretMatches } from './clients';
import { HS256_ID_TOKEN, idTokenClaims } from './oidc';

type Params = Record<string, string>;

/** The token request's fields: a form (RFC 6749) or, as GoTrue also takes, JSON. */
async function readParams(c: Context<AppEnv>): Promise<Params> {
  const text = await readLimited(c);
  if ((c.req.header('content-type') ?? '').includes('application/json')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new OAuthError('invalid_request', 'Invalid JSON body');
    }
    if (typeof value !== 'object' || value === null) {
      throw new OAuthError('invalid_request', 'Invalid JSON body');
    }
    return Object.fromEntries(
      Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
  }
  return Object.fromEntries(new URLSearchParams(text));
}

const invalidClient = (message: string) => new OAuthError('invalid_client', message);

/**
 * The calling client (RFC 6749 §2.3): HTTP Basic (`client_secret_basic`, id and secret
 * form-encoded), the body's `client_secret` (`client_secret_post`) or only `client_id`
 * (`none`, public clients); the method must be the one the client registered.
 */
async function authenticateClient(
  c: Context<AppEnv>,
  ctx: AuthContext,
  params: Params,
): Promise<ClientRow> {
  let id = params.client_id ?? '';
  let secret = params.client_secret ?? '';
  let method = secret ? 'client_secret_post' : 'none';
  const header = c.req.header('authorization') ?? '';
  if (/^basic /i.test(header)) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw invalidClient('invalid basic auth format');
    try {
      id = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    } catch {
      throw invalidClient('invalid basic auth encoding');
    }
    method = 'client_secret_basic';
  }
  if (!id) throw invalidClient('client_id is required');
  const client = await findClient(ctx.db, id);
  if (!client) throw invalidClient('Invalid client credentials');
  if (method !== client.token_endpoint_auth_method) {
    throw invalidClient(
      `Client authentication method mismatch: registered '${client.token_endpoint_auth_method}', used '${method}'`,
    );
  }
  if (method !== 'none' && !secretMatches(client, secret)) {
    throw invalidClient('Invalid client credentials');
  }
  return client;
}

interface CodeRow {
  id: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  resource: string | null;
  code_challenge: string;
  scope: string;
  nonce: string | null;
  expired: boolean;
  banned: boolean | null;
}

/** `authorization_code`: the approved code, once, for its client, with its PKCE verifier. */
async function codeGrant(c: Context<AppEnv>, ctx: AuthContext, client: ClientRow, p: Params) {
  if (!p.code)
    throw new OAuthError('invalid_request', 'code is required for authorization_code grant');
  const outcome = await ctx.db.transaction(async (tx) => {
    const { rows } = await tx.query<CodeRow>(
      `select a.id, a.client_id, a.user_id, a.redirect_uri, a.resource, a.code_challenge,
              a.scope, a.nonce, a.expires_at < now() as expired, u.banned_until > now() as banned
       from auth.oauth_authorizations a left join auth.users u on u.id = a.user_id
       where a.authorization_code = $1 and a.status = 'approved' for update of a`,
      [p.code],
    );
    const row = rows[0];
    if (!row) return new OAuthError('invalid_grant', 'Invalid authorization code');
    // A code is spent by any attempt to use it, failed or not.
    await tx.query('delete from auth.oauth_authorizations where id = $1', [row.id]);
    if (row.expired) return new OAuthError('invalid_grant', 'Authorization code has expired');
    if (row.client_id !== client.id) {
      return new OAuthError('invalid_grant', 'Authorization code was not issued for this client');
    }
    if (p.redirect_uri && p.redirect_uri !== row.redirect_uri) {
      return new OAuthError('invalid_grant', 'Invalid redirect_uri');
    }
    if (p.resource && p.resource !== row.resource) {
      return new OAuthError(
        'invalid_grant',
        'Authorization code resource does not match the resource parameter',
      );
    }
    if (!p.code_verifier) {
      return new OAuthError('invalid_grant', 'PKCE verification failed: code_verifier is required');
    }
    if (s256(p.code_verifier) !== row.code_challenge) {
      return new OAuthError(
        'invalid_grant',
        'PKCE verification failed: code challenge does not match',
      );
    }
    if (row.banned) return new OAuthError('access_denied', 'User is banned');
    const openid = row.scope.split(' ').includes('openid');
    if (openid && ctx.keys.current().alg === 'HS256') return HS256_ID_TOKEN();
    const session = await startSession(tx, ctx, row.user_id, 'oauth_provider/authorization_code', {
      userAgent: userAgent(c),
      oauthClientId: client.id,
      scopes: row.scope,
    });
    if (!openid) return session;
    // OpenID Connect: an ID token beside the access token, signed with the same key.
    const user = await findUserById(tx, row.user_id);
    if (!user) return new OAuthError('invalid_grant', 'User not found');
    const claims = idTokenClaims(ctx, {
      user,
      clientId: client.id,
      scopes: row.scope,
      nonce: row.nonce,
    });
    return { ...session, id_token: ctx.keys.sign(claims) };
  });
  // The spent code is committed before the error is reported.
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}

/** `refresh_token`: our rotation, for a refresh token of a session issued to this client. */
async function refreshTokenGrant(ctx: AuthContext, client: ClientRow, p: Params) {
  if (!p.refresh_token) {
    throw new OAuthError('invalid_request', 'refresh_token is required for refresh_token grant');
  }
  try {
    return await refreshGrant(ctx, p.refresh_token, client.id);
  } catch (error) {
    if (error instanceof AuthError) throw new OAuthError('invalid_grant', error.message);
    throw error;
  }
}

/** POST /oauth/token: the OAuth 2.1 token endpoint (authorization code with PKCE, refresh). */
export function oauthTokenRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  routes.post('/oauth/token', async (c) => {
    const params = await readParams(c);
    if (!params.grant_type) throw new OAuthError('invalid_request', 'grant_type is required');
    const client = await authenticateClient(c, ctx, params);
    if (!client.grant_types.split(',').includes(params.grant_type)) {
      throw new OAuthError(
        'unsupported_grant_type',
        `Client is not allowed to use grant type: ${params.grant_type}`,
      );
    }
    const session =
      params.grant_type === 'authorization_code'
        ? await codeGrant(c, ctx, client, params)
        : await refreshTokenGrant(ctx, client, params);
    c.header('cache-control', 'no-store');
    // The OAuth response (RFC 6749 §5.1): no user object for third-party clients, as GoTrue.
    return c.json({
      access_token: session.access_token,
      token_type: session.token_type,
      expires_in: session.expires_in,
      refresh_token: session.refresh_token,
      ...(session.id_token ? { id_token: session.id_token } : {}),
    });
  });
}
