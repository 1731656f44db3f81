import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type { Context, Hono } from 'hono';
import { pgError } from '../../db/index';
import type { AppEnv } from '../../service-module';
import { readBody } from '../body';
import type { AuthContext } from '../context';
import { tokenHash } from '../crypto';
import { AuthError, badRequest, forbidden, internal, unprocessable } from '../errors';
import { type Caller, isUuid, requireUser } from '../guard';
import {
  deleteExpiredFactors,
  deleteFactor,
  insertFactor,
  ownedFactor,
  userFactors,
} from '../mfa/factors';
import { raiseToAal2, sessionAal } from '../mfa/session';
import { newTotpKey, totpValid } from '../mfa/totp';
import { verifyWebAuthnFactor, webauthnChallenge, webauthnParams } from '../mfa/webauthn';
import { checkChannel, deliverCode, tooSoon, validatePhone } from '../phone';
import type { CeremonyData } from '../webauthn';
import { clientIp } from './util';

/** A user endpoint's caller with a session, not anonymous (the hosted `requireNotAnonymous`). */
async function factorCaller(c: Context<AppEnv>, ctx: AuthContext) {
  const caller = await requireUser(c, ctx);
  if (caller.claims.is_anonymous === true) {
    throw forbidden('no_authorization', 'Anonymous user not allowed to perform these actions');
  }
  if (!caller.sessionId) {
    throw forbidden('session_not_found', 'A valid session is required to manage factors');
  }
  return caller as Caller & { sessionId: string };
}

/** The caller's IP as stored with a challenge (`inet`). */
const challengeIp = (c: Context<AppEnv>) => {
  const ip = clientIp(c);
  return isIP(ip) ? ip : '127.0.0.1';
};

const nameConflict = (name: string) =>
  unprocessable(
    'mfa_factor_name_conflict',
    `A factor with the friendly name ${JSON.stringify(name)} for this user already exists`,
  );
const TOO_MANY = 'Maximum number of verified factors reached, unenroll to continue';

/** The hosted checks before a new factor: name free, under the limits, aal2 once one is verified. */
async function checkNewFactor(
  ctx: AuthContext,
  caller: Caller & { sessionId: string },
  name: string,
) {
  const { mfa } = ctx.config.auth;
  await deleteExpiredFactors(ctx.db, mfa.factorExpiry);
  const factors = await userFactors(ctx.db, caller.user.id);
  if (factors.some((f) => (f.json.friendly_name ?? '') === name)) throw nameConflict(name);
  const verified = factors.filter((f) => f.verified).length;
  if (factors.length >= mfa.maxEnrolledFactors || verified >= mfa.maxVerifiedFactors) {
    throw unprocessable('too_many_enrolled_mfa_factors', TOO_MANY);
  }
  if (verified > 0 && (await sessionAal(ctx.db, caller.sessionId)) !== 'aal2') {
    throw forbidden('insufficient_aal', 'AAL2 required to enroll a new factor');
  }
  return factors;
}

/** Inserts a factor; a concurrent enrolment under the same name is the same conflict. */
async function insertNew(ctx: AuthContext, factor: Parameters<typeof insertFactor>[1]) {
  try {
    await insertFactor(ctx.db, factor);
  } catch (error) {
    const pg = pgError(error);
    if (pg?.code === '23505' && /friendly_name/.test(`${pg.message} ${pg.detail ?? ''}`)) {
      throw nameConflict(factor.friendlyName);
    }
    if (pg?.code === '23505' && /phone/.test(`${pg.message} ${pg.detail ?? ''}`)) {
      throw unprocessable('phone_exists', 'Phone number already registered by another user');
    }
    throw error;
  }
}

async function enroll(c: Context<AppEnv>, ctx: AuthContext) {
  const caller = await factorCaller(c, ctx);
  const body = await readBody(c, {
    factor_type: 'string',
    friendly_name: 'string',
    issuer: 'string',
    phone: 'string',
  });
  const { mfa } = ctx.config.auth;
  const name = body.friendly_name ?? '';
  const id = randomUUID();
  if (body.factor_type === 'totp') {
    if (!mfa.totp.enroll) {
      throw unprocessable('mfa_totp_enroll_not_enabled', 'MFA enroll is disabled for TOTP');
    }
    let issuer = body.issuer ?? '';
    if (!issuer) issuer = new URL(ctx.config.auth.siteUrl ?? ctx.config.url).host;
    await checkNewFactor(ctx, caller, name);
    const account = caller.user.email || caller.user.phone || caller.user.id;
    const key = await newTotpKey(issuer, account);
    await insertNew(ctx, {
      id,
      userId: caller.user.id,
      type: 'totp',
      friendlyName: name,
      secret: key.secret,
    });
    return c.json({
      id,
      type: 'totp',
      friendly_name: name,
      totp: { qr_code: key.qrCode, secret: key.secret, uri: key.uri },
    });
  }
  if (body.factor_type === 'phone') {
    if (!mfa.phone.enroll) {
      throw unprocessable('mfa_phone_enroll_not_enabled', 'MFA enroll is disabled for Phone');
    }
    if (!body.phone) {
      throw badRequest('validation_failed', 'Phone number required to enroll Phone factor');
    }
    const phone = validatePhone(body.phone);
    const same = (await userFactors(ctx.db, caller.user.id)).filter(
      (f) => f.type === 'phone' && f.phone === phone,
    );
    if (same.some((f) => f.verified)) {
      throw unprocessable(
        'mfa_verified_factor_exists',
        'A verified phone factor already exists, unenroll the existing factor to continue',
      );
    }
    for (const f of same) await deleteFactor(ctx.db, f);
    await checkNewFactor(ctx, caller, name);
    await insertNew(ctx, { id, userId: caller.user.id, type: 'phone', friendlyName: name, phone });
    return c.json({ id, type: 'phone', friendly_name: name, phone: body.phone });
  }
  if (body.factor_type === 'webauthn') {
    if (!mfa.webauthn.enroll) {
      throw unprocessable('mfa_webauthn_enroll_not_enabled', 'MFA enroll is disabled for WebAuthn');
    }
    await checkNewFactor(ctx, caller, name);
    await insertNew(ctx, { id, userId: caller.user.id, type: 'webauthn', friendlyName: name });
    return c.json({ id, type: 'webauthn', friendly_name: name });
  }
  throw badRequest('validation_failed', 'factor_type needs to be totp, phone, or webauthn');
}

async function challenge(c: Context<AppEnv>, ctx: AuthContext) {
  const caller = await factorCaller(c, ctx);
  await ctx.limiter.hit('mfaPerIp', `challenge:${clientIp(c)}`);
  const factor = await ownedFactor(ctx.db, caller.user.id, c.req.param('id') ?? '');
  const { mfa } = ctx.config.auth;
  const id = randomUUID();
  let otpHash: string | null = null;
  let webauthn: Awaited<ReturnType<typeof webauthnChallenge>> | null = null;
  if (factor.type === 'totp') {
    if (!mfa.totp.verify) {
      throw unprocessable('mfa_totp_verify_not_enabled', 'MFA verification is disabled for TOTP');
    }
  } else if (factor.type === 'phone') {
    if (!mfa.phone.verify) {
      throw unprocessable('mfa_phone_verify_not_enabled', 'MFA verification is disabled for Phone');
    }
    const body = await readBody(c, { channel: 'string' }, { allowEmpty: true });
    const channel = checkChannel(ctx, body.channel);
    const wait =
      factor.sinceChallenge === null ? 0 : mfa.phone.maxFrequency - factor.sinceChallenge;
    if (wait > 0) throw tooSoon(wait);
    const phone = factor.phone ?? '';
    const sent = await deliverCode(ctx, {
      phone,
      type: 'mfa',
      channel,
      template: mfa.phone.template,
      digits: mfa.phone.otpLength,
      failure: (reason) => internal(`error sending message: ${reason}`),
      userId: caller.user.id,
    }).catch((error) => {
      // As GoTrue: a failing send-SMS hook of an MFA challenge is one generic error.
      throw ctx.hooks.has('sendSms') ? internal('error invoking hook', error) : error;
    });
    otpHash = tokenHash(phone, sent.otp);
  } else {
    if (!mfa.webauthn.verify) {
      throw unprocessable(
        'mfa_webauthn_verify_not_enabled',
        'MFA verification is disabled for WebAuthn',
      );
    }
    // The body may carry `webauthn: {rpId, rpOrigins}` (auth-js sends them): the relying
    // party is the server's, as GoTrue has it, never the caller's.
    await readBody(c, { channel: 'string', webauthn: 'any' }, { allowEmpty: true });
    webauthn = await webauthnChallenge(ctx, caller.user, factor);
  }
  const { rows } = await ctx.db.query<{ expires_at: number }>(
    `with factor as (
       update auth.mfa_factors set last_challenged_at = now() where id = $2
     )
     insert into auth.mfa_challenges (id, factor_id, created_at, ip_address, otp_code,
       web_authn_session_data)
     values ($1, $2, now(), $3::inet, $4, $6::text::jsonb)
     returning extract(epoch from created_at + make_interval(secs => $5))::bigint as expires_at`,
    [
      id,
      factor.id,
      challengeIp(c),
      otpHash,
      mfa.challengeExpiry,
      webauthn ? JSON.stringify(webauthn.data) : null,
    ],
  );
  return c.json({
    id,
    type: factor.type,
    expires_at: Number(rows[0]?.expires_at),
    ...(webauthn ? { webauthn: webauthn.webauthn } : {}),
  });
}

interface ChallengeRow {
  verified: boolean;
  same_ip: boolean;
  expired: boolean;
  otp_code: string | null;
  web_authn_session_data: CeremonyData | null;
}

async function verify(c: Context<AppEnv>, ctx: AuthContext) {
  const caller = await factorCaller(c, ctx);
  await ctx.limiter.hit('mfaPerIp', `verify:${clientIp(c)}`);
  const body = await readBody(c, { challenge_id: 'string', code: 'string', webauthn: 'any' });
  const { mfa } = ctx.config.auth;
  const outcome = await ctx.db.transaction(async (tx) => {
    const factor = await ownedFactor(tx, caller.user.id, c.req.param('id') ?? '');
    const code = body.code ?? '';
    if (code === '' && factor.type !== 'webauthn') {
      throw badRequest('validation_failed', 'Code needs to be non-empty');
    }
    const enabled =
      factor.type === 'totp'
        ? mfa.totp.verify
        : factor.type === 'phone'
          ? mfa.phone.verify
          : mfa.webauthn.verify;
    if (!enabled) {
      const name = factor.type === 'totp' ? 'TOTP' : factor.type === 'phone' ? 'Phone' : 'WebAuthn';
      // GoTrue answers a disabled WebAuthn verification with the enrolment code.
      const code = factor.type === 'webauthn' ? 'enroll' : 'verify';
      throw unprocessable(
        `mfa_${factor.type}_${code}_not_enabled`,
        `MFA verification is disabled for ${name}`,
      );
    }
    const webauthn = factor.type === 'webauthn' ? webauthnParams(body.webauthn) : null;
    // As the hosted service: a missing id is the nil UUID (not found), a malformed one bad JSON.
    const challengeId = body.challenge_id || '00000000-0000-0000-0000-000000000000';
    if (!isUuid(challengeId)) {
      throw badRequest('bad_json', 'Could not parse request body as JSON: invalid UUID length');
    }
    const { rows } = await tx.query<ChallengeRow>(
      `select verified_at is not null as verified, ip_address = $3::inet as same_ip,
              created_at + make_interval(secs => $4) < now() as expired, otp_code,
              web_authn_session_data
       from auth.mfa_challenges where id = $1 and factor_id = $2 for update`,
      [challengeId, factor.id, challengeIp(c), mfa.challengeExpiry],
    );
    const found = rows[0];
    if (!found) {
      throw unprocessable(
        'mfa_factor_not_found',
        'MFA factor with the provided challenge ID not found',
      );
    }
    if (found.verified || !found.same_ip) {
      throw unprocessable('mfa_ip_address_mismatch', 'Challenge and verify IP addresses mismatch.');
    }
    if (found.expired) {
      await tx.query('delete from auth.mfa_challenges where id = $1', [challengeId]);
      return new AuthError(
        422,
        'mfa_challenge_expired',
        `MFA challenge ${challengeId} has expired, verify against another challenge or create a new challenge.`,
      );
    }
    if (webauthn) {
      const data = { id: challengeId, data: found.web_authn_session_data };
      await verifyWebAuthnFactor(tx, ctx, factor, data, webauthn);
      // As GoTrue: a WebAuthn challenge is used up once answered.
      await tx.query('delete from auth.mfa_challenges where id = $1', [challengeId]);
      return { session: await raiseToAal2(tx, ctx, caller.sessionId, factor) };
    }
    const valid =
      factor.type === 'totp'
        ? totpValid(factor.secret ?? '', code)
        : found.otp_code !== null && found.otp_code === tokenHash(factor.phone ?? '', code);
    return { attempt: { factor, challengeId, valid } };
  });
  // An expired challenge is deleted (committed) before the error is reported.
  if (outcome instanceof AuthError) throw outcome;
  if ('session' in outcome) return c.json(outcome.session);
  // A code: the verification hook decides outside the transaction, as GoTrue's runs.
  const { factor, challengeId, valid } = outcome.attempt;
  const decision = await ctx.hooks.mfaVerificationAttempt({
    userId: caller.user.id,
    factorId: factor.id,
    factorType: factor.type,
    valid,
  });
  if (decision.reject) {
    // As GoTrue: a rejected attempt signs the user out everywhere.
    await ctx.db.query('delete from auth.sessions where user_id = $1', [caller.user.id]);
    throw new AuthError(403, 'mfa_verification_rejected', decision.message);
  }
  if (!valid) {
    const what = factor.type === 'totp' ? 'TOTP' : 'MFA Phone';
    throw unprocessable('mfa_verification_failed', `Invalid ${what} code entered`);
  }
  const session = await ctx.db.transaction(async (tx) => {
    const current = await ownedFactor(tx, caller.user.id, factor.id);
    // The challenge is used once, even by attempts that raced this one.
    const used = await tx.query(
      'update auth.mfa_challenges set verified_at = now() where id = $1 and verified_at is null returning id',
      [challengeId],
    );
    if (used.rows.length === 0) {
      throw unprocessable('mfa_ip_address_mismatch', 'Challenge and verify IP addresses mismatch.');
    }
    return raiseToAal2(tx, ctx, caller.sessionId, current);
  });
  return c.json(session);
}

/** POST /factors, POST /factors/:id/challenge, POST /factors/:id/verify, DELETE /factors/:id. */
export function factorRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  routes.post('/factors', (c) => enroll(c, ctx));
  routes.post('/factors/:id/challenge', (c) => challenge(c, ctx));
  routes.post('/factors/:id/verify', (c) => verify(c, ctx));
  routes.delete('/factors/:id', async (c) => {
    const caller = await factorCaller(c, ctx);
    const id = await ctx.db.transaction(async (tx) => {
      const factor = await ownedFactor(tx, caller.user.id, c.req.param('id'));
      if (factor.verified && (await sessionAal(tx, caller.sessionId)) !== 'aal2') {
        throw unprocessable('insufficient_aal', 'AAL2 required to unenroll verified factor');
      }
      await deleteFactor(tx, factor);
      return factor.id;
    });
    return c.json({ id });
  });
}
