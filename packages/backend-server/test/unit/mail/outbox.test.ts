import type { Server } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../../src/index';
import { Outbox } from '../../../src/mail/outbox';
import { authMail } from '../../../src/mail/templates';
import { startTestServer } from '../../support/server';
import { smtpSink } from '../../support/smtp-sink';

// The outbox keeps its mails in the server's database: one server for the file, its
// outbox table emptied before each test.
let server: RunningServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());
beforeEach(() => server.db.query('delete from _auth.mail_outbox'));

let sink: Server | null = null;
afterEach(() => {
  sink?.close();
  sink = null;
});

const mail = (to: string) =>
  authMail('magiclink', to, {
    link: 'http://127.0.0.1:54321/auth/v1/verify?token=abc',
    otp: '123456',
  });

describe('Outbox', () => {
  it('keeps mails newest first, filters by address (case-insensitive) and logs them', async () => {
    const lines: string[] = [];
    const outbox = new Outbox({ db: server.db, smtpUrl: null, log: (m) => lines.push(m) });
    await outbox.send(mail('a@example.com'));
    await outbox.send(mail('b@example.com'));
    await outbox.send(mail('A@example.com'));
    expect((await outbox.list()).map((m) => m.to)).toEqual([
      'A@example.com',
      'b@example.com',
      'a@example.com',
    ]);
    expect(await outbox.list('a@EXAMPLE.com')).toHaveLength(2);
    expect((await outbox.list())[0]).toMatchObject({
      type: 'magiclink',
      subject: 'Your Magic Link',
      otp: '123456',
      links: ['http://127.0.0.1:54321/auth/v1/verify?token=abc'],
    });
    expect(lines[0]).toContain('a@example.com');
    expect(lines[0]).toContain('123456');
    await outbox.clear();
    expect(await outbox.list()).toEqual([]);
  });

  it('relays every mail through SMTP when an SMTP URL is set', async () => {
    const smtp = await smtpSink();
    sink = smtp.server;
    const outbox = new Outbox({
      db: server.db,
      smtpUrl: `smtp://127.0.0.1:${smtp.port}`,
      log: () => {},
    });
    await outbox.send(mail('relay@example.com'));
    outbox.close();
    expect(smtp.received.some((l) => /^RCPT TO:<relay@example\.com>/i.test(l))).toBe(true);
    const data = smtp.received.find((l) => l.includes('Subject:')) ?? '';
    expect(data).toContain('Subject: Your Magic Link');
    expect(data).toContain('123456');
    expect(await outbox.list('relay@example.com')).toHaveLength(1);
  });

  it('keeps the mail in the outbox when the SMTP server cannot be reached', async () => {
    const lines: string[] = [];
    const outbox = new Outbox({
      db: server.db,
      smtpUrl: 'smtp://127.0.0.1:1',
      log: (m) => lines.push(m),
    });
    await outbox.send(mail('down@example.com'));
    outbox.close();
    expect(await outbox.list('down@example.com')).toHaveLength(1);
    expect(lines.some((l) => l.includes('not relayed'))).toBe(true);
  });
});
