import type { RunningServer } from '@app/backend-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthClient, memoryStorage } from '../src/auth/index';
import { officialClient } from './support/official';
import { recordingFetch } from './support/record';
import { freshEmail, lastMail, startSdkServer } from './support/server';

let server: RunningServer;
beforeAll(async () => {
  server = await startSdkServer({ securePasswordChange: true });
});
afterAll(async () => {
  await server?.stop();
});

const PASSWORD = 'correct horse 1';

const client = (fetchImpl?: typeof fetch) =>
  createAuthClient(server.url, server.anonKey, {
    storage: memoryStorage(),
    autoRefreshToken: false,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });

/** Makes the user's sessions older than the 24 h in which no code is needed. */
const ageSessions = (userId: string) =>
  server.db.query(
    `update auth.sessions set created_at = now() - interval '25 hours' where user_id = $1`,
    [userId],
  );

describe('auth.reauthenticate', () => {
  it('sends the same request and gets the same result as the official client', async () => {
    const ours = recordingFetch();
    const theirs = recordingFetch();
    const a = client(ours.fetch as typeof fetch);
    const b = officialClient(server.url, server.anonKey, { fetch: theirs.fetch }).auth;
    const sa = (await a.signUp({ email: freshEmail('ours'), password: PASSWORD })).data.session;
    const sb = (await b.signUp({ email: freshEmail('theirs'), password: PASSWORD })).data.session;
    ours.clear();
    theirs.clear();
    const ra = await a.reauthenticate();
    const rb = await b.reauthenticate();
    expect(ra).toEqual({ data: { user: null, session: null }, error: null });
    expect(rb).toEqual(ra);
    const wire = (log: typeof ours.log, token: string | undefined) =>
      log.map((r) => ({
        method: r.method,
        path: r.path,
        body: r.body ?? null,
        withSessionToken: r.headers.authorization === `Bearer ${token}`,
      }));
    const expected = [
      { method: 'GET', path: '/auth/v1/reauthenticate', body: null, withSessionToken: true },
    ];
    expect(wire(ours.log, sa?.access_token)).toEqual(expected);
    expect(wire(theirs.log, sb?.access_token)).toEqual(expected);
    a.dispose();
  });

  it('answers as the official client without a session', async () => {
    const a = client();
    const b = officialClient(server.url, server.anonKey).auth;
    const ra = await a.reauthenticate();
    const rb = await b.reauthenticate();
    expect(ra.data).toEqual(rb.data);
    expect([ra.error?.name, ra.error?.status, ra.error?.message]).toEqual([
      rb.error?.name,
      rb.error?.status,
      rb.error?.message,
    ]);
    a.dispose();
  });

  it('mails a code that lets an old session change its password, once', async () => {
    const email = freshEmail('reauth');
    const auth = client();
    const { data } = await auth.signUp({ email, password: PASSWORD });
    const userId = data.user?.id as string;
    await ageSessions(userId);

    const refused = await auth.updateUser({ password: 'a new password 2' });
    expect([refused.error?.status, refused.error?.code]).toEqual([400, 'reauthentication_needed']);

    expect((await auth.reauthenticate()).error).toBeNull();
    const mail = await lastMail(server, email);
    expect(mail.type).toBe('reauthentication');
    const nonce = mail.otp as string;
    expect(nonce).toMatch(/^\d{6}$/);

    const wrong = await auth.updateUser({
      password: 'a new password 2',
      nonce: nonce === '000000' ? '111111' : '000000',
    });
    expect([wrong.error?.status, wrong.error?.code]).toEqual([422, 'reauthentication_not_valid']);

    const changed = await auth.updateUser({ password: 'a new password 2', nonce });
    expect(changed.error).toBeNull();
    const again = await auth.updateUser({ password: 'a third password 3', nonce });
    expect(again.error?.code).toBe('reauthentication_not_valid');

    const other = client();
    expect((await other.signInWithPassword({ email, password: PASSWORD })).error?.code).toBe(
      'invalid_credentials',
    );
    expect(
      (await other.signInWithPassword({ email, password: 'a new password 2' })).error,
    ).toBeNull();
    auth.dispose();
    other.dispose();
  });
});
