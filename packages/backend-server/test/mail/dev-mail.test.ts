/**
 * `POST /_dev/mail`: a project's function hands a mail to the local server's outbox (the same
 * one auth mails and the console's Mail screen use), relayed through SMTP when configured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { startTestServer } from '../support/server';
import { smtpSink } from '../support/smtp-sink';

let server: RunningServer;
let sink: Awaited<ReturnType<typeof smtpSink>>;

beforeAll(async () => {
  sink = await smtpSink();
  server = await startTestServer({
    auth: { rateLimits: false, smtpUrl: `smtp://127.0.0.1:${sink.port}` },
    log: false,
  });
});
afterAll(async () => {
  await server?.stop();
  sink?.server.close();
});

const post = (body: unknown, key = server.serviceRoleKey) =>
  fetch(`${server.url}/_dev/mail`, {
    method: 'POST',
    headers: { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const outbox = async (to: string) =>
  (await (
    await fetch(`${server.url}/_dev/mail?to=${encodeURIComponent(to)}`, {
      headers: { apikey: server.serviceRoleKey },
    })
  ).json()) as Array<Record<string, unknown>>;

describe('POST /_dev/mail', () => {
  it('records the mail in the outbox (links from the text) and relays it through SMTP', async () => {
    const res = await post({
      from: 'Drive <drive@example.com>',
      to: 'ana@example.com',
      subject: 'Bo shared “Plans” with you',
      text: 'Open it: http://127.0.0.1:5173/files/abc\n',
      html: '<p><a href="http://127.0.0.1:5173/files/abc">Open</a></p>',
    });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ queued: true });
    const [mail] = await outbox('ana@example.com');
    expect(mail).toMatchObject({
      to: 'ana@example.com',
      type: 'app',
      subject: 'Bo shared “Plans” with you',
      links: ['http://127.0.0.1:5173/files/abc'],
      otp: null,
      html: '<p><a href="http://127.0.0.1:5173/files/abc">Open</a></p>',
    });
    expect(sink.received.some((line) => line.includes('ana@example.com'))).toBe(true);
    expect(sink.received.some((m) => m.includes('http://127.0.0.1:5173/files/abc'))).toBe(true);
  });

  it('takes only the service-role key', async () => {
    const res = await post({ to: 'x@example.com', subject: 's', text: 't' }, server.anonKey);
    expect(res.status).toBe(401);
    expect(await outbox('x@example.com')).toEqual([]);
  });

  it('refuses bad bodies with 400 and a message, and records nothing', async () => {
    for (const body of [
      'not json',
      [],
      { subject: 's', text: 't' },
      { to: 'two@example.com, three@example.com', subject: 's', text: 't' },
      { to: 'bad@example.com', subject: '', text: 't' },
      { to: 'bad@example.com', subject: 'a\r\nBcc: x@example.com', text: 't' },
      { to: 'bad@example.com', subject: 's' },
      { to: 'bad@example.com', subject: 's', text: 't', html: 5 },
      { to: 'bad@example.com', subject: 's', text: 'x'.repeat(100_001) },
    ]) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(typeof ((await res.json()) as { message?: unknown }).message).toBe('string');
    }
    expect(await outbox('bad@example.com')).toEqual([]);
    expect(await outbox('two@example.com, three@example.com')).toEqual([]);
  });
});
