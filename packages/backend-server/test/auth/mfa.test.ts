import type { AuthChangeEvent } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { signedInUser, totpCode, withVerifiedTotp, wrongCode } from './mfa-support';
import { adminClient, api, claimsOf, client } from './support';

let server: RunningServer;

beforeAll(async () => {
  server = await startTestServer({
    auth: {
      rateLimits: false,
      siteUrl: 'http://drive.localhost:5173',
      mfa: { maxEnrolledFactors: 3 },
    },
  });
});
afterAll(() => server?.stop());

const json = async (res: Response) => (await res.json()) as Record<string, unknown>;
const amrMethods = (token: string) =>
  (claimsOf(token).amr as { method: string }[]).map((entry) => entry.method);

describe(`MFA with TOTP factors (${databaseKind()})`, () => {
  it('enrolls a TOTP factor: QR code, secret and URI; unverified until verified', async () => {
    const { supabase, email } = await signedInUser(server);
    const { data, error } = await supabase.auth.mfa.enroll({
      factorType: 'totp',
      friendlyName: 'Phone app',
    });
    expect(error).toBeNull();
    if (!data) throw new Error('no data');
    expect(data).toMatchObject({ type: 'totp', friendly_name: 'Phone app' });
    expect(data.totp.qr_code.startsWith('data:image/svg+xml;utf-8,<svg ')).toBe(true);
    expect(data.totp.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(data.totp.uri);
    expect(uri.searchParams.get('issuer')).toBe('drive.localhost:5173');
    expect(uri.searchParams.get('secret')).toBe(data.totp.secret);
    expect(decodeURIComponent(uri.pathname)).toBe(`/drive.localhost:5173:${email}`);

    const listed = await supabase.auth.mfa.listFactors();
    expect(listed.data?.all).toMatchObject([
      { id: data.id, factor_type: 'totp', status: 'unverified', friendly_name: 'Phone app' },
    ]);
    expect(listed.data?.totp).toEqual([]);
    const aal = await supabase.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal1' });
  });

  it('verifies a code: the session becomes aal2 with a totp amr entry and a new refresh token', async () => {
    const { supabase } = await signedInUser(server);
    const events: AuthChangeEvent[] = [];
    supabase.auth.onAuthStateChange((event) => void events.push(event));
    const before = (await supabase.auth.getSession()).data.session;
    const enrolled = await supabase.auth.mfa.enroll({ factorType: 'totp' });
    const factorId = enrolled.data?.id ?? '';
    // Five minutes after the challenge was made (epoch seconds, rounded), made between these.
    const asked = Date.now() / 1000;
    const challenge = await supabase.auth.mfa.challenge({ factorId });
    const answered = Date.now() / 1000;
    expect(challenge.error).toBeNull();
    expect(challenge.data?.expires_at).toBeGreaterThanOrEqual(Math.floor(asked) + 300);
    expect(challenge.data?.expires_at).toBeLessThanOrEqual(Math.ceil(answered) + 300);

    const verified = await supabase.auth.mfa.verify({
      factorId,
      challengeId: challenge.data?.id ?? '',
      code: totpCode(enrolled.data?.totp.secret ?? ''),
    });
    expect(verified.error).toBeNull();
    const session = verified.data;
    if (!session) throw new Error('no session');
    expect(claimsOf(session.access_token)).toMatchObject({ aal: 'aal2' });
    expect(amrMethods(session.access_token)).toEqual(['totp', 'password']);
    expect(session.refresh_token).not.toBe(before?.refresh_token);
    expect(session.user.factors).toMatchObject([{ id: factorId, status: 'verified' }]);
    expect(events).toContain('MFA_CHALLENGE_VERIFIED');

    const aal = await supabase.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data?.currentLevel).toBe('aal2');
    expect(aal.data?.nextLevel).toBe('aal2');
    const methods = aal.data?.currentAuthenticationMethods ?? [];
    expect(methods.map((m) => (typeof m === 'string' ? m : m.method))).toEqual([
      'totp',
      'password',
    ]);
    const listed = await supabase.auth.mfa.listFactors();
    expect(listed.data?.totp.map((f) => f.id)).toEqual([factorId]);

    // A refreshed token keeps the level and the methods.
    const refreshed = await supabase.auth.refreshSession();
    expect(claimsOf(refreshed.data.session?.access_token ?? '')).toMatchObject({ aal: 'aal2' });
    expect(amrMethods(refreshed.data.session?.access_token ?? '')).toEqual(['totp', 'password']);
  });

  it('refuses wrong codes, used challenges and expired challenges', async () => {
    const { supabase } = await signedInUser(server);
    const enrolled = await supabase.auth.mfa.enroll({ factorType: 'totp' });
    const factorId = enrolled.data?.id ?? '';
    const secret = enrolled.data?.totp.secret ?? '';

    const wrong = await supabase.auth.mfa.challengeAndVerify({ factorId, code: wrongCode(secret) });
    expect(wrong.error?.message).toBe('Invalid TOTP code entered');
    expect(wrong.error?.code).toBe('mfa_verification_failed');
    expect(wrong.error?.status).toBe(422);

    const challenge = await supabase.auth.mfa.challenge({ factorId });
    const challengeId = challenge.data?.id ?? '';
    const ok = await supabase.auth.mfa.verify({ factorId, challengeId, code: totpCode(secret) });
    expect(ok.error).toBeNull();
    const again = await supabase.auth.mfa.verify({ factorId, challengeId, code: totpCode(secret) });
    expect(again.error?.code).toBe('mfa_ip_address_mismatch');

    const old = await supabase.auth.mfa.challenge({ factorId });
    await server.db.query(
      `update auth.mfa_challenges set created_at = now() - interval '301 seconds' where id = $1`,
      [old.data?.id],
    );
    const expired = await supabase.auth.mfa.verify({
      factorId,
      challengeId: old.data?.id ?? '',
      code: totpCode(secret),
    });
    expect(expired.error?.code).toBe('mfa_challenge_expired');
    expect(expired.error?.message).toBe(
      `MFA challenge ${old.data?.id} has expired, verify against another challenge or create a new challenge.`,
    );
    const { rows } = await server.db.query('select 1 from auth.mfa_challenges where id = $1', [
      old.data?.id,
    ]);
    expect(rows).toEqual([]);

    const unknown = await supabase.auth.mfa.verify({
      factorId,
      challengeId: crypto.randomUUID(),
      code: totpCode(secret),
    });
    expect(unknown.error?.code).toBe('mfa_factor_not_found');
    const noFactor = await supabase.auth.mfa.challenge({ factorId: crypto.randomUUID() });
    expect(noFactor.error?.code).toBe('mfa_factor_not_found');
    expect(noFactor.error?.status).toBe(404);
  });

  it('asks for aal2 once a factor is verified: new factors, unenrolment and credential changes', async () => {
    const { supabase, email, password } = await signedInUser(server);
    const { factorId, secret } = await withVerifiedTotp(supabase);

    // A new password sign-in is aal1 and the next level is aal2.
    const other = client(server);
    await other.auth.signInWithPassword({ email, password });
    const aal = await other.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal2' });
    const enroll = await other.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'second' });
    expect(enroll.error?.code).toBe('insufficient_aal');
    expect(enroll.error?.status).toBe(403);
    const unenroll = await other.auth.mfa.unenroll({ factorId });
    expect(unenroll.error?.code).toBe('insufficient_aal');
    expect(unenroll.error?.status).toBe(422);
    const change = await other.auth.updateUser({ password: 'another-password' });
    expect(change.error?.code).toBe('insufficient_aal');
    expect(change.error?.status).toBe(401);
    const metadata = await other.auth.updateUser({ data: { theme: 'dark' } });
    expect(metadata.error).toBeNull();

    // The code step raises it; the new factor and the password change then go through.
    const step = await other.auth.mfa.challengeAndVerify({ factorId, code: totpCode(secret) });
    expect(step.error).toBeNull();
    expect((await other.auth.updateUser({ password: 'another-password' })).error).toBeNull();
    const second = await other.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'second' });
    expect(second.error).toBeNull();
  });

  it('ends the user’s aal1 sessions when a factor is verified', async () => {
    const { supabase, email, password } = await signedInUser(server);
    const elsewhere = client(server);
    await elsewhere.auth.signInWithPassword({ email, password });
    expect((await elsewhere.auth.getUser()).error).toBeNull();
    await withVerifiedTotp(supabase);
    // supabase-js turns session_not_found into a missing session and forgets it.
    const gone = await elsewhere.auth.getUser();
    expect(gone.error?.name).toBe('AuthSessionMissingError');
    expect((await elsewhere.auth.getSession()).data.session).toBeNull();
    expect((await supabase.auth.getUser()).error).toBeNull();
  });

  it('unenrolls: sessions raised by the factor go back to aal1 on their next token', async () => {
    const { supabase } = await signedInUser(server);
    const { factorId } = await withVerifiedTotp(supabase);
    const { data, error } = await supabase.auth.mfa.unenroll({ factorId });
    expect(error).toBeNull();
    expect(data).toEqual({ id: factorId });
    const refreshed = await supabase.auth.refreshSession();
    expect(claimsOf(refreshed.data.session?.access_token ?? '')).toMatchObject({ aal: 'aal1' });
    expect(amrMethods(refreshed.data.session?.access_token ?? '')).toEqual(['password']);
    expect((await supabase.auth.mfa.listFactors()).data?.all).toEqual([]);
  });

  it('keeps friendly names unique, limits the number of factors and forgets abandoned ones', async () => {
    const { supabase, userId } = await signedInUser(server);
    const first = await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Laptop' });
    expect(first.error).toBeNull();
    const same = await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Laptop' });
    expect(same.error?.code).toBe('mfa_factor_name_conflict');
    expect(same.error?.message).toBe(
      'A factor with the friendly name "Laptop" for this user already exists',
    );
    await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Tablet' });
    await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Watch' });
    const fourth = await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Desk' });
    expect(fourth.error?.code).toBe('too_many_enrolled_mfa_factors');
    expect(fourth.error?.status).toBe(422);

    // Unverified factors never challenged are forgotten after 5 minutes.
    await server.db.query(
      `update auth.mfa_factors set created_at = now() - interval '301 seconds'
       where user_id = $1 and friendly_name = 'Laptop'`,
      [userId],
    );
    const after = await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Desk' });
    expect(after.error).toBeNull();
    const names = (await supabase.auth.mfa.listFactors()).data?.all.map((f) => f.friendly_name);
    expect(names?.sort()).toEqual(['Desk', 'Tablet', 'Watch']);
  });

  it('refuses anonymous users, callers without a token and unknown factor types', async () => {
    const anon = client(server);
    await anon.auth.signInAnonymously();
    const anonymous = await anon.auth.mfa.enroll({ factorType: 'totp' });
    expect(anonymous.error?.code).toBe('no_authorization');
    expect(anonymous.error?.status).toBe(403);

    // supabase-js sends the anon key as the bearer token when signed out; a bare auth client
    // sends none (the hosted gateway then passes no bearer token on).
    const signedOut = await client(server).auth.mfa.enroll({ factorType: 'totp' });
    expect(signedOut.error?.message).toBe('invalid claim: missing sub claim');
    const bare = await api(server, '/factors', { method: 'POST', json: { factor_type: 'totp' } });
    expect(bare.status).toBe(401);
    expect((await json(bare)).message).toBe('This endpoint requires a valid Bearer token');

    const { supabase } = await signedInUser(server);
    const token = (await supabase.auth.getSession()).data.session?.access_token ?? '';
    const bad = await api(server, '/factors', {
      method: 'POST',
      token,
      json: { factor_type: 'sms-code' },
    });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toEqual({
      code: 'validation_failed',
      message: 'factor_type needs to be totp, phone, or webauthn',
    });
    const phone = await api(server, '/factors', {
      method: 'POST',
      token,
      json: { factor_type: 'phone', phone: '+15550001234' },
    });
    expect(phone.status).toBe(422);
    expect((await json(phone)).code).toBe('mfa_phone_enroll_not_enabled');
    const notUuid = await api(server, '/factors/not-a-uuid/challenge', { method: 'POST', token });
    expect(notUuid.status).toBe(404);
    expect(await json(notUuid)).toEqual({
      code: 'validation_failed',
      message: 'factor_id must be an UUID',
    });
    const enrolled = await supabase.auth.mfa.enroll({ factorType: 'totp' });
    const empty = await api(server, `/factors/${enrolled.data?.id}/verify`, {
      method: 'POST',
      token,
      json: { challenge_id: crypto.randomUUID(), code: '' },
    });
    expect(empty.status).toBe(400);
    expect((await json(empty)).message).toBe('Code needs to be non-empty');
  });

  it('lets admins list, rename and delete a user’s factors', async () => {
    const admin = adminClient(server);
    const { supabase, userId } = await signedInUser(server);
    const { factorId } = await withVerifiedTotp(supabase);

    const listed = await admin.auth.admin.mfa.listFactors({ userId });
    expect(listed.error).toBeNull();
    expect(listed.data?.factors).toMatchObject([
      { id: factorId, factor_type: 'totp', status: 'verified', phone: '' },
    ]);
    const renamed = await api(server, `/admin/users/${userId}/factors/${factorId}`, {
      method: 'PUT',
      key: server.serviceRoleKey,
      token: server.serviceRoleKey,
      json: { friendly_name: 'Renamed' },
    });
    expect(renamed.status).toBe(200);
    expect(await json(renamed)).toMatchObject({ id: factorId, friendly_name: 'Renamed' });

    const deleted = await admin.auth.admin.mfa.deleteFactor({ userId, id: factorId });
    expect(deleted.error).toBeNull();
    expect((deleted.data as unknown as { data: { id: string } }).data.id).toBe(factorId);
    expect((await admin.auth.admin.mfa.listFactors({ userId })).data?.factors).toEqual([]);
    // The user's session lost its aal2 with the factor.
    const refreshed = await supabase.auth.refreshSession();
    expect(claimsOf(refreshed.data.session?.access_token ?? '')).toMatchObject({ aal: 'aal1' });

    const missing = await admin.auth.admin.mfa.listFactors({ userId: crypto.randomUUID() });
    expect(missing.error?.status).toBe(404);
    expect(missing.error?.code).toBe('user_not_found');
    const noFactor = await admin.auth.admin.mfa.deleteFactor({ userId, id: crypto.randomUUID() });
    expect(noFactor.error?.code).toBe('mfa_factor_not_found');
    const notAdmin = await api(server, `/admin/users/${userId}/factors`, {
      token: (await supabase.auth.getSession()).data.session?.access_token ?? '',
    });
    expect(notAdmin.status).toBe(403);
  });
});

describe(`MFA rate limits (${databaseKind()})`, () => {
  let limited: RunningServer;
  beforeAll(async () => {
    limited = await startTestServer({
      auth: { rateLimits: { mfaPerIp: 3, tokenPerIp: 100, signupPerIp: 100 } },
    });
  });
  afterAll(() => limited?.stop());

  it('counts challenges and verifications per IP per minute', async () => {
    const { supabase } = await signedInUser(limited);
    const enrolled = await supabase.auth.mfa.enroll({ factorType: 'totp' });
    const factorId = enrolled.data?.id ?? '';
    const challenge = await supabase.auth.mfa.challenge({ factorId });
    const challengeId = challenge.data?.id ?? '';
    const code = wrongCode(enrolled.data?.totp.secret ?? '');
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 4; i++) {
      const { error } = await supabase.auth.mfa.verify({ factorId, challengeId, code });
      codes.push(error?.code);
    }
    expect(codes).toEqual([
      'mfa_verification_failed',
      'mfa_verification_failed',
      'mfa_verification_failed',
      'over_request_rate_limit',
    ]);
    for (let i = 0; i < 2; i++) await supabase.auth.mfa.challenge({ factorId });
    const fourth = await supabase.auth.mfa.challenge({ factorId });
    expect(fourth.error?.code).toBe('over_request_rate_limit');
    expect(fourth.error?.status).toBe(429);
  });
});
