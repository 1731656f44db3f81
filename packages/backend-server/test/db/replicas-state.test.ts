/**
 * What auth keeps besides users and sessions — the mail and SMS outboxes, the emulated
 * provider's codes — is in the database, so two servers on one PostgreSQL share it: a code
 * mailed or texted through one is read through the other, and a sign-in started on one
 * finishes on the other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartServerOptions } from '../../src/config/index';
import { type RunningServer, startServer } from '../../src/server';
import { followToApp, fragmentOf } from '../auth/oauth-support';
import { api, mailsTo, smsTo, uniqueEmail, uniquePhone } from '../auth/support';
import { createTestDatabase, databaseKind } from '../support/server';

const APP = 'app.test';
let a: RunningServer;
let b: RunningServer;
let drop: () => Promise<void>;

describe.skipIf(databaseKind() === 'pglite')('auth state shared by two servers', () => {
  beforeAll(async () => {
    const db = await createTestDatabase();
    if (!db) throw new Error('no PostgreSQL');
    drop = db.drop;
    const options: StartServerOptions = {
      port: 0,
      databaseUrl: db.url,
      auth: {
        rateLimits: false,
        siteUrl: `http://${APP}`,
        redirectUrls: [`http://${APP}/**`],
        emulateProviders: true,
        external: { github: {} },
        sms: { enabled: true, autoconfirm: false },
      },
    };
    [a, b] = await Promise.all([startServer(options), startServer(options)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await drop?.();
  });

  it("lists on one server the mails and texts the other sent (either server's outbox is the same)", async () => {
    const email = uniqueEmail('replica');
    const sent = await api(a, '/otp', { method: 'POST', json: { email, create_user: true } });
    expect(sent.status).toBe(200);
    const [mail] = await mailsTo(b, email);
    expect(mail).toMatchObject({ to: email, type: 'magiclink' });
    expect(mail?.otp).toMatch(/^\d{6}$/);
    const phone = uniquePhone();
    const texted = await api(b, '/otp', { method: 'POST', json: { phone } });
    expect(texted.status).toBe(200);
    const [sms] = await smsTo(a, phone);
    expect(sms?.otp).toMatch(/^\d{6}$/);
    // The code read through B signs in through A.
    const verified = await api(a, '/verify', {
      method: 'POST',
      json: { type: 'sms', phone, token: sms?.otp },
    });
    expect(verified.status).toBe(200);
  });

  it('finishes on one server a sign-in with the emulated provider begun on the other', async () => {
    const start = await api(
      a,
      `/authorize?provider=github&redirect_to=${encodeURIComponent(`http://${APP}/done`)}`,
    );
    const page = new URL(start.headers.get('location') ?? '');
    const email = uniqueEmail('emu-replica');
    const form = await fetch(`${a.url}/auth/v1/emulator`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        state: page.searchParams.get('state') ?? '',
        provider: 'github',
        email,
        name: 'Grace',
        email_verified: 'true',
      }),
    });
    expect(form.status).toBe(303);
    // The provider's redirect lands on the other server.
    const callback = new URL(form.headers.get('location') ?? '');
    const onB = `${b.url}${callback.pathname}${callback.search}`;
    const token = fragmentOf(await followToApp(onB, APP)).get('access_token') ?? '';
    const user = (await (await api(a, '/user', { token })).json()) as { email: string };
    expect(user.email).toBe(email);
    // A code is good once, whichever server sees it again.
    const again = await fetch(`${a.url}${callback.pathname}${callback.search}`, {
      redirect: 'manual',
    });
    expect(
      fragmentOf(new URL(again.headers.get('location') ?? 'http://x/')).get('access_token'),
    ).toBeNull();
  });
});
