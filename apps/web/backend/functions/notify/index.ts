/**
 * `notify`: delivers the mails of sharing (`mail_outbox`: invitations, "shared with you",
 * ownership transfers; see ../../SHARING.md). The database queues them; this sends them.
 *
 *   POST /functions/v1/notify {}   signed in: the unsent mails the caller queued (Drive calls
 *                                  it after each share and transfer)
 *                                  with the service-role key: every unsent mail (the sweep)
 *   200 {"sent": n, "failed": n}
 *   401 {error: "unauthorized"} · 500 {error: "misconfigured"} · 502 {error: "unavailable"}
 *
 * Who the caller is comes from the auth server (`/auth/v1/user` with the caller's token); the
 * mails are claimed with the service role through `claim_mail(p_sender)`, which takes each
 * due row once even when calls run at the same time (`for update skip locked`), and records
 * the outcome with `mail_result`. A user can only make their own queued mails go out, and no
 * caller ever reads a mail: the answer is counts.
 *
 * Env: DRIVE_SITE_URL (required: the app's address, where links lead); DRIVE_MAIL_URL (an
 * HTTP endpoint taking `{from, to, subject, text, html}` JSON with `Authorization: Bearer
 * DRIVE_MAIL_KEY`, e.g. a mail provider's send API; default the local server's outbox,
 * `<SUPABASE_URL>/_dev/mail`, with the service-role key); DRIVE_MAIL_FROM (the sender).
 *
 * Written for the hosted runtime (`Deno.serve`, `Deno.env`, `fetch`); the local server runs it
 * unchanged.
 */

import { http, Upstream } from '../_shared/http.ts';
import { compose, type OutboxRow } from './mails.ts';

declare const Deno: {
  serve(handler: (req: Request) => Response | Promise<Response>): unknown;
  env: { get(name: string): string | undefined };
};

const BATCH = 50;
/** At most this many batches per call (the sweep): the rest go on the next call. */
const ROUNDS = 20;

const { cors, json } = http('POST, OPTIONS');

interface Settings {
  url: string;
  serviceKey: string;
  site: string;
  mailUrl: string;
  mailKey: string;
  from: string;
}

function settings(): Settings | null {
  const url = Deno.env.get('SUPABASE_URL');
  const serviceKey = Deno.env.get('SUPABASE_SERVICE_ROLE_KEY');
  const site = Deno.env.get('DRIVE_SITE_URL');
  if (!url || !serviceKey || !site || !/^https?:\/\//.test(site)) return null;
  const mailUrl = Deno.env.get('DRIVE_MAIL_URL');
  return {
    url,
    serviceKey,
    site,
    mailUrl: mailUrl || `${url}/_dev/mail`,
    mailKey: mailUrl ? (Deno.env.get('DRIVE_MAIL_KEY') ?? '') : serviceKey,
    from: Deno.env.get('DRIVE_MAIL_FROM') || 'Drive <noreply@localhost>',
  };
}

/** The signed-in caller's id, or null when the token is not a user's session. */
async function callerId(s: Settings, req: Request, authorization: string): Promise<string | null> {
  const apikey = req.headers.get('apikey') ?? Deno.env.get('SUPABASE_ANON_KEY') ?? s.serviceKey;
  const res = await fetch(`${s.url}/auth/v1/user`, { headers: { apikey, authorization } });
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    return null;
  }
  if (!res.ok) throw new Upstream(res.status);
  const user = (await res.json()) as { id?: unknown };
  return typeof user.id === 'string' ? user.id : null;
}

async function rpc<T>(s: Settings, name: string, args: unknown): Promise<T> {
  const res = await fetch(`${s.url}/rest/v1/rpc/${name}`, {
    method: 'POST',
    headers: {
      apikey: s.serviceKey,
      authorization: `Bearer ${s.serviceKey}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(args),
  });
  if (!res.ok) throw new Upstream(res.status);
  return (await res.json()) as T;
}

/** Hands one mail to the mail endpoint; the reason when it was not taken. */
async function send(s: Settings, row: OutboxRow): Promise<string | null> {
  const mail = compose(s.site, row);
  try {
    const res = await fetch(s.mailUrl, {
      method: 'POST',
      headers: {
        ...(s.mailKey ? { authorization: `Bearer ${s.mailKey}` } : {}),
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        from: s.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
      }),
    });
    await res.body?.cancel();
    return res.ok ? null : `The mail endpoint answered ${res.status}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

Deno.serve(async (req) => {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: cors });
  if (req.method !== 'POST') {
    return json(405, { error: 'method_not_allowed', message: 'Use POST.' });
  }
  const authorization = req.headers.get('authorization');
  if (!authorization?.startsWith('Bearer ')) {
    return json(401, { error: 'unauthorized', message: 'Sign in to send mails.' });
  }
  const s = settings();
  if (!s) return json(500, { error: 'misconfigured', message: 'Mail is unavailable.' });
  await req.body?.cancel();

  try {
    const token = authorization.slice('Bearer '.length);
    const sweep = token === s.serviceKey;
    const sender = sweep ? null : await callerId(s, req, authorization);
    if (!sweep && !sender) {
      return json(401, { error: 'unauthorized', message: 'Sign in to send mails.' });
    }
    let sent = 0;
    let failed = 0;
    for (let round = 0; round < (sweep ? ROUNDS : 2); round += 1) {
      const rows = await rpc<OutboxRow[]>(s, 'claim_mail', { p_sender: sender, p_limit: BATCH });
      for (const row of rows) {
        // Each outcome is recorded at once: a mail handed over is never sent again.
        const problem = await send(s, row);
        await rpc(s, 'mail_result', { p_ids: [row.id], p_error: problem });
        if (problem === null) sent += 1;
        else {
          failed += 1;
          console.error(`notify: mail ${row.id} not sent: ${problem}`);
        }
      }
      if (rows.length < BATCH) break;
    }
    return json(200, { sent, failed });
  } catch (error) {
    console.error('notify:', error instanceof Error ? error.message : error);
    return json(502, { error: 'unavailable', message: 'Mails could not be sent. Try again.' });
  }
});
