import type { Context, Hono } from 'hono';
import { formatPhone } from '../../config/sms-mfa';
import type { AppEnv } from '../../service-module';
import { readBody } from '../body';
import type { AuthContext } from '../context';
import { s256 } from '../crypto';
import { badRequest, notFound, unprocessable } from '../errors';
import { checkPassword } from '../passwords';
import { type AuthMethod, refreshGrant, startSession } from '../sessions';
import { findUserByEmail, findUserByPhone } from '../users';
import { web3Disabled } from './disabled';
import { idTokenGrant } from './id-token';
import { clientIp, userAgent } from './util';

const INVALID_LOGIN = 'Invalid login credentials';
/** Seconds a PKCE auth code stays exchangeable. */
const FLOW_STATE_EXPIRY = 300;

async function passwordGrant(c: Context<AppEnv>, ctx: AuthContext) {
  const body = await readBody(c, { email: 'string', phone: 'string', password: 'string' });
  if (body.email && body.phone) {
    throw badRequest(
      'validation_failed',
      'Only an email address or phone number should be provided on login.',
    );
  }
  if (body.phone && !ctx.config.auth.sms.enabled) {
    throw unprocessable('phone_provider_disabled', 'Phone logins are disabled');
  }
  if (!body.email && !body.phone) throw badRequest('validation_failed', 'missing email or phone');
  const user = body.email
    ? await findUserByEmail(ctx.db, body.email.trim())
    : await findUserByPhone(ctx.db, formatPhone(body.phone ?? ''));
  if (!user) throw badRequest('invalid_credentials', INVALID_LOGIN);
  // The hash check runs outside any transaction (~80 ms).
  const valid = await checkPassword(body.password ?? '', user.encrypted_password);
  const attempt = await ctx.hooks.passwordVerificationAttempt({ userId: user.id, valid });
  if (attempt.reject) {
    if (attempt.shouldLogoutUser) {
      await ctx.db.query('delete from auth.sessions where user_id = $1', [user.id]);
    }
    throw badRequest('invalid_credentials', attempt.message);
  }
  if (!valid) throw badRequest('invalid_credentials', INVALID_LOGIN);
  if (user.banned) throw badRequest('user_banned', 'User is banned');
  if (body.email && !user.email_confirmed_at) {
    throw badRequest('email_not_confirmed', 'Email not confirmed');
  }
  if (body.phone && !user.phone_confirmed_at) {
    throw badRequest('phone_not_confirmed', 'Phone not confirmed');
  }
  const session = await ctx.db.transaction((tx) =>
    startSession(tx, ctx, user.id, 'password', { userAgent: userAgent(c) }),
  );
  return { ...session, weak_password: null };
}

interface FlowRow {
  id: string;
  user_id: string | null;
  code_challenge: string;
  code_challenge_method: string;
  authentication_method: string;
  provider_access_token: string | null;
  provider_refresh_token: string | null;
  expired: boolean;
}

async function pkceGrant(c: Context<AppEnv>, ctx: AuthContext) {
  const body = await readBody(c, { auth_code: 'string', code_verifier: 'string' });
  if (!body.auth_code || !body.code_verifier) {
    throw badRequest(
      'validation_failed',
      'invalid request: both auth code and code verifier should be non-empty',
    );
  }
  const verifier = body.code_verifier;
  return ctx.db.transaction(async (tx) => {
    const { rows } = await tx.query<FlowRow>(
      `select id, user_id, code_challenge, code_challenge_method::text as code_challenge_method,
              authentication_method, provider_access_token, provider_refresh_token,
              coalesce(auth_code_issued_at, created_at) + make_interval(secs => $2) < now() as expired
       from auth.flow_state where auth_code = $1 for update`,
      [body.auth_code, FLOW_STATE_EXPIRY],
    );
    const flow = rows[0];
    if (!flow?.user_id) {
      throw notFound('flow_state_not_found', 'invalid flow state, no valid flow state found');
    }
    if (flow.expired) {
      throw unprocessable('flow_state_expired', 'invalid flow state, flow state has expired');
    }
    const computed = flow.code_challenge_method === 's256' ? s256(verifier) : verifier;
    if (computed !== flow.code_challenge) {
      throw badRequest(
        'bad_code_verifier',
        'code challenge does not match previously saved code verifier',
      );
    }
    await tx.query('delete from auth.flow_state where id = $1', [flow.id]);
    const session = await startSession(
      tx,
      ctx,
      flow.user_id,
      flow.authentication_method as AuthMethod,
      { userAgent: userAgent(c) },
    );
    // OAuth flows hand over the provider's tokens too (left out when empty, as GoTrue).
    if (flow.authentication_method !== 'oauth') return session;
    return {
      ...session,
      ...(flow.provider_access_token ? { provider_token: flow.provider_access_token } : {}),
      ...(flow.provider_refresh_token
        ? { provider_refresh_token: flow.provider_refresh_token }
        : {}),
    };
  });
}

/** POST /token?grant_type=password|refresh_token|pkce|id_token (web3: disabled). */
export function tokenRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  routes.post('/token', async (c) => {
    const grant = c.req.query('grant_type') ?? '';
    await ctx.limiter.hit('tokenPerIp', clientIp(c));
    switch (grant) {
      case 'password':
        return c.json(await passwordGrant(c, ctx));
      case 'refresh_token': {
        const body = await readBody(c, { refresh_token: 'string' });
        return c.json(await refreshGrant(ctx, body.refresh_token));
      }
      case 'pkce':
        return c.json(await pkceGrant(c, ctx));
      case 'id_token':
        return c.json(await idTokenGrant(c, ctx));
      case 'web3':
        throw web3Disabled();
      default:
        throw badRequest('invalid_credentials', 'unsupported_grant_type');
    }
  });
}
