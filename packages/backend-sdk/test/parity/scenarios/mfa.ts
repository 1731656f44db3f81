/**
 * MFA and phone scenarios: TOTP enrolment, challenge and verify, factors, assurance levels,
 * unenrolment, the admin factor API, phone factors and phone sign-in. They run last: they
 * give the side's user factors.
 */
import { Secret, TOTP } from 'otpauth';
import { createUser, PASSWORD } from '../harness';
import type { Any, Ctx, Scenario } from '../scenario';

const totp = (secret: string) =>
  new TOTP({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  }).generate();

/**
 * Signs `c` in as a fresh user of this side named `name` (a user with a verified factor
 * needs aal2 to enroll another, so each scenario has its own).
 */
async function freshUser(c: Any, ctx: Ctx, name: string): Promise<void> {
  const email = ctx.email(name);
  await createUser(ctx.server, email);
  const { error } = await c.auth.signInWithPassword({ email, password: PASSWORD });
  if (error) throw error;
}

/** A fresh signed-in user with a TOTP factor (not recorded: setup). */
async function enrolled(c: Any, ctx: Ctx, name: string): Promise<{ id: string; secret: string }> {
  await freshUser(c, ctx, name);
  const { data, error } = await c.auth.mfa.enroll({ factorType: 'totp', friendlyName: name });
  if (error) throw error;
  return { id: data.id, secret: data.totp.secret };
}

const fresh = { signedIn: false } as const;

/** The user's access token, signed in without the client (for admin setup). */
async function userToken(ctx: Ctx): Promise<string> {
  const res = await fetch(`${ctx.server.url}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: ctx.server.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email: ctx.user.email, password: ctx.user.password }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

export const mfaScenarios: Scenario[] = [
  {
    id: 'auth.mfa.enroll-totp',
    client: fresh,
    setup: (c, ctx) => freshUser(c, ctx, 'mfa-enroll'),
    run: (c) => c.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'phone app' }),
  },
  {
    id: 'auth.mfa.challenge-verify',
    client: fresh,
    setup: (c, ctx) => enrolled(c, ctx, 'mfa-verify'),
    run: async (c, _ctx, factor) => {
      const challenge = await c.auth.mfa.challenge({ factorId: factor.id });
      const verified = await c.auth.mfa.verify({
        factorId: factor.id,
        challengeId: challenge.data.id,
        code: totp(factor.secret),
      });
      const aal = await c.auth.mfa.getAuthenticatorAssuranceLevel();
      return { challenge, verified, aal };
    },
  },
  {
    id: 'auth.mfa.verify-wrong-code',
    client: fresh,
    setup: (c, ctx) => enrolled(c, ctx, 'mfa-wrong'),
    run: async (c, _ctx, factor) => {
      const challenge = await c.auth.mfa.challenge({ factorId: factor.id });
      return c.auth.mfa.verify({
        factorId: factor.id,
        challengeId: challenge.data.id,
        code: '000000',
      });
    },
  },
  {
    id: 'auth.mfa.list-factors',
    client: fresh,
    setup: (c, ctx) => enrolled(c, ctx, 'mfa-list'),
    run: (c) => c.auth.mfa.listFactors(),
  },
  {
    id: 'auth.mfa.aal',
    client: fresh,
    setup: (c, ctx) => enrolled(c, ctx, 'mfa-aal'),
    run: (c) => c.auth.mfa.getAuthenticatorAssuranceLevel(),
  },
  {
    id: 'auth.mfa.unenroll',
    client: fresh,
    setup: (c, ctx) => enrolled(c, ctx, 'mfa-gone'),
    run: (c, _ctx, factor) => c.auth.mfa.unenroll({ factorId: factor.id }),
  },
  {
    id: 'auth.mfa.enroll-phone',
    client: fresh,
    setup: (c, ctx) => freshUser(c, ctx, 'mfa-phone'),
    run: async (c, ctx) => {
      const enrolledPhone = await c.auth.mfa.enroll({ factorType: 'phone', phone: ctx.phone(1) });
      const challenge = await c.auth.mfa.challenge({ factorId: enrolledPhone.data.id });
      const verified = await c.auth.mfa.verify({
        factorId: enrolledPhone.data.id,
        challengeId: challenge.data.id,
        code: await ctx.sms(ctx.phone(1)),
      });
      return { enrolledPhone, challenge, verified };
    },
  },
  {
    id: 'auth.admin.mfa.list-factors',
    client: { key: 'service' },
    run: (c, ctx) => c.auth.admin.mfa.listFactors({ userId: ctx.user.id }),
  },
  {
    id: 'auth.admin.mfa.delete-factor',
    client: { key: 'service' },
    setup: async (_c, ctx) => {
      const res = await fetch(`${ctx.server.url}/auth/v1/factors`, {
        method: 'POST',
        headers: {
          apikey: ctx.server.anonKey,
          authorization: `Bearer ${await userToken(ctx)}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ factor_type: 'totp', friendly_name: 'admin removes' }),
      });
      return ((await res.json()) as { id: string }).id;
    },
    run: (c, ctx, id) => c.auth.admin.mfa.deleteFactor({ userId: ctx.user.id, id }),
  },
  {
    id: 'auth.phone.sign-up',
    client: { signedIn: false },
    run: (c, ctx) => c.auth.signUp({ phone: ctx.phone(2), password: 'phone password 1' }),
  },
  {
    id: 'auth.phone.otp-sign-in',
    client: { signedIn: false },
    run: async (c, ctx) => {
      const sent = await c.auth.signInWithOtp({ phone: ctx.phone(3) });
      const verified = await c.auth.verifyOtp({
        phone: ctx.phone(3),
        token: await ctx.sms(ctx.phone(3)),
        type: 'sms',
      });
      return { sent, verified };
    },
  },
];
