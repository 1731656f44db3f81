import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { signedInUser } from './mfa-support';
import { api, claimsOf, client, lastSms, smsTo, uniqueEmail, uniquePhone } from './support';

let server: RunningServer;
const TEST_NUMBER = '15550009999';

beforeAll(async () => {
  server = await startTestServer({
    auth: {
      rateLimits: false,
      sms: { enabled: true, autoconfirm: false, testOtp: { '+1 555 000 9999': '424242' } },
      mfa: { phone: { enroll: true, verify: true } },
    },
  });
});
afterAll(() => server?.stop());

const json = async (res: Response) => (await res.json()) as Record<string, unknown>;
/** Makes the user's last code of a kind look `seconds` old. */
const ageCode = (phone: string, column: string, seconds: number) =>
  server.db.query(
    `update auth.users set ${column} = now() - make_interval(secs => $2)
     where phone = $1 or phone_change = $1`,
    [phone, seconds],
  );

describe(`phone sign-up and sign-in by SMS (${databaseKind()})`, () => {
  it('signs up with a phone and password, confirms with the SMS code, then signs in by password', async () => {
    const supabase = client(server);
    const phone = uniquePhone();
    const signUp = await supabase.auth.signUp({
      phone: `+${phone}`,
      password: 'phone-password',
      options: { data: { name: 'Ada' } },
    });
    expect(signUp.error).toBeNull();
    expect(signUp.data.session).toBeNull();
    expect(signUp.data.user).toMatchObject({ phone, email: '', user_metadata: { name: 'Ada' } });
    expect(signUp.data.user?.phone_confirmed_at).toBeUndefined();

    const sms = await lastSms(server, phone);
    expect(sms).toMatchObject({ to: phone, type: 'confirmation', channel: 'sms' });
    expect(sms.body).toBe(`Your code is ${sms.otp}`);
    expect(sms.otp).toMatch(/^\d{6}$/);

    const early = await supabase.auth.signInWithPassword({ phone, password: 'phone-password' });
    expect(early.error?.code).toBe('phone_not_confirmed');
    expect(early.error?.message).toBe('Phone not confirmed');

    const verified = await supabase.auth.verifyOtp({ phone, token: sms.otp, type: 'sms' });
    expect(verified.error).toBeNull();
    const session = verified.data.session;
    expect(session?.user).toMatchObject({ phone, app_metadata: { provider: 'phone' } });
    expect(session?.user.phone_confirmed_at).toEqual(expect.any(String));
    expect(session?.user.identities).toMatchObject([
      { provider: 'phone', identity_data: { phone, phone_verified: true } },
    ]);
    expect(claimsOf(session?.access_token ?? '')).toMatchObject({ phone, aal: 'aal1' });
    const reused = await client(server).auth.verifyOtp({ phone, token: sms.otp, type: 'sms' });
    expect(reused.error?.message).toBe('Token has expired or is invalid');

    const byPassword = await client(server).auth.signInWithPassword({
      phone: `+${phone.slice(0, 1)} ${phone.slice(1)}`,
      password: 'phone-password',
    });
    expect(byPassword.error).toBeNull();
    expect(byPassword.data.user?.phone).toBe(phone);
  });

  it('checks E.164 numbers and codes with the hosted messages', async () => {
    const supabase = client(server);
    for (const bad of ['invalid-phone', '+0123456', '+1234567890123456', '12-34']) {
      const { error } = await supabase.auth.signUp({ phone: bad, password: 'phone-password' });
      expect(error?.message).toBe('Invalid phone number format (E.164 required)');
      expect(error?.status).toBe(400);
    }
    const badVerify = await supabase.auth.verifyOtp({
      phone: '12345-invalid',
      token: '123456',
      type: 'sms',
    });
    expect(badVerify.error?.message).toBe('Invalid phone number format (E.164 required)');
    const unknown = await supabase.auth.verifyOtp({
      phone: uniquePhone(),
      token: '123456',
      type: 'sms',
    });
    expect(unknown.error?.status).toBe(403);
    expect(unknown.error?.code).toBe('otp_expired');
    expect(unknown.error?.message).toBe('Token has expired or is invalid');
    const change = await supabase.auth.verifyOtp({
      phone: uniquePhone(),
      token: '123456',
      type: 'phone_change',
    });
    expect(change.error?.message).toBe('Token has expired or is invalid');

    const phone = uniquePhone();
    await supabase.auth.signUp({ phone, password: 'phone-password' });
    const { otp } = await lastSms(server, phone);
    const wrong = await supabase.auth.verifyOtp({
      phone,
      token: otp === '000000' ? '000001' : '000000',
      type: 'sms',
    });
    expect(wrong.error?.code).toBe('otp_expired');
    await ageCode(phone, 'confirmation_sent_at', 61);
    const late = await supabase.auth.verifyOtp({ phone, token: otp, type: 'sms' });
    expect(late.error?.code).toBe('otp_expired');
  });

  it('signs in with an SMS code, creating the user unless told not to', async () => {
    const supabase = client(server);
    const phone = uniquePhone();
    const { data, error } = await supabase.auth.signInWithOtp({
      phone,
      options: { data: { plan: 'free' } },
    });
    expect(error).toBeNull();
    expect(data).toEqual({ user: null, session: null, messageId: undefined });
    const sms = await lastSms(server, phone);
    const verified = await supabase.auth.verifyOtp({ phone, token: sms.otp, type: 'sms' });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({ phone, user_metadata: { plan: 'free' } });
    expect(
      (claimsOf(verified.data.session?.access_token ?? '').amr as { method: string }[])[0]?.method,
    ).toBe('otp');

    // A confirmed user gets a sign-in code; the resend interval applies.
    await ageCode(phone, 'confirmation_sent_at', 61);
    expect((await supabase.auth.signInWithOtp({ phone })).error).toBeNull();
    const again = await supabase.auth.signInWithOtp({ phone });
    expect(again.error?.status).toBe(429);
    expect(again.error?.code).toBe('over_sms_send_rate_limit');
    expect(again.error?.message).toMatch(
      /^For security purposes, you can only request this after (59|60) seconds\.$/,
    );

    const noCreate = await supabase.auth.signInWithOtp({
      phone: uniquePhone(),
      options: { shouldCreateUser: false },
    });
    expect(noCreate.error?.code).toBe('otp_disabled');
    expect(noCreate.error?.status).toBe(422);
  });

  it('resends the sign-up code (the earlier one stops working) and answers {} for others', async () => {
    const supabase = client(server);
    const phone = uniquePhone();
    await supabase.auth.signUp({ phone, password: 'phone-password' });
    const first = await lastSms(server, phone);
    await ageCode(phone, 'confirmation_sent_at', 30);
    const tooSoon = await supabase.auth.resend({ type: 'sms', phone });
    expect(tooSoon.error?.code).toBe('over_sms_send_rate_limit');
    await ageCode(phone, 'confirmation_sent_at', 61);
    expect((await supabase.auth.resend({ type: 'sms', phone })).error).toBeNull();
    const second = await lastSms(server, phone);
    expect((await smsTo(server, phone)).length).toBe(2);
    if (first.otp !== second.otp) {
      const old = await supabase.auth.verifyOtp({ phone, token: first.otp, type: 'sms' });
      expect(old.error?.code).toBe('otp_expired');
    }
    expect(
      (await supabase.auth.verifyOtp({ phone, token: second.otp, type: 'sms' })).error,
    ).toBeNull();
    // Confirmed now, or unknown: nothing is sent and the answer is {} either way.
    for (const target of [phone, uniquePhone()]) {
      const res = await api(server, '/resend', {
        method: 'POST',
        json: { type: 'sms', phone: target },
      });
      expect(await json(res)).toEqual({});
    }
    expect((await smsTo(server, phone)).length).toBe(2);
  });

  it('changes the phone of a signed-in user after the new number confirms the code', async () => {
    const { supabase, userId } = await signedInUser(server, 'phone-change');
    const phone = uniquePhone();
    const updated = await supabase.auth.updateUser({ phone });
    expect(updated.error).toBeNull();
    expect(updated.data.user).toMatchObject({
      phone: '',
      new_phone: phone,
      phone_change_sent_at: expect.any(String),
    });
    const sms = await lastSms(server, phone);
    expect(sms.type).toBe('phone_change');

    const verified = await supabase.auth.verifyOtp({ phone, token: sms.otp, type: 'phone_change' });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({
      id: userId,
      phone,
      app_metadata: { provider: 'email', providers: ['email', 'phone'] },
    });
    expect(verified.data.user?.new_phone).toBeUndefined();
    expect(verified.data.user?.identities?.map((i) => i.provider)).toEqual(['email', 'phone']);

    // A number another user has is refused; resending goes to the pending new number.
    const other = await signedInUser(server, 'phone-taken');
    const taken = await other.supabase.auth.updateUser({ phone });
    expect(taken.error?.code).toBe('phone_exists');
    expect(taken.error?.status).toBe(422);
    const next = uniquePhone();
    await ageCode(phone, 'phone_change_sent_at', 61);
    expect((await supabase.auth.updateUser({ phone: next })).error).toBeNull();
    await ageCode(phone, 'phone_change_sent_at', 61);
    expect((await supabase.auth.resend({ type: 'phone_change', phone })).error).toBeNull();
    expect((await smsTo(server, next)).map((m) => m.type)).toEqual([
      'phone_change',
      'phone_change',
    ]);
  });

  it('turns an anonymous user into a phone user', async () => {
    const supabase = client(server);
    await supabase.auth.signInAnonymously();
    const phone = uniquePhone();
    expect((await supabase.auth.updateUser({ phone })).error).toBeNull();
    const { otp } = await lastSms(server, phone);
    const verified = await supabase.auth.verifyOtp({ phone, token: otp, type: 'phone_change' });
    expect(verified.data.user).toMatchObject({ phone, is_anonymous: false });
    expect(claimsOf(verified.data.session?.access_token ?? '')).toMatchObject({
      is_anonymous: false,
    });
  });

  it('accepts the configured test code of a test number, and sends it nothing', async () => {
    const supabase = client(server);
    expect((await supabase.auth.signInWithOtp({ phone: `+${TEST_NUMBER}` })).error).toBeNull();
    expect(await smsTo(server, TEST_NUMBER)).toEqual([]);
    const verified = await supabase.auth.verifyOtp({
      phone: TEST_NUMBER,
      token: '424242',
      type: 'sms',
    });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.phone).toBe(TEST_NUMBER);
    const wrong = await client(server).auth.verifyOtp({
      phone: TEST_NUMBER,
      token: '424243',
      type: 'sms',
    });
    expect(wrong.error?.code).toBe('otp_expired');
  });

  it('sends a reauthentication code by SMS to phone-only users', async () => {
    const supabase = client(server);
    const phone = uniquePhone();
    await supabase.auth.signInWithOtp({ phone });
    await supabase.auth.verifyOtp({
      phone,
      token: (await lastSms(server, phone)).otp,
      type: 'sms',
    });
    await ageCode(phone, 'reauthentication_sent_at', 61);
    expect((await supabase.auth.reauthenticate()).error).toBeNull();
    expect((await lastSms(server, phone)).type).toBe('reauthentication');
  });

  it('keeps the SMS outbox for the service role only; ?to= filters, DELETE empties', async () => {
    const anon = await fetch(`${server.url}/_dev/sms`, { headers: { apikey: server.anonKey } });
    expect(anon.status).toBe(401);
    const phone = uniquePhone();
    await client(server).auth.signInWithOtp({ phone });
    const all = await fetch(`${server.url}/_dev/sms`, {
      headers: { apikey: server.serviceRoleKey },
    });
    expect(((await all.json()) as { to: string }[])[0]?.to).toBe(phone);
    expect((await smsTo(server, `+${phone}`)).length).toBe(1);
    const cleared = await fetch(`${server.url}/_dev/sms`, {
      method: 'DELETE',
      headers: { apikey: server.serviceRoleKey },
    });
    expect(cleared.status).toBe(204);
    expect(await smsTo(server, phone)).toEqual([]);
  });

  it('reports settings: phone on, confirmations on, no named provider', async () => {
    const res = await api(server, '/settings');
    expect(await json(res)).toMatchObject({
      external: { phone: true, email: true },
      phone_autoconfirm: false,
      sms_provider: '',
    });
  });
});

describe(`phone MFA factors (${databaseKind()})`, () => {
  it('enrolls a phone factor, challenges it by SMS and verifies the code to aal2', async () => {
    const { supabase } = await signedInUser(server, 'phone-mfa');
    const phone = uniquePhone();
    const enrolled = await supabase.auth.mfa.enroll({
      factorType: 'phone',
      phone: `+${phone}`,
      friendlyName: 'Mobile',
    });
    expect(enrolled.error).toBeNull();
    expect(enrolled.data).toMatchObject({
      type: 'phone',
      phone: `+${phone}`,
      friendly_name: 'Mobile',
    });
    const factorId = enrolled.data?.id ?? '';
    const challenge = await supabase.auth.mfa.challenge({ factorId });
    expect(challenge.error).toBeNull();
    const sms = await lastSms(server, phone);
    expect(sms.type).toBe('mfa');
    const soon = await supabase.auth.mfa.challenge({ factorId });
    expect(soon.error?.code).toBe('over_sms_send_rate_limit');

    const wrong = await supabase.auth.mfa.verify({
      factorId,
      challengeId: challenge.data?.id ?? '',
      code: sms.otp === '000000' ? '000001' : '000000',
    });
    expect(wrong.error?.message).toBe('Invalid MFA Phone code entered');
    const ok = await supabase.auth.mfa.verify({
      factorId,
      challengeId: challenge.data?.id ?? '',
      code: sms.otp,
    });
    expect(ok.error).toBeNull();
    const claims = claimsOf(ok.data?.access_token ?? '');
    expect(claims.aal).toBe('aal2');
    expect((claims.amr as { method: string }[]).map((m) => m.method)).toEqual([
      'mfa/phone',
      'password',
    ]);
    expect((await supabase.auth.mfa.listFactors()).data?.phone).toMatchObject([
      { id: factorId, phone, status: 'verified' },
    ]);
    const again = await supabase.auth.mfa.enroll({ factorType: 'phone', phone });
    expect(again.error?.code).toBe('mfa_verified_factor_exists');
  });
});

describe(`phone sign-in switched off (${databaseKind()})`, () => {
  let off: RunningServer;
  beforeAll(async () => {
    off = await startTestServer({ auth: { rateLimits: false } });
  });
  afterAll(() => off?.stop());

  it('refuses phone sign-ups, codes and password sign-ins as the hosted service does', async () => {
    const supabase = client(off);
    const phone = uniquePhone();
    const signUp = await supabase.auth.signUp({ phone, password: 'phone-password' });
    expect(signUp.error?.code).toBe('phone_provider_disabled');
    expect(signUp.error?.message).toBe('Phone signups are disabled');
    const otp = await supabase.auth.signInWithOtp({ phone });
    expect(otp.error?.message).toBe('Unsupported phone provider');
    const password = await supabase.auth.signInWithPassword({ phone, password: 'x-password' });
    expect(password.error?.code).toBe('phone_provider_disabled');
    expect(password.error?.status).toBe(422);
    const email = uniqueEmail('no-phone');
    await supabase.auth.signUp({ email, password: 'email-password' });
    const change = await supabase.auth.updateUser({ phone });
    expect(change.error?.code).toBe('phone_provider_disabled');
  });
});
