import type { Context, Hono } from 'hono';
import type { AppEnv } from '../../service-module';
import type { AuthContext } from '../context';
import { AuthError, badRequest, internal, OAuthError, unprocessable } from '../errors';
import { pkceParams, redirectTarget } from '../links';
import { sendAll } from '../mailer';
import { type AccountOutcome, linkExternal, signInExternal } from '../oauth/accounts';
import { createOAuthFlow, findOAuthFlow, type OAuthFlow, saveProviderSecrets } from '../oauth/flow';
import { encodeSorted } from '../oauth/http';
import { loadProvider, type Provider } from '../oauth/providers';
import { withChosenEmail } from '../oauth/types';
import { startSession } from '../sessions';
import { userAgent } from './util';

/** OAuth parameters the auth server sets itself; a request cannot pass them to a provider. */
const RESERVED = [
  'client_id',
  'client_secret',
  'redirect_uri',
  'response_type',
  'state',
  'code_challenge',
  'code_challenge_method',
  'code_verifier',
];

/** The OAuth `error` of an auth error in a redirect (GoTrue's `oauthErrorMap`). */
const OAUTH_ERRORS: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized_client',
  403: 'access_denied',
  500: 'server_error',
  503: 'temporarily_unavailable',
};
const ACCESS_DENIED = ['signup_disabled', 'user_banned', 'provider_email_needs_verification'];

/** The redirect parameters of an error (GoTrue's `getErrorQueryString`). */
function errorParams(error: unknown): Record<string, string> {
  if (error instanceof OAuthError) {
    return { error: error.error, ...(error.message ? { error_description: error.message } : {}) };
  }
  let e: AuthError;
  if (error instanceof AuthError) e = error;
  else {
    console.error('[backend-server] auth /callback:', error);
    e = internal('Unexpected failure, please check server logs for more information', error);
  }
  if (e.status >= 500 && e.cause)
    console.error(`[backend-server] auth /callback: ${e.message}:`, e.cause);
  const oauth = ACCESS_DENIED.includes(e.code) ? 'access_denied' : OAUTH_ERRORS[e.status];
  return { error: oauth ?? 'server_error', error_code: e.code, error_description: e.message };
}

/** The app's redirect with an error in its query and its fragment (and `sb`), status 302. */
function redirectWithError(c: Context<AppEnv>, target: string, error: unknown): Response {
  const url = new URL(target);
  const params = errorParams(error);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  url.search = encodeSorted(Object.fromEntries(url.searchParams));
  url.hash = encodeSorted({ ...params, sb: '' });
  return c.redirect(url.toString(), 302);
}

/** A failure before the flow is known: 303 to the site URL, the error in the query only. */
function redirectToSite(c: Context<AppEnv>, ctx: AuthContext, error: AuthError): Response {
  const url = new URL(ctx.config.auth.siteUrl ?? ctx.config.url);
  for (const [k, v] of Object.entries(errorParams(error))) url.searchParams.set(k, v);
  url.search = encodeSorted(Object.fromEntries(url.searchParams));
  return c.redirect(url.toString(), 303);
}

/**
 * Starts an OAuth flow (GoTrue's `GetExternalProviderRedirectURL`): checks the provider and
 * the PKCE parameters, records the flow, and returns the provider's authorize URL. With
 * `linkingTargetId`, the identity will be linked to that user (manual linking).
 */
export async function startOAuthFlow(
  c: Context<AppEnv>,
  ctx: AuthContext,
  linkingTargetId: string | null,
): Promise<string> {
  const query = new URLSearchParams(new URL(c.req.url).search);
  const name = query.get('provider') ?? '';
  let provider: Provider;
  try {
    provider = loadProvider(ctx, name, query.get('scopes') ?? '');
  } catch (error) {
    throw badRequest('validation_failed', `Unsupported provider: ${(error as Error).message}`);
  }
  const referrer = redirectTarget(ctx, query.get('redirect_to'));
  const pkce = pkceParams({
    code_challenge: query.get('code_challenge') ?? '',
    code_challenge_method: query.get('code_challenge_method') ?? '',
  });
  const extra: Record<string, string> = {};
  for (const [key, value] of query) {
    if (key === 'scopes' || key === 'provider' || key === 'apikey') continue;
    if (RESERVED.includes(key.toLowerCase())) continue;
    extra[key] = value;
  }
  const state = await createOAuthFlow(ctx.db, {
    provider: provider.name,
    pkce,
    referrer,
    linkingTargetId,
    emailOptional: provider.cfg.emailOptional,
  });
  let step: Awaited<ReturnType<Provider['authorize']>>;
  try {
    step = await provider.authorize(state, extra);
  } catch (error) {
    await ctx.db.query('delete from auth.flow_state where id = $1', [state]);
    throw badRequest('validation_failed', `Unsupported provider: ${(error as Error).message}`);
  }
  if (step.codeVerifier || step.nonce) await saveProviderSecrets(ctx.db, state, step);
  return step.url;
}

/** The callback's parameters, from the query (GET) or the form (POST, `form_post`). */
async function callbackParams(c: Context<AppEnv>): Promise<URLSearchParams> {
  const query = new URLSearchParams(new URL(c.req.url).search);
  if (c.req.method !== 'POST') return query;
  const type = c.req.header('content-type') ?? '';
  if (!type.includes('application/x-www-form-urlencoded')) return query;
  const text = await c.req.text();
  if (text.length > 1024 * 1024) throw badRequest('validation_failed', 'Request body too large');
  return new URLSearchParams(text);
}

/** Loads and checks the flow of the callback's `state` (GoTrue's `loadFlowState`). */
async function loadFlow(ctx: AuthContext, state: string | null): Promise<OAuthFlow> {
  if (!state) throw badRequest('bad_oauth_callback', 'OAuth state parameter missing');
  if (!/^[0-9a-f-]{36}$/i.test(state)) {
    throw badRequest('bad_oauth_state', 'OAuth state parameter is invalid');
  }
  const flow = await findOAuthFlow(ctx.db, state);
  if (!flow) throw badRequest('bad_oauth_state', 'OAuth state not found or expired');
  if (flow.expired) throw badRequest('bad_oauth_state', 'OAuth state has expired');
  if (flow.pkce && flow.userId) {
    throw badRequest('flow_state_already_used', 'State has already been used');
  }
  if (flow.linkingTargetId) {
    const { rows } = await ctx.db.query('select 1 from auth.users where id = $1', [
      flow.linkingTargetId,
    ]);
    if (rows.length === 0) throw unprocessable('user_not_found', 'Linking target user not found');
  }
  return flow;
}

/** What the provider says about the user of the callback (GoTrue's `oAuthCallback`). */
async function providerUser(ctx: AuthContext, flow: OAuthFlow, params: URLSearchParams) {
  const providerError = params.get('error');
  if (providerError) throw new OAuthError(providerError, params.get('error_description') ?? '');
  const code = params.get('code');
  if (!code) {
    throw badRequest(
      'bad_oauth_callback',
      'OAuth callback with missing authorization code missing',
    );
  }
  let provider: Provider;
  try {
    provider = loadProvider(ctx, flow.provider);
  } catch (error) {
    throw badRequest(
      'oauth_provider_not_supported',
      `Unsupported provider: ${(error as Error).message}`,
    );
  }
  let tokens: Awaited<ReturnType<Provider['exchange']>>;
  try {
    tokens = await provider.exchange(code, flow.providerCodeVerifier);
  } catch (error) {
    throw internal(`Unable to exchange external code: ${code.slice(0, 4)}`, error);
  }
  let data: Awaited<ReturnType<Provider['userData']>>;
  try {
    data = await provider.userData(tokens, flow.providerNonce);
  } catch (error) {
    throw internal('Error getting user profile from external provider', error);
  }
  if (data.emails.length === 0 && !flow.emailOptional) {
    throw internal('Error getting user email from external provider');
  }
  return { provider, tokens, data };
}

/** The callback: the user signs in (implicit: tokens in the fragment) or gets a code (PKCE). */
async function callback(
  c: Context<AppEnv>,
  ctx: AuthContext,
  flow: OAuthFlow,
  params: URLSearchParams,
) {
  const { provider, tokens, data } = await providerUser(ctx, flow, params);
  const identity = {
    provider: provider.name,
    emails: data.emails,
    claims: withChosenEmail(data),
    emailOptional: flow.emailOptional,
  };
  const referrer = flow.referrer || redirectTarget(ctx, null);
  const result = await ctx.db.transaction(async (tx) => {
    const outcome: AccountOutcome = flow.linkingTargetId
      ? await linkExternal(tx, ctx, flow.linkingTargetId, identity, referrer)
      : await signInExternal(tx, ctx, identity, referrer);
    if (outcome.error) return { outcome, session: null, code: null };
    if (flow.pkce) {
      const locked = await findOAuthFlow(tx, flow.id, true);
      if (!locked || locked.userId) {
        throw badRequest('flow_state_already_used', 'State has already been used');
      }
      await tx.query(
        `update auth.flow_state set user_id = $2, provider_access_token = $3,
           provider_refresh_token = $4, auth_code_issued_at = now(), updated_at = now()
         where id = $1`,
        [flow.id, outcome.user.id, tokens.accessToken, tokens.refreshToken],
      );
      return { outcome, session: null, code: locked.authCode };
    }
    const session = await startSession(tx, ctx, outcome.user.id, 'oauth', {
      userAgent: userAgent(c),
    });
    await tx.query('delete from auth.flow_state where id = $1', [flow.id]);
    return { outcome, session, code: null };
  });
  await sendAll(ctx, result.outcome.mails);
  if (result.outcome.error) throw result.outcome.error;
  const target = new URL(referrer);
  if (result.code) {
    target.searchParams.set('code', result.code);
    target.search = encodeSorted(Object.fromEntries(target.searchParams));
    return c.redirect(target.toString(), 302);
  }
  const s = result.session as Record<string, unknown>;
  const fragment = encodeSorted({
    access_token: String(s.access_token),
    expires_at: String(s.expires_at),
    expires_in: String(s.expires_in),
    provider_token: tokens.accessToken,
    ...(tokens.refreshToken ? { provider_refresh_token: tokens.refreshToken } : {}),
    refresh_token: String(s.refresh_token),
    sb: '',
    token_type: 'bearer',
  });
  return c.redirect(`${referrer}#${fragment}`, 302);
}

/** GET /authorize (to the provider) and GET/POST /callback (back from it). */
export function externalRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  routes.get('/authorize', async (c) => c.redirect(await startOAuthFlow(c, ctx, null), 302));

  routes.on(['GET', 'POST'], '/callback', async (c) => {
    const params = await callbackParams(c);
    let flow: OAuthFlow;
    try {
      flow = await loadFlow(ctx, params.get('state'));
    } catch (error) {
      if (error instanceof AuthError && error.status < 500) return redirectToSite(c, ctx, error);
      throw error;
    }
    try {
      return await callback(c, ctx, flow, params);
    } catch (error) {
      return redirectWithError(c, flow.referrer || redirectTarget(ctx, null), error);
    }
  });
}
