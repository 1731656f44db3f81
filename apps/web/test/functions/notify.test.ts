/**
 * `functions/notify` delivers `mail_outbox` (see backend/SHARING.md, "Mail"): a signed-in
 * caller sends the mails they queued and nothing else, the service role sweeps everyone's,
 * every mail goes out once even when calls run at the same time, names are escaped, and a
 * mail that cannot be handed over is retried later, not in a loop.
 */
import type { Client } from '@app/backend-sdk';
import type { RunningServer } from '@app/backend-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compose, escapeHtml, type OutboxRow } from '../../backend/functions/notify/mails';
import { scheduleMailSweep } from '../../scripts/mail-sweep';
import { file, folder, memoryClient, newPerson, rpc, startDriveServer } from '../backend/support';

const SITE = 'http://app.test';
let server: RunningServer;

beforeAll(async () => {
  server = await startDriveServer({ functions: { env: { DRIVE_SITE_URL: SITE } } });
});
afterAll(() => server?.stop());

interface OutboxMail {
  to: string;
  subject: string;
  type: string;
  text: string;
  html: string;
  links: string[];
}

async function mailsTo(to: string): Promise<OutboxMail[]> {
  const res = await fetch(`${server.url}/_dev/mail?to=${encodeURIComponent(to)}`, {
    headers: { apikey: server.serviceRoleKey },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as OutboxMail[];
}

async function notify(as: Client | 'service' | 'anon') {
  if (as === 'service' || as === 'anon') {
    const key = as === 'service' ? server.serviceRoleKey : server.anonKey;
    const res = await fetch(`${server.url}/functions/v1/notify`, {
      method: 'POST',
      headers: { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{}',
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }
  const { data, error } = await as.functions.invoke('notify', { body: {} });
  if (error) throw error;
  return { status: 200, body: data as Record<string, unknown> };
}

const unsent = async (sender: string) =>
  (
    await server.db.query<{ to_email: string }>(
      'select to_email from public.mail_outbox where sender_id = $1 and sent_at is null order by to_email',
      [sender],
    )
  ).rows.map((r) => r.to_email);

async function named(name: string) {
  const person = await newPerson(server);
  await server.db.query('update public.profiles set display_name = $1 where id = $2', [
    name,
    person.uid,
  ]);
  return person;
}

const share = (c: Client, kind: 'file' | 'folder', id: string, email: string, role = 'viewer') =>
  rpc(c, 'share_with', { p_kind: kind, p_id: id, p_email: email, p_role: role });

describe('notify', () => {
  it('sends the caller’s queued mails once, even with two calls at once, and nobody else’s', async () => {
    const ana = await named('Ana <b>Lima</b>');
    const bo = await newPerson(server);
    const other = await named('Other');
    const plans = await folder(ana, 'Plans <script>alert(1)');
    const notes = await file(ana, 'notes & drafts.txt', null);
    const invitee = `invitee-${Date.now()}@example.com`;
    await share(ana, 'folder', plans.id, bo.email, 'editor');
    await share(ana, 'folder', plans.id, invitee);
    await share(ana, 'file', notes.id, bo.email);
    const theirs = await folder(other, 'Theirs');
    const otherInvitee = `other-${Date.now()}@example.com`;
    await share(other, 'folder', theirs.id, otherInvitee);

    const calls = await Promise.all([notify(ana), notify(ana)]);
    expect(calls.map((c) => c.body.failed)).toEqual([0, 0]);
    expect(calls.map((c) => c.body.sent as number).reduce((a, b) => a + b)).toBe(3);
    expect(await unsent(ana.uid)).toEqual([]);
    // Someone else's queued mail stays queued, and the caller learned nothing of it.
    expect(await unsent(other.uid)).toEqual([otherInvitee]);
    expect(await mailsTo(otherInvitee)).toEqual([]);
    expect(Object.keys(calls[0]?.body ?? {}).sort()).toEqual(['failed', 'sent']);

    const toBo = await mailsTo(bo.email);
    expect(toBo).toHaveLength(2);
    const folderMail = toBo.find((m) => m.links[0]?.endsWith(`/files/${plans.id}`));
    expect(folderMail).toMatchObject({
      type: 'app',
      subject: 'Ana <b>Lima</b> shared “Plans <script>alert(1)” with you',
      links: [`${SITE}/files/${plans.id}`],
    });
    expect(folderMail?.text).toContain('as Editor');
    expect(folderMail?.html).toContain('Plans &lt;script&gt;alert(1)');
    expect(folderMail?.html).toContain('Ana &lt;b&gt;Lima&lt;/b&gt;');
    expect(folderMail?.html).not.toMatch(/<script|<b>/);
    const fileMail = toBo.find((m) => m !== folderMail);
    expect(fileMail?.links).toEqual([`${SITE}/shared`]);
    expect(fileMail?.html).toContain('notes &amp; drafts.txt');

    const [invitation] = await mailsTo(invitee);
    const { rows } = await server.db.query<{ invite_token: string }>(
      'select invite_token from public.mail_outbox where to_email = $1',
      [invitee],
    );
    expect(invitation?.links).toEqual([`${SITE}/invite/${rows[0]?.invite_token}`]);
    expect(invitation?.text).toContain(`There is no Drive account for ${invitee} yet`);

    // Nothing goes twice.
    expect((await notify(ana)).body).toEqual({ sent: 0, failed: 0 });
    expect(await mailsTo(bo.email)).toHaveLength(2);
    expect(await mailsTo(invitee)).toHaveLength(1);
  });

  it('sends everyone’s unsent mails with the service-role key, each once under concurrent sweeps', async () => {
    const owners = await Promise.all([named('Cy'), named('Di')]);
    const to = owners.map((_, i) => `sweep-${i}-${Date.now()}@example.com`);
    for (const [i, owner] of owners.entries()) {
      const box = await folder(owner, `Box ${i}`);
      await share(owner, 'folder', box.id, to[i] as string);
    }
    const sweeps = await Promise.all([notify('service'), notify('service')]);
    expect(sweeps.map((s) => s.status)).toEqual([200, 200]);
    for (const address of to) expect(await mailsTo(address)).toHaveLength(1);
    for (const owner of owners) expect(await unsent(owner.uid)).toEqual([]);
    expect((await notify('service')).body).toEqual({ sent: 0, failed: 0 });
  });

  it('refuses callers who are not signed in, and sends nothing for them', async () => {
    const ana = await named('Eve');
    const box = await folder(ana, 'Quiet');
    const address = `quiet-${Date.now()}@example.com`;
    await share(ana, 'folder', box.id, address);
    expect(await notify('anon')).toEqual({
      status: 401,
      body: expect.objectContaining({ error: 'unauthorized' }),
    });
    const signedOut = await memoryClient(server).functions.invoke('notify', { body: {} });
    expect(signedOut.error).not.toBeNull();
    const forged = await fetch(`${server.url}/functions/v1/notify`, {
      method: 'POST',
      headers: { apikey: server.anonKey, authorization: 'Bearer not-a-token' },
    });
    expect(forged.status).toBe(401);
    await forged.body?.cancel();
    expect(await unsent(ana.uid)).toEqual([address]);
    expect(await mailsTo(address)).toEqual([]);
    // The claim and result rpcs are the service role's alone.
    const claim = await ana.rpc('claim_mail', { p_sender: ana.uid, p_limit: 50 });
    expect(claim.error?.code).toBe('42501');
    const result = await ana.rpc('mail_result', { p_ids: [], p_error: null });
    expect(result.error?.code).toBe('42501');
    expect(await unsent(ana.uid)).toEqual([address]);
  });

  it('keeps a mail the endpoint refused, records why, and does not retry it before its back-off', async () => {
    const ana = await named('Flo');
    const box = await folder(ana, 'Later');
    const address = `later-${Date.now()}@example.com`;
    await share(ana, 'folder', box.id, address);
    // The outbox refuses a recipient it cannot parse; here the row's address is broken on purpose.
    await server.db.query(
      "update public.mail_outbox set to_email = 'not an address' where to_email = $1",
      [address],
    );
    expect((await notify(ana)).body).toEqual({ sent: 0, failed: 1 });
    const row = async () =>
      (
        await server.db.query<{
          attempts: number;
          last_error: string;
          later: boolean;
          sent: boolean;
        }>(
          `select attempts, last_error, next_attempt_at > now() + interval '4 minutes' as later,
                  sent_at is not null as sent
             from public.mail_outbox where sender_id = $1`,
          [ana.uid],
        )
      ).rows[0];
    expect(await row()).toEqual({
      attempts: 1,
      last_error: 'The mail endpoint answered 400',
      later: true,
      sent: false,
    });
    expect((await notify(ana)).body).toEqual({ sent: 0, failed: 0 });
    expect((await row())?.attempts).toBe(1);
    // Once due again (and fixed), it goes.
    await server.db.query(
      'update public.mail_outbox set next_attempt_at = now(), to_email = $1 where sender_id = $2',
      [address, ana.uid],
    );
    expect((await notify(ana)).body).toEqual({ sent: 1, failed: 0 });
    expect(await mailsTo(address)).toHaveLength(1);
    expect(await row()).toMatchObject({ attempts: 2, sent: true });
  });
});

describe('scheduleMailSweep (pnpm start)', () => {
  it('sends what nobody sent, now and then every interval', async () => {
    const owner = await named('Hal');
    const address = `swept-${Date.now()}@example.com`;
    await share(owner, 'folder', (await folder(owner, 'Swept')).id, address);
    const logged: string[] = [];
    const stop = scheduleMailSweep(server.url, server.serviceRoleKey, {
      everyMs: 200,
      log: (m) => logged.push(m),
    });
    try {
      await expect.poll(() => mailsTo(address), { timeout: 10_000 }).toHaveLength(1);
      await expect.poll(() => logged.join('\n')).toMatch(/^Mail sweep: \d+ sent, 0 not sent/);
      const late = `late-${Date.now()}@example.com`;
      await share(owner, 'folder', (await folder(owner, 'Late')).id, late);
      await expect.poll(() => mailsTo(late), { timeout: 10_000 }).toHaveLength(1);
    } finally {
      stop();
    }
    expect(await unsent(owner.uid)).toEqual([]);
  });
});

describe('invitation (what the invitation page shows)', () => {
  it('tells the holder of the token, signed out, who invited which address to what — and nothing else, nor once used', async () => {
    const ana = await named('Gil');
    const box = await folder(ana, 'Trip');
    const address = `trip-${Date.now()}@example.com`;
    await share(ana, 'folder', box.id, address, 'editor');
    const { rows } = await server.db.query<{ invite_token: string }>(
      'select invite_token from public.mail_outbox where to_email = $1',
      [address],
    );
    const token = rows[0]?.invite_token;
    const visitor = memoryClient(server);
    expect((await visitor.rpc('invitation', { p_token: token })).data).toEqual([
      {
        kind: 'folder',
        item_id: box.id,
        item_name: 'Trip',
        role: 'editor',
        email: address,
        sender_name: 'Gil',
      },
    ]);
    expect((await visitor.rpc('invitation', { p_token: 'f'.repeat(64) })).data).toEqual([]);
    const invitee = await newPerson(server, address);
    expect((await invitee.rpc('accept_invitation', { p_token: token })).error).toBeNull();
    expect((await visitor.rpc('invitation', { p_token: token })).data).toEqual([]);
  });
});

describe('notify: the mails', () => {
  const row = (over: Partial<OutboxRow>): OutboxRow => ({
    id: 'm',
    kind: 'shared',
    to_email: 'to@example.com',
    item_kind: 'folder',
    item_id: '5d4c2f7e-0000-4000-8000-000000000001',
    item_name: 'Plans',
    role: 'viewer',
    sender_name: 'Ana',
    sender_email: 'ana@example.com',
    invite_token: null,
    ...over,
  });

  it('escapes every name in the HTML and keeps the subject on one line', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;',
    );
    const mail = compose(SITE, row({ item_name: 'a\r\nBcc: x@y <img src=x onerror=alert(1)>' }));
    expect(mail.subject).toBe('Ana shared “a Bcc: x@y <img src=x onerror=alert(1)>” with you');
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('links an invitation to /invite/<token>, a folder to itself, a file to Shared with me, a transfer to My files', () => {
    expect(compose(SITE, row({ kind: 'invited', invite_token: 'ab12' })).link).toBe(
      `${SITE}/invite/ab12`,
    );
    expect(compose(`${SITE}/`, row({})).link).toBe(`${SITE}/files/${row({}).item_id}`);
    expect(compose(SITE, row({ item_kind: 'file' })).link).toBe(`${SITE}/shared`);
    const owner = compose(SITE, row({ kind: 'ownership', item_kind: 'file', role: 'owner' }));
    expect(owner.subject).toBe('Ana made you the owner of “Plans”');
    expect(owner.link).toBe(`${SITE}/files`);
    // Without a display name, the sender's address.
    expect(compose(SITE, row({ sender_name: '' })).subject).toBe(
      'ana@example.com shared “Plans” with you',
    );
  });
});
