import { randomBytes } from 'node:crypto';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { RunningServer } from '../../src/server';

/** A fresh address, so tests sharing one server never meet. */
export const uniqueEmail = (tag = 'user') => `${tag}-${randomBytes(5).toString('hex')}@example.com`;

// Node 20 has no global WebSocket; supabase-js needs a transport even when realtime is unused.
const REALTIME = { transport: WebSocket as never };

/** An official supabase-js client with an in-memory session (no persistence, no timers). */
export function client(
  server: RunningServer,
  options: {
    key?: string;
    flowType?: 'implicit' | 'pkce';
    autoRefreshToken?: boolean;
    /** Turn on supabase-js's passkey API (`auth.experimental.passkey`). */
    passkey?: boolean;
  } = {},
): SupabaseClient {
  const store = new Map<string, string>();
  return createClient(server.url, options.key ?? server.anonKey, {
    realtime: REALTIME,
    auth: {
      autoRefreshToken: options.autoRefreshToken ?? false,
      persistSession: true,
      detectSessionInUrl: false,
      flowType: options.flowType ?? 'implicit',
      ...(options.passkey ? { experimental: { passkey: true } } : {}),
      storage: {
        getItem: (k: string) => store.get(k) ?? null,
        setItem: (k: string, v: string) => void store.set(k, v),
        removeItem: (k: string) => void store.delete(k),
      },
    },
  });
}

/** supabase-js with the service-role key, for `auth.admin`. */
export const adminClient = (server: RunningServer, options: { passkey?: boolean } = {}) =>
  createClient(server.url, server.serviceRoleKey, {
    realtime: REALTIME,
    auth: {
      autoRefreshToken: false,
      persistSession: false,
      ...(options.passkey ? { experimental: { passkey: true } } : {}),
    },
  });

/** Raw fetch under /auth/v1 with the anon key and, unless `legacy`, the 2024-01-01 API version. */
export function api(
  server: RunningServer,
  path: string,
  init: RequestInit & { json?: unknown; token?: string; legacy?: boolean; key?: string } = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has('apikey')) headers.set('apikey', init.key ?? server.anonKey);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  if (!init.legacy) headers.set('x-supabase-api-version', '2024-01-01');
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  return fetch(`${server.url}/auth/v1${path}`, {
    ...init,
    headers,
    body,
    redirect: 'manual',
  });
}

/** A mail of the dev outbox. */
export interface OutboxMail {
  to: string;
  subject: string;
  type: string;
  text: string;
  html: string;
  links: string[];
  otp: string | null;
}

/** The outbox for one address, newest first. */
export async function mailsTo(server: RunningServer, to: string): Promise<OutboxMail[]> {
  const res = await fetch(`${server.url}/_dev/mail?to=${encodeURIComponent(to)}`, {
    headers: { apikey: server.serviceRoleKey },
  });
  if (res.status !== 200) throw new Error(`outbox answered ${res.status}`);
  return (await res.json()) as OutboxMail[];
}

/** The newest mail to an address (fails the test when there is none). */
export async function lastMail(server: RunningServer, to: string): Promise<OutboxMail> {
  const [mail] = await mailsTo(server, to);
  if (!mail) throw new Error(`no mail to ${to}`);
  return mail;
}

/** Decodes a JWT's payload (no verification: the tests check what the server signed). */
export function claimsOf(jwt: string): Record<string, unknown> {
  const part = jwt.split('.')[1] ?? '';
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** Signs up (autoconfirm on) through raw fetch and returns the session body. */
export async function signUp(
  server: RunningServer,
  email = uniqueEmail(),
  password = 'secret-password',
): Promise<{ access_token: string; refresh_token: string; user: { id: string } }> {
  const res = await api(server, '/signup', { method: 'POST', json: { email, password } });
  if (res.status !== 200) throw new Error(`signup answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as {
    access_token: string;
    refresh_token: string;
    user: { id: string };
  };
}

/** A text message of the dev SMS outbox. */
export interface OutboxSms {
  to: string;
  body: string;
  channel: 'sms' | 'whatsapp';
  type: 'confirmation' | 'phone_change' | 'reauthentication' | 'mfa';
  otp: string;
  provider: 'outbox' | 'twilio';
  message_id: string | null;
}

/** The SMS outbox for one number, newest first. */
export async function smsTo(server: RunningServer, to: string): Promise<OutboxSms[]> {
  const res = await fetch(`${server.url}/_dev/sms?to=${encodeURIComponent(to)}`, {
    headers: { apikey: server.serviceRoleKey },
  });
  if (res.status !== 200) throw new Error(`sms outbox answered ${res.status}`);
  return (await res.json()) as OutboxSms[];
}

/** The newest SMS to a number (fails the test when there is none). */
export async function lastSms(server: RunningServer, to: string): Promise<OutboxSms> {
  const [sms] = await smsTo(server, to);
  if (!sms) throw new Error(`no SMS to ${to}`);
  return sms;
}

let phoneCounter = 0;
/** A fresh E.164 number (digits only) for one test: +1 555 then 7 digits. */
export const uniquePhone = () =>
  `1555${String((process.pid * 1000 + Date.now() + phoneCounter++) % 10_000_000).padStart(7, '0')}`;
