import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import type { ResolvedProvider } from '../../config/external-providers';
import type { AppEnv } from '../../service-module';
import { readBody } from '../body';
import type { AuthContext } from '../context';
import { AuthError, badRequest, internal, OAuthError } from '../errors';
import { requireUser } from '../guard';
import { redirectTarget } from '../links';
import { sendAll } from '../mailer';
import { linkExternal, signInExternal } from '../oauth/accounts';
import { genericUserData } from '../oauth/custom';
import { googleIssuer, NAMED } from '../oauth/named';
import { type OidcIssuer, unverifiedIssuer, verifyIdToken } from '../oauth/oidc';
import { type UserProvidedData, withChosenEmail } from '../oauth/types';
import { startSession } from '../sessions';
import { userAgent } from './util';

const APPLE_ISSUER = 'https://appleid.apple.com';
/** ID-token providers GoTrue knows by a fixed issuer (not implemented here: never enabled). */
const FIXED_ISSUERS: Record<string, string> = {
  facebook: 'https://www.facebook.com',
  kakao: 'https://kauth.kakao.com',
  snapchat: 'https://auth.snapchat.com',
  vercel_marketplace: 'https://marketplace.vercel.com',
};

const invalid = (message: string) => new OAuthError('invalid request', message);
const disabled = (issuer: string) =>
  badRequest('provider_disabled', `Provider (issuer "${issuer}") is not enabled`);

interface IdTokenProvider {
  type: string;
  cfg: ResolvedProvider;
  issuer: string;
  clientIds: string[];
}

/** Which provider verifies the token (GoTrue's `IdTokenGrantParams.getProvider`). */
function idTokenProvider(
  ctx: AuthContext,
  p: { provider: string; issuer: string; id_token: string },
): IdTokenProvider {
  const providers = ctx.config.auth.external.providers;
  const google = providers.get('google');
  const googleIss = google ? googleIssuer(google) : 'https://accounts.google.com';
  if (p.provider === 'apple' || p.issuer === APPLE_ISSUER) {
    const detected = unverifiedIssuer(p.id_token);
    if (!detected) {
      throw badRequest(
        'validation_failed',
        'Unable to detect issuer in ID token for Apple provider',
      );
    }
    if (detected !== APPLE_ISSUER) {
      throw badRequest(
        'validation_failed',
        'Detected ID token issuer is not an Apple ID token issuer',
      );
    }
    if (p.issuer && p.issuer !== detected) {
      throw badRequest('validation_failed', 'Provided issuer does not match ID token issuer');
    }
    throw disabled(detected);
  }
  if (p.provider === 'google' || p.issuer === googleIss) {
    if (!google?.enabled) throw disabled(googleIss);
    return { type: 'google', cfg: google, issuer: googleIss, clientIds: google.clientIds };
  }
  if (p.provider === 'azure' || p.issuer.startsWith('https://login.microsoftonline.com/')) {
    const detected = unverifiedIssuer(p.id_token);
    if (!detected) {
      throw badRequest(
        'validation_failed',
        'Unable to detect issuer in ID token for Azure provider',
      );
    }
    if (!/^https:\/\/(login\.microsoftonline\.com|sts\.windows\.net)\//.test(detected)) {
      throw badRequest(
        'validation_failed',
        'Detected ID token issuer is not an Azure ID token issuer',
      );
    }
    if (p.issuer && p.issuer !== detected) {
      throw badRequest('validation_failed', 'Provided issuer does not match ID token issuer');
    }
    throw disabled(detected);
  }
  for (const [name, issuer] of Object.entries(FIXED_ISSUERS)) {
    if (p.provider === name || p.issuer === issuer) throw disabled(issuer);
  }
  if (p.provider === 'keycloak') throw disabled('');
  if (p.provider.startsWith('custom:')) {
    const cfg = providers.get(p.provider);
    if (!cfg) throw badRequest('validation_failed', `Custom provider "${p.provider}" not found`);
    if (!cfg.enabled) {
      throw badRequest('provider_disabled', `Custom provider "${p.provider}" is disabled`);
    }
    return { type: p.provider, cfg, issuer: cfg.issuer ?? '', clientIds: cfg.clientIds };
  }
  throw badRequest('validation_failed', `Custom OIDC provider "${p.provider}" not allowed`);
}

/** A token that is not even a JWT: refused before any request to the provider. */
const notAJwt = (token: string) =>
  !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token) ||
  unverifiedIssuer(token) === null;

/**
 * POST /token?grant_type=id_token: sign in (or, with `link_identity`, link to the signed-in
 * user) with an OpenID Connect ID token the app got from the provider itself.
 */
export async function idTokenGrant(c: Context<AppEnv>, ctx: AuthContext) {
  const body = await readBody(c, {
    id_token: 'string',
    access_token: 'string',
    nonce: 'string',
    provider: 'string',
    client_id: 'string',
    issuer: 'string',
    link_identity: 'boolean',
  });
  const params = {
    id_token: body.id_token ?? '',
    provider: body.provider ?? '',
    issuer: body.issuer ?? '',
  };
  if (!params.id_token) throw invalid('id_token required');
  if (!params.provider && (!body.client_id || !params.issuer)) {
    throw invalid('provider or client_id and issuer required');
  }
  let targetId: string | null = null;
  if (body.link_identity) {
    if (!c.req.header('authorization')) {
      throw invalid('Linking requires a valid user access token in Authorization');
    }
    targetId = (await requireUser(c, ctx)).user.id;
  }
  const p = idTokenProvider(ctx, params);
  // A malformed token is "Bad ID token" whatever the provider's keys (no request made).
  if (notAJwt(params.id_token)) throw invalid('Bad ID token');
  let issuer: OidcIssuer;
  try {
    issuer = await ctx.oidc.get(p.issuer, p.cfg.kind === 'oidc' ? p.cfg.discoveryUrl : null);
  } catch (error) {
    throw internal(`Unable to reach the OpenID configuration of ${p.issuer}`, error);
  }
  let token: Awaited<ReturnType<typeof verifyIdToken>>;
  try {
    token = await verifyIdToken(issuer, params.id_token, { accessToken: body.access_token });
  } catch {
    throw invalid('Bad ID token');
  }
  const data: UserProvidedData =
    p.type === 'google'
      ? NAMED.google.map({ idToken: token.claims }, p.cfg)
      : genericUserData(token.claims);
  const claims = withChosenEmail(data);
  if (!token.claims.sub) throw invalid('Missing sub claim in id_token');
  if (!p.clientIds.some((id) => id && token.audience.includes(id))) {
    throw invalid(`Unacceptable audience in id_token: [${token.audience.join(' ')}]`);
  }
  if (!p.cfg.skipNonceCheck) {
    const sent = body.nonce ?? '';
    if (!!token.nonce !== !!sent) {
      throw invalid('Passed nonce and nonce in id_token should either both exist or not.');
    }
    if (sent && createHash('sha256').update(sent).digest('hex') !== token.nonce) {
      throw new OAuthError('invalid nonce', 'Nonces mismatch');
    }
  }
  const identity = {
    provider: p.type,
    emails: data.emails,
    claims,
    emailOptional: p.cfg.emailOptional,
  };
  const redirectTo = redirectTarget(ctx, null);
  let result: { outcome: Awaited<ReturnType<typeof signInExternal>>; session: unknown };
  try {
    result = await ctx.db.transaction(async (tx) => {
      const outcome = targetId
        ? await linkExternal(tx, ctx, targetId, identity, redirectTo)
        : await signInExternal(tx, ctx, identity, redirectTo);
      if (outcome.error) return { outcome, session: null };
      const session = await startSession(tx, ctx, outcome.user.id, 'oauth', {
        userAgent: userAgent(c),
      });
      return { outcome, session };
    });
  } catch (error) {
    if (error instanceof AuthError || error instanceof OAuthError) throw error;
    console.error('[backend-server] auth id_token grant:', error);
    throw new OAuthError('server_error', 'Internal Server Error');
  }
  await sendAll(ctx, result.outcome.mails);
  if (result.outcome.error) throw result.outcome.error;
  return result.session;
}
