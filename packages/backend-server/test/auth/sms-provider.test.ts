import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { api, client, lastSms, smsTo, uniquePhone } from './support';

/** What the SMS API received. */
interface Received {
  method: string;
  path: string;
  authorization: string;
  contentType: string;
  form: Record<string, string>;
}

/**
 * A small Twilio-compatible Messages API on a free port: records each request and answers
 * with the next queued reply (default: 201 queued).
 */
async function smsApi() {
  const received: Received[] = [];
  const replies: { status: number; body: unknown }[] = [];
  let count = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: req.headers.authorization ?? '',
        contentType: req.headers['content-type'] ?? '',
        form: Object.fromEntries(new URLSearchParams(text)),
      });
      count += 1;
      const reply = replies.shift() ?? {
        status: 201,
        body: { sid: `SM${count}`, status: 'queued' },
      };
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    replies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let api2: Awaited<ReturnType<typeof smsApi>>;
let server: RunningServer;

beforeAll(async () => {
  api2 = await smsApi();
  server = await startTestServer({
    auth: {
      rateLimits: false,
      sms: {
        enabled: true,
        autoconfirm: false,
        provider: 'twilio',
        template: 'Your Drive code: {{ .Code }}',
        twilio: {
          accountSid: 'AC0123',
          authToken: 'token-secret',
          messageServiceSid: 'MG4567',
          baseUrl: api2.url,
        },
      },
    },
  });
});
afterAll(async () => {
  await server?.stop();
  await api2?.close();
});

describe(`SMS through a Twilio-compatible API (${databaseKind()})`, () => {
  it('posts the message with basic auth, the number with +, the sender and the text', async () => {
    const phone = uniquePhone();
    const before = api2.received.length;
    const { error } = await client(server).auth.signUp({ phone, password: 'phone-password' });
    expect(error).toBeNull();
    expect(api2.received.length).toBe(before + 1);
    const request = api2.received.at(-1);
    const sms = await lastSms(server, phone);
    expect(request).toEqual({
      method: 'POST',
      path: '/2010-04-01/Accounts/AC0123/Messages.json',
      authorization: `Basic ${Buffer.from('AC0123:token-secret').toString('base64')}`,
      contentType: 'application/x-www-form-urlencoded',
      form: {
        To: `+${phone}`,
        Channel: 'sms',
        From: 'MG4567',
        Body: `Your Drive code: ${sms.otp}`,
      },
    });
    expect(sms).toMatchObject({ provider: 'twilio', message_id: `SM${api2.received.length}` });
    const verified = await client(server).auth.verifyOtp({ phone, token: sms.otp, type: 'sms' });
    expect(verified.error).toBeNull();

    // A confirmed user's sign-in code reports the provider's message id.
    await server.db.query(
      `update auth.users set confirmation_sent_at = now() - interval '61 seconds' where phone = $1`,
      [phone],
    );
    const res = await api(server, '/otp', { method: 'POST', json: { phone } });
    expect(await res.json()).toEqual({ message_id: `SM${api2.received.length}` });
  });

  it('sends WhatsApp messages to whatsapp:+number', async () => {
    const phone = uniquePhone();
    const { error } = await client(server).auth.signInWithOtp({
      phone,
      options: { channel: 'whatsapp' },
    });
    expect(error).toBeNull();
    expect(api2.received.at(-1)?.form).toMatchObject({
      To: `whatsapp:+${phone}`,
      Channel: 'whatsapp',
      From: 'MG4567',
    });
    expect((await lastSms(server, phone)).channel).toBe('whatsapp');
  });

  it('reports a refusal of the provider as sms_send_failed and keeps nothing', async () => {
    const phone = uniquePhone();
    api2.replies.push({
      status: 400,
      body: {
        code: 21211,
        message: "The 'To' number is not a valid phone number.",
        more_info: 'https://example.com/errors/21211',
        status: 400,
      },
    });
    const refused = await client(server).auth.signUp({ phone, password: 'phone-password' });
    expect(refused.error?.status).toBe(422);
    expect(refused.error?.code).toBe('sms_send_failed');
    expect(refused.error?.message).toBe(
      "Error sending confirmation OTP to provider: The 'To' number is not a valid phone number. More information: https://example.com/errors/21211",
    );
    const { rows } = await server.db.query('select 1 from auth.users where phone = $1', [phone]);
    expect(rows).toEqual([]);
    expect(await smsTo(server, phone)).toEqual([]);

    api2.replies.push({
      status: 201,
      body: {
        sid: 'SMfailed',
        status: 'failed',
        error_code: '30003',
        error_message: 'Unreachable',
      },
    });
    const failed = await client(server).auth.signInWithOtp({ phone });
    expect(failed.error?.code).toBe('sms_send_failed');
    expect(failed.error?.message).toContain('twilio error: Unreachable 30003 for message SMfailed');
  });

  it('shows the provider in the settings', async () => {
    const res = await api(server, '/settings');
    expect(await res.json()).toMatchObject({ sms_provider: 'twilio', external: { phone: true } });
  });
});

describe(`no SMS provider (${databaseKind()})`, () => {
  let none: RunningServer;
  beforeAll(async () => {
    none = await startTestServer({
      auth: { rateLimits: false, sms: { enabled: true, autoconfirm: true, provider: 'none' } },
    });
  });
  afterAll(() => none?.stop());

  it('signs up by phone and password without a code, but cannot send codes', async () => {
    const supabase = client(none);
    const phone = uniquePhone();
    const signUp = await supabase.auth.signUp({ phone, password: 'phone-password' });
    expect(signUp.error).toBeNull();
    expect(signUp.data.session?.user).toMatchObject({
      phone,
      app_metadata: { provider: 'phone', providers: ['phone'] },
    });
    expect(signUp.data.user?.phone_confirmed_at).toEqual(expect.any(String));
    const again = await client(none).auth.signUp({ phone, password: 'phone-password' });
    expect(again.error?.code).toBe('user_already_exists');

    const otp = await supabase.auth.signInWithOtp({ phone: uniquePhone() });
    expect(otp.error?.status).toBe(500);
    const raw = await api(none, '/otp', { method: 'POST', json: { phone: uniquePhone() } });
    expect(raw.status).toBe(500);
    expect(await raw.json()).toEqual({
      code: 'unexpected_failure',
      message: 'Unable to get SMS provider',
    });
    const whatsapp = await supabase.auth.signInWithOtp({
      phone: uniquePhone(),
      options: { channel: 'whatsapp' },
    });
    expect(whatsapp.error?.status).toBe(400);
    expect(whatsapp.error?.message).toMatch(/^Invalid channel, supported values are 'sms' or/);
  });
});
