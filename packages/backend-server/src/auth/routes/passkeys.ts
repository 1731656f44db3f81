import type { Context, Hono } from 'hono';
import type { AppEnv } from '../../service-module';
import { readBody } from '../body';
import type { AuthContext } from '../context';
import { badRequest, forbidden, notFound, unprocessable } from '../errors';
import { type Caller, isUuid, requireUser } from '../guard';
import { sessionAal } from '../mfa/session';
import { startSession } from '../sessions';
import { findUserById } from '../users';
import {
  assertionCredentialId,
  creationOptions,
  relyingParty,
  requestOptions,
  userIdFromHandle,
  verifyAssertion,
  verifyCreation,
} from '../webauthn';
import {
  type ChallengeType,
  consumeChallenge,
  countPasskeys,
  deletePasskey,
  insertPasskey,
  listPasskeys,
  passkeyByCredentialId,
  recordPasskeyUse,
  renamePasskey,
  saveChallenge,
  userCredentials,
} from '../webauthn-store';
import { existingUser } from './admin-factors';
import { clientIp, userAgent } from './util';

const TOO_MANY = () => unprocessable('too_many_passkeys', 'Maximum number of passkeys reached');
const NOT_FOUND = () => notFound('validation_failed', 'Passkey not found');
const VERIFICATION_FAILED = () =>
  badRequest('webauthn_verification_failed', 'Credential verification failed');

/** A caller that is signed in and not anonymous (GoTrue's `requireNotAnonymous`). */
async function registeringCaller(c: Context<AppEnv>, ctx: AuthContext): Promise<Caller> {
  const caller = await requireUser(c, ctx);
  if (caller.claims.is_anonymous === true) {
    throw forbidden('no_authorization', 'Anonymous user not allowed to perform these actions');
  }
  return caller;
}

/**
 * With a verified MFA factor, adding or removing a passkey needs an aal2 session (a token
 * without a session never has one).
 */
async function requireManagementAal(ctx: AuthContext, caller: Caller): Promise<void> {
  if (!caller.user.factors?.some((f) => f.status === 'verified')) return;
  if (caller.sessionId && (await sessionAal(ctx.db, caller.sessionId)) === 'aal2') return;
  throw forbidden(
    'insufficient_aal',
    'AAL2 session is required to manage passkeys when MFA is enabled',
  );
}

/** `{challenge_id, credential}` of the two verify steps, checked as GoTrue checks them. */
async function ceremonyAnswer(c: Context<AppEnv>) {
  const body = await readBody(c, { challenge_id: 'string', credential: 'any' });
  if (!body.challenge_id) throw badRequest('validation_failed', 'challenge_id is required');
  if (body.credential === undefined)
    throw badRequest('validation_failed', 'credential is required');
  if (!isUuid(body.challenge_id)) {
    throw badRequest('validation_failed', 'challenge_id must be a valid UUID');
  }
  return { challengeId: body.challenge_id.toLowerCase(), credential: body.credential };
}

/** Takes the ceremony out (a replay finds nothing), then refuses an expired one. */
async function takeChallenge(
  ctx: AuthContext,
  id: string,
  type: ChallengeType,
  userId: string | null,
) {
  const found = await consumeChallenge(ctx.db, id, type, userId);
  if (!found) {
    throw badRequest('webauthn_challenge_not_found', 'Challenge not found or already used');
  }
  if (found.expired) throw badRequest('webauthn_challenge_expired', 'Challenge has expired');
  return found.data;
}

async function registrationOptions(c: Context<AppEnv>, ctx: AuthContext) {
  const caller = await registeringCaller(c, ctx);
  await requireManagementAal(ctx, caller);
  const { user } = caller;
  const credentials = await userCredentials(ctx.db, user.id);
  if (credentials.length >= ctx.config.auth.passkey.maxPasskeysPerUser) throw TOO_MANY();
  const seconds = ctx.config.auth.webauthn.challengeExpiry;
  const name = user.email || user.phone || '';
  const metaName = user.raw_user_meta_data?.name;
  const { options, data } = await creationOptions(
    relyingParty(ctx),
    { id: user.id, name, displayName: typeof metaName === 'string' && metaName ? metaName : name },
    { exclude: credentials, residentKey: 'required', seconds },
  );
  const saved = await saveChallenge(ctx.db, {
    userId: user.id,
    type: 'registration',
    data,
    seconds,
  });
  return c.json({ challenge_id: saved.id, options, expires_at: saved.expiresAt });
}

async function registrationVerify(c: Context<AppEnv>, ctx: AuthContext) {
  const caller = await registeringCaller(c, ctx);
  await requireManagementAal(ctx, caller);
  const { challengeId, credential } = await ceremonyAnswer(c);
  const userId = caller.user.id;
  const data = await takeChallenge(ctx, challengeId, 'registration', userId);
  const verified = await verifyCreation(relyingParty(ctx), data, credential);
  const created = await ctx.db.transaction(async (tx) => {
    // The user's row serialises concurrent registrations, so the limit holds.
    await tx.query('select 1 from auth.users where id = $1 for update', [userId]);
    if ((await countPasskeys(tx, userId)) >= ctx.config.auth.passkey.maxPasskeysPerUser) {
      throw TOO_MANY();
    }
    return insertPasskey(tx, userId, verified, 'Passkey');
  });
  return c.json(created);
}

async function authenticationOptions(c: Context<AppEnv>, ctx: AuthContext) {
  await ctx.limiter.hit('passkeyPerIp', clientIp(c));
  // The body only carries a captcha token (`gotrue_meta_security`); no captcha here.
  await readBody(c, { gotrue_meta_security: 'object' }, { allowEmpty: true });
  const seconds = ctx.config.auth.webauthn.challengeExpiry;
  const { options, data } = await requestOptions(relyingParty(ctx), { allow: [], seconds });
  const saved = await saveChallenge(ctx.db, {
    userId: null,
    type: 'authentication',
    data,
    seconds,
  });
  return c.json({ challenge_id: saved.id, options, expires_at: saved.expiresAt });
}

async function authenticationVerify(c: Context<AppEnv>, ctx: AuthContext) {
  const { challengeId, credential } = await ceremonyAnswer(c);
  const data = await takeChallenge(ctx, challengeId, 'authentication', null);
  const credentialId = assertionCredentialId(credential);
  // Discoverable sign-in: the authenticator names the user; the passkey must be theirs.
  const handleUser = userIdFromHandle(
    (credential as { response: { userHandle?: unknown } }).response.userHandle,
  );
  if (!handleUser) throw VERIFICATION_FAILED();
  const rp = relyingParty(ctx);
  const outcome = await ctx.db.transaction(async (tx) => {
    const passkey = await passkeyByCredentialId(tx, credentialId);
    if (!passkey || passkey.userId !== handleUser) throw VERIFICATION_FAILED();
    const result = await verifyAssertion(rp, data, credential, passkey.credential);
    const user = await findUserById(tx, passkey.userId);
    if (!user) throw VERIFICATION_FAILED();
    if (user.email && !user.email_confirmed_at) {
      throw forbidden('email_not_confirmed', 'Email not confirmed');
    }
    if (user.phone && !user.phone_confirmed_at) {
      throw forbidden('phone_not_confirmed', 'Phone not confirmed');
    }
    if (user.banned) throw forbidden('user_banned', 'User is banned');
    await recordPasskeyUse(tx, passkey.id, result.counter, result.backedUp);
    return startSession(tx, ctx, user.id, 'passkey', { userAgent: userAgent(c) });
  });
  return c.json(outcome);
}

/** The id in the URL as a UUID, or GoTrue's 404 for a malformed one. */
function passkeyId(c: Context<AppEnv>): string {
  const id = c.req.param('passkeyId') ?? '';
  if (!isUuid(id)) throw NOT_FOUND();
  return id.toLowerCase();
}

/** Passkeys of a user, as every `/passkeys/*` route answers while they are off. */
function requireEnabled(ctx: AuthContext): void {
  if (!ctx.config.auth.passkey.enabled) throw notFound('passkey_disabled', 'Passkeys are disabled');
}

/**
 * `/passkeys`: registration and sign-in ceremonies (options, then verify), the signed-in
 * user's passkeys (list, rename, delete), and the admin list and delete of a user's passkeys.
 */
export function passkeyRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  const gate = async (_c: Context<AppEnv>, next: () => Promise<void>) => {
    requireEnabled(ctx);
    await next();
  };
  routes.use('/passkeys', gate);
  routes.use('/passkeys/*', gate);
  routes.post('/passkeys/registration/options', (c) => registrationOptions(c, ctx));
  routes.post('/passkeys/registration/verify', (c) => registrationVerify(c, ctx));
  routes.post('/passkeys/authentication/options', (c) => authenticationOptions(c, ctx));
  routes.post('/passkeys/authentication/verify', (c) => authenticationVerify(c, ctx));

  const list = async (c: Context<AppEnv>) => {
    const caller = await requireUser(c, ctx);
    return c.json(await listPasskeys(ctx.db, caller.user.id));
  };
  routes.get('/passkeys', list);
  routes.get('/passkeys/', list);

  routes.patch('/passkeys/:passkeyId', async (c) => {
    const caller = await requireUser(c, ctx);
    const id = passkeyId(c);
    const body = await readBody(c, { friendly_name: 'string' });
    const name = body.friendly_name ?? '';
    if (name === '') throw badRequest('validation_failed', 'friendly_name is required');
    if (Buffer.byteLength(name) > 120) {
      throw badRequest('validation_failed', 'friendly_name must be 120 characters or less');
    }
    const renamed = await renamePasskey(ctx.db, id, caller.user.id, name);
    if (!renamed) throw NOT_FOUND();
    return c.json(renamed);
  });

  routes.delete('/passkeys/:passkeyId', async (c) => {
    const caller = await requireUser(c, ctx);
    await requireManagementAal(ctx, caller);
    if (!(await deletePasskey(ctx.db, passkeyId(c), caller.user.id))) throw NOT_FOUND();
    return c.body(null, 204);
  });

  routes.get('/admin/users/:id/passkeys', async (c) => {
    const userId = await existingUser(ctx, c.req.param('id'));
    return c.json(await listPasskeys(ctx.db, userId));
  });

  routes.delete('/admin/users/:id/passkeys/:passkeyId', async (c) => {
    const userId = await existingUser(ctx, c.req.param('id'));
    if (!(await deletePasskey(ctx.db, passkeyId(c), userId))) throw NOT_FOUND();
    return c.body(null, 204);
  });
}
