import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { totpCode, wrongCode } from './mfa-support';
import { api, client, mailsTo, smsTo, uniqueEmail, uniquePhone } from './support';

// Every hook as a Postgres function, as the hosted docs write them: each records what it got
// (and the role it ran as) and answers by the payload.
const MIGRATION = /* sql */ `
create table public.hook_events (
  id bigint generated always as identity primary key,
  hook text not null,
  payload jsonb not null,
  ran_as text not null
);
grant usage on schema public to supabase_auth_admin;
grant insert, select on table public.hook_events to supabase_auth_admin;

create function public.send_email(event jsonb) returns jsonb language plpgsql as $$
begin
  insert into public.hook_events (hook, payload, ran_as) values ('send_email', event, current_user);
  return '{}'::jsonb;
end $$;

create function public.send_sms(event jsonb) returns jsonb language plpgsql as $$
begin
  insert into public.hook_events (hook, payload, ran_as) values ('send_sms', event, current_user);
  return '{}'::jsonb;
end $$;

create function public."before-user-created"(event jsonb) returns jsonb language plpgsql as $$
begin
  if event -> 'user' ->> 'email' like '%@blocked.test' then
    return jsonb_build_object('error', jsonb_build_object(
      'http_code', 403, 'message', 'Sign-ups from this domain are closed'));
  end if;
  insert into public.hook_events (hook, payload, ran_as)
    values ('before_user_created', event, current_user);
  return '{}'::jsonb;
end $$;

-- The hosted docs' example: reject after two failed attempts.
create function public.mfa_attempt(event jsonb) returns jsonb language plpgsql as $$
declare failed int;
begin
  select count(*) into failed from public.hook_events
    where hook = 'mfa' and payload ->> 'user_id' = event ->> 'user_id'
      and (payload ->> 'valid')::boolean = false;
  insert into public.hook_events (hook, payload, ran_as) values ('mfa', event, current_user);
  if failed >= 1 and not (event ->> 'valid')::boolean then
    return jsonb_build_object('decision', 'reject', 'message', 'Too many attempts');
  end if;
  return jsonb_build_object('decision', 'continue');
end $$;

create function public.password_attempt(event jsonb) returns jsonb language plpgsql as $$
begin
  insert into public.hook_events (hook, payload, ran_as) values ('password', event, current_user);
  if (event ->> 'valid')::boolean then
    return jsonb_build_object('decision', 'continue');
  end if;
  return jsonb_build_object('decision', 'reject', 'message', 'Locked out',
    'should_logout_user', true);
end $$;

grant execute on function public.send_email, public.send_sms, public."before-user-created",
  public.mfa_attempt, public.password_attempt to supabase_auth_admin;
revoke execute on function public.send_email, public.send_sms, public."before-user-created",
  public.mfa_attempt, public.password_attempt from authenticated, anon, public;
`;

const fn = (name: string) => `pg-functions://postgres/public/${name}`;

let server: RunningServer;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hooks-'));
  await writeFile(join(dir, '0001_hooks.sql'), MIGRATION);
  server = await startTestServer({
    migrationsDir: dir,
    auth: {
      autoconfirm: false,
      sms: { enabled: true, autoconfirm: false },
      hooks: {
        sendEmail: fn('send_email'),
        sendSms: { uri: fn('send_sms') },
        beforeUserCreated: { enabled: true, uri: fn('before-user-created') },
        mfaVerificationAttempt: fn('mfa_attempt'),
        passwordVerificationAttempt: fn('password_attempt'),
      },
    },
  });
});
afterAll(() => server?.stop());

/** A hook payload, with the members tests read. */
type Payload = Record<string, unknown> & {
  email_data?: Record<string, string>;
  sms?: Record<string, string>;
};

/** The payloads a hook received about an address or user, oldest first. */
async function events(hook: string, match: string) {
  const { rows } = await server.db.query<{ payload: Payload; ran_as: string }>(
    `select payload, ran_as from public.hook_events where hook = $1 and payload::text like $2
     order by id`,
    [hook, `%${match}%`],
  );
  return rows;
}

/** A confirmed user signed in with a password (confirmed through the send-email hook's code). */
async function confirmedUser() {
  const email = uniqueEmail('pw');
  const supabase = client(server);
  const signedUp = await supabase.auth.signUp({ email, password: 'hook-password' });
  expect(signedUp.error).toBeNull();
  const [mail] = await events('send_email', email);
  const token = mail?.payload.email_data?.token ?? '';
  const verified = await supabase.auth.verifyOtp({ email, token, type: 'email' });
  expect(verified.error).toBeNull();
  return { email, supabase, userId: signedUp.data.user?.id ?? '' };
}

describe(`auth hooks as Postgres functions (${databaseKind()})`, () => {
  it('send-email gets the user and email_data instead of a mail, and its code confirms', async () => {
    const email = uniqueEmail('mail');
    const supabase = client(server);
    const { data, error } = await supabase.auth.signUp({
      email,
      password: 'hook-password',
      options: { emailRedirectTo: `${server.url}/welcome` },
    });
    expect(error).toBeNull();
    const [event] = await events('send_email', email);
    expect(event?.ran_as).toBe('supabase_auth_admin');
    const payload = event?.payload as unknown as Record<string, Record<string, unknown>>;
    expect(payload.metadata).toMatchObject({ name: 'send-email' });
    expect(payload.user).toMatchObject({ id: data.user?.id, email });
    expect(payload.email_data).toMatchObject({
      email_action_type: 'signup',
      redirect_to: `${server.url}/welcome`,
      site_url: `${server.url}/auth/v1`,
      token_new: '',
      token_hash_new: '',
    });
    expect(payload.email_data?.token).toMatch(/^\d{6}$/);
    expect(payload.email_data?.token_hash).toMatch(/^[0-9a-f]{56}$/);
    // The hook replaces the mailer: nothing in the outbox.
    expect(await mailsTo(server, email)).toEqual([]);
    // The code and the hash the hook got are the real ones.
    const byHash = await client(server).auth.verifyOtp({
      token_hash: String(payload.email_data?.token_hash),
      type: 'email',
    });
    expect(byHash.error).toBeNull();
    expect(byHash.data.user?.email).toBe(email);
  });

  it('send-email covers recovery too (email_action_type recovery)', async () => {
    const { email } = await confirmedUser();
    const { error } = await client(server).auth.resetPasswordForEmail(email);
    expect(error).toBeNull();
    const sent = await events('send_email', email);
    expect(
      sent.map(
        (e) => (e.payload.email_data as unknown as Record<string, string>).email_action_type,
      ),
    ).toEqual(['signup', 'recovery']);
  });

  it('send-email: one call per email change, with the codes of both addresses', async () => {
    const { email, supabase } = await confirmedUser();
    const next = uniqueEmail('next');
    expect((await supabase.auth.updateUser({ email: next })).error).toBeNull();
    const changes = (await events('send_email', next)).map((e) => e.payload.email_data ?? {});
    expect(changes).toHaveLength(1);
    const data = changes[0] ?? {};
    expect(data.email_action_type).toBe('email_change');
    // GoTrue's pairing: `token` is the current address's code, `token_new` the new one's.
    const half = await client(server).auth.verifyOtp({
      email,
      token: data.token ?? '',
      type: 'email_change',
    });
    expect(half.error).toBeNull();
    const done = await supabase.auth.verifyOtp({
      email: next,
      token: data.token_new ?? '',
      type: 'email_change',
    });
    expect(done.error).toBeNull();
    expect(done.data.user?.email).toBe(next);
    expect(await mailsTo(server, next)).toEqual([]);
    expect(await mailsTo(server, email)).toEqual([]);
  });

  it('before-user-created sees the new user and can reject the sign-up', async () => {
    const email = uniqueEmail('fine');
    const ok = await client(server).auth.signUp({ email, password: 'hook-password' });
    expect(ok.error).toBeNull();
    const [seen] = await events('before_user_created', email);
    expect(seen?.payload).toMatchObject({
      metadata: { name: 'before-user-created' },
      user: { id: ok.data.user?.id, email, aud: 'authenticated', is_anonymous: false },
    });

    const blocked = `someone-${Date.now()}@blocked.test`;
    const { data, error } = await client(server).auth.signUp({
      email: blocked,
      password: 'x-password',
    });
    expect(data.user).toBeNull();
    expect(error?.status).toBe(403);
    expect(error?.message).toBe('Sign-ups from this domain are closed');
    const { rows } = await server.db.query('select 1 from auth.users where email = $1', [blocked]);
    expect(rows).toHaveLength(0);
  });

  it('before-user-created runs for anonymous sign-ins too', async () => {
    const { data, error } = await client(server).auth.signInAnonymously();
    expect(error).toBeNull();
    const [seen] = await events('before_user_created', data.user?.id ?? '');
    expect(seen?.payload).toMatchObject({ user: { is_anonymous: true } });
  });

  it('send-sms gets the code instead of the SMS provider, and the code verifies', async () => {
    const phone = uniquePhone();
    const supabase = client(server);
    const sent = await supabase.auth.signInWithOtp({ phone });
    expect(sent.error).toBeNull();
    const digits = phone.replace(/\D/g, '');
    const [event] = await events('send_sms', digits);
    const sms = event?.payload.sms ?? {};
    expect(sms.phone).toBe(digits);
    expect(sms.otp).toMatch(/^\d{6}$/);
    expect(await smsTo(server, phone)).toEqual([]);
    const verified = await supabase.auth.verifyOtp({ phone, token: sms.otp ?? '', type: 'sms' });
    expect(verified.error).toBeNull();
    expect(verified.data.session).not.toBeNull();
  });

  it('password-verification-attempt sees each attempt; a rejection can sign the user out', async () => {
    const { email, supabase, userId } = await confirmedUser();
    const other = client(server);
    const first = await other.auth.signInWithPassword({ email, password: 'hook-password' });
    expect(first.error).toBeNull();
    const [ok] = await events('password', userId);
    expect(ok?.payload).toMatchObject({
      metadata: { name: 'password-verification' },
      user_id: userId,
      valid: true,
    });

    const wrong = await client(server).auth.signInWithPassword({ email, password: 'nope-nope' });
    expect(wrong.error?.status).toBe(400);
    expect(wrong.error?.code).toBe('invalid_credentials');
    expect(wrong.error?.message).toBe('Locked out');
    // should_logout_user: every session of the user is gone.
    const refreshed = await supabase.auth.refreshSession();
    expect(refreshed.error).not.toBeNull();
    const { rows } = await server.db.query('select 1 from auth.sessions where user_id = $1', [
      userId,
    ]);
    expect(rows).toHaveLength(0);
  });

  it('mfa-verification-attempt can reject further attempts (403, signed out)', async () => {
    const { supabase, userId } = await confirmedUser();
    const enrolled = await supabase.auth.mfa.enroll({ factorType: 'totp' });
    expect(enrolled.error).toBeNull();
    const factorId = enrolled.data?.id ?? '';
    const secret = enrolled.data?.totp.secret ?? '';
    const good = await supabase.auth.mfa.challengeAndVerify({ factorId, code: totpCode(secret) });
    expect(good.error).toBeNull();
    const [seen] = await events('mfa', userId);
    expect(seen?.payload).toMatchObject({
      metadata: { name: 'mfa-verification' },
      user_id: userId,
      factor_id: factorId,
      factor_type: 'totp',
      valid: true,
    });

    const bad = await supabase.auth.mfa.challengeAndVerify({ factorId, code: wrongCode(secret) });
    expect(bad.error?.status).toBe(422);
    expect(bad.error?.code).toBe('mfa_verification_failed');
    const rejected = await supabase.auth.mfa.challengeAndVerify({
      factorId,
      code: wrongCode(secret),
    });
    expect(rejected.error?.status).toBe(403);
    expect(rejected.error?.code).toBe('mfa_verification_rejected');
    expect(rejected.error?.message).toBe('Too many attempts');
    const { rows } = await server.db.query('select 1 from auth.sessions where user_id = $1', [
      userId,
    ]);
    expect(rows).toHaveLength(0);
  });

  it('a hook that is not granted to supabase_auth_admin fails as GoTrue reports it', async () => {
    await server.db.query(
      'revoke execute on function public."before-user-created" from supabase_auth_admin',
    );
    try {
      const res = await api(server, '/signup', {
        method: 'POST',
        json: { email: uniqueEmail('nogrant'), password: 'hook-password' },
      });
      expect(res.status).toBe(500);
      expect(await res.json()).toMatchObject({
        message: 'Error running hook URI: pg-functions://postgres/public/before-user-created',
      });
    } finally {
      await server.db.query(
        'grant execute on function public."before-user-created" to supabase_auth_admin',
      );
    }
  });
});
