import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { api, claimsOf, client, mailsTo, uniqueEmail, uniquePhone } from './support';

// Hooks as HTTP endpoints: a small server that checks the Standard Webhooks signature with
// the secret it shares with the backend, records what it got and answers by path.
const newSecret = () => `v1,whsec_${randomBytes(32).toString('base64')}`;
const SECRET = newSecret();
const OLD_SECRET = newSecret();
const WRONG_SECRET = newSecret();

interface Call {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, never>;
}

const calls: Call[] = [];

/** Does one of the request's signatures match `secret` (Standard Webhooks, v1 = HMAC-SHA256)? */
function signedWith(secret: string, headers: IncomingMessage['headers'], raw: string): boolean {
  const key = Buffer.from(secret.slice('v1,whsec_'.length), 'base64');
  const id = String(headers['webhook-id'] ?? '');
  const ts = String(headers['webhook-timestamp'] ?? '');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${raw}`).digest('base64');
  const given = String(headers['webhook-signature'] ?? '')
    .split(' ')
    .map((s) => s.replace(/,$/, ''));
  return given.includes(`v1,${expected}`);
}

let endpoint: Server;
let hooksUrl = '';
let closedUrl = '';
let server: RunningServer;

beforeAll(async () => {
  endpoint = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', async () => {
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (!signedWith(SECRET, req.headers, raw)) return json(401, { message: 'bad signature' });
      const body = JSON.parse(raw) as Record<string, never>;
      calls.push({ path: req.url ?? '', headers: req.headers, body });
      // Never answers: the backend gives up after its time limit.
      if (req.url === '/slow') return;
      const email = String((body.user as { email?: string } | undefined)?.email ?? '');
      if (req.url === '/before-user-created') {
        // The hook reads the database while the sign-up waits (as an edge function would):
        // the backend runs it outside the transaction that creates the user.
        const { rows } = await server.db.query<{ n: number }>(
          'select count(*)::int as n from auth.users where email = $1',
          [email],
        );
        if (rows[0]?.n !== 0) return json(409, { message: 'already there' });
        if (email.endsWith('@blocked.test')) {
          return json(200, { error: { http_code: 400, message: 'Not from that domain' } });
        }
        if (email.startsWith('crash-')) return json(500, { message: 'boom' });
        if (email.startsWith('text-')) {
          res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
          return;
        }
        if (email.startsWith('empty-')) {
          res.writeHead(200, { 'content-type': 'application/json' }).end();
          return;
        }
        res.writeHead(204).end();
        return;
      }
      if (req.url === '/access-token') {
        const claims = (body.claims ?? {}) as Record<string, unknown>;
        return json(200, { claims: { ...claims, plan: 'pro' } });
      }
      return json(200, {});
    });
  });
  await new Promise<void>((done) => endpoint.listen(0, '127.0.0.1', done));
  hooksUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;
  // A port nothing listens on.
  const closed = createServer();
  await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
  closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/password`;
  await new Promise<void>((done) => closed.close(() => done()));

  server = await startTestServer({
    auth: {
      autoconfirm: false,
      sms: { enabled: true, autoconfirm: false },
      hooks: {
        customAccessToken: { uri: `${hooksUrl}/access-token`, secrets: [SECRET] },
        // Two secrets (a rotation): one signature each, the endpoint knows the new one.
        sendEmail: { uri: `${hooksUrl}/send-email`, secrets: `${OLD_SECRET}|${SECRET}` },
        beforeUserCreated: { uri: `${hooksUrl}/before-user-created`, secrets: SECRET },
        sendSms: { uri: `${hooksUrl}/send-sms`, secrets: WRONG_SECRET },
        passwordVerificationAttempt: { uri: closedUrl, secrets: SECRET },
        mfaVerificationAttempt: { uri: `${hooksUrl}/slow`, secrets: SECRET },
      },
    },
  });
});
afterAll(async () => {
  await server?.stop();
  endpoint?.closeAllConnections();
  await new Promise<void>((done) => (endpoint ? endpoint.close(() => done()) : done()));
});

const callsFor = (path: string, text: string) =>
  calls.filter((c) => c.path === path && JSON.stringify(c.body).includes(text));

/** Signs up and confirms with the code the send-email endpoint got; the session. */
async function confirmedUser(email = uniqueEmail('http')) {
  const supabase = client(server);
  const { error } = await supabase.auth.signUp({ email, password: 'hook-password' });
  expect(error).toBeNull();
  const [mail] = callsFor('/send-email', email);
  const token = String((mail?.body.email_data as { token?: string } | undefined)?.token);
  const verified = await supabase.auth.verifyOtp({ email, token, type: 'email' });
  expect(verified.error).toBeNull();
  return { email, session: verified.data.session };
}

describe(`auth hooks as HTTP endpoints (${databaseKind()})`, () => {
  it('send-email POSTs a signed payload instead of mailing; custom access token adds claims', async () => {
    const { email, session } = await confirmedUser();
    const [mail] = callsFor('/send-email', email);
    expect(mail?.headers['content-type']).toBe('application/json');
    expect(mail?.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(String(mail?.headers['webhook-signature']).split(', ')).toHaveLength(2);
    expect(mail?.body).toMatchObject({
      metadata: { name: 'send-email' },
      user: { email },
      email_data: { email_action_type: 'signup', site_url: `${server.url}/auth/v1` },
    });
    expect(await mailsTo(server, email)).toEqual([]);
    // The access token went through the custom access token endpoint.
    expect(claimsOf(session?.access_token ?? '')).toMatchObject({ email, plan: 'pro' });
    const [tokenCall] = callsFor('/access-token', email);
    expect(tokenCall?.body).toMatchObject({
      metadata: { name: 'customize-access-token' },
      authentication_method: 'otp',
    });
  });

  it('before-user-created: 204 lets the sign-up through, an error answer rejects it', async () => {
    const email = uniqueEmail('allowed');
    await confirmedUser(email);
    expect(callsFor('/before-user-created', email)).toHaveLength(1);

    const blocked = `x-${randomBytes(4).toString('hex')}@blocked.test`;
    const { data, error } = await client(server).auth.signUp({
      email: blocked,
      password: 'hook-password',
    });
    expect(data.user).toBeNull();
    expect(error?.status).toBe(400);
    expect(error?.message).toBe('Not from that domain');
    const { rows } = await server.db.query('select 1 from auth.users where email = $1', [blocked]);
    expect(rows).toHaveLength(0);
  });

  it('an endpoint that fails answers with the GoTrue error, not a stack trace', async () => {
    const res = await api(server, '/signup', {
      method: 'POST',
      json: { email: `crash-${randomBytes(4).toString('hex')}@example.com`, password: 'pw-123456' },
    });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      code: 'unexpected_failure',
      message: 'Unexpected status code returned from hook: 500',
    });
    const signUp = (tag: string) =>
      client(server).auth.signUp({
        email: `${tag}-${randomBytes(4).toString('hex')}@example.com`,
        password: 'pw-123456',
      });
    const text = await signUp('text');
    expect(text.error?.status).toBe(400);
    expect(text.error?.code).toBe('hook_payload_invalid_content_type');
    expect(text.error?.message).toBe('Invalid JSON response. Received content-type: text/plain');
    const empty = await api(server, '/signup', {
      method: 'POST',
      json: { email: `empty-${randomBytes(4).toString('hex')}@example.com`, password: 'pw-123456' },
    });
    expect(empty.status).toBe(500);
    expect(await empty.json()).toMatchObject({ message: 'Error unmarshaling JSON output.' });
  });

  it('a signature made with another secret is refused by the endpoint (401 → 500)', async () => {
    const res = await api(server, '/otp', { method: 'POST', json: { phone: uniquePhone() } });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ message: 'Hook requires authorization token' });
  });

  it('an unreachable endpoint gives hook_timeout_after_retry after three attempts', async () => {
    const { email } = await confirmedUser();
    const { error } = await client(server).auth.signInWithPassword({
      email,
      password: 'hook-password',
    });
    expect(error?.status).toBe(422);
    expect(error?.code).toBe('hook_timeout_after_retry');
    expect(error?.message).toBe('Failed to reach hook after maximum retries');
  }, 30_000);

  it('an endpoint that does not answer in time gives hook_timeout', async () => {
    const { session } = await confirmedUser();
    const supabase = client(server);
    await supabase.auth.setSession({
      access_token: session?.access_token ?? '',
      refresh_token: session?.refresh_token ?? '',
    });
    const enrolled = await supabase.auth.mfa.enroll({ factorType: 'totp' });
    expect(enrolled.error).toBeNull();
    const { error } = await supabase.auth.mfa.challengeAndVerify({
      factorId: enrolled.data?.id ?? '',
      code: '000000',
    });
    expect(error?.status).toBe(422);
    expect(error?.code).toBe('hook_timeout');
    expect(error?.message).toBe('Failed to reach hook within maximum time of 5.000000 seconds');
    expect(callsFor('/slow', enrolled.data?.id ?? '')).toHaveLength(1);
  }, 30_000);
});
