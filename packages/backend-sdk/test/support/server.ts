/**
 * A real backend server for the SDK's integration tests: in-process, port 0, in-memory
 * PGlite, with the test schema (RLS) and test functions from `test/fixtures`.
 */
import { fileURLToPath } from 'node:url';
import { type RunningServer, startServer } from '@app/backend-server';

const fixtures = (path: string) => fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url));

/** Starts the server; stop it in afterAll. */
export function startSdkServer(
  auth: NonNullable<Parameters<typeof startServer>[0]>['auth'] = {},
): Promise<RunningServer> {
  return startServer({
    port: 0,
    migrationsDir: fixtures('migrations'),
    functionsDir: fixtures('functions'),
    rest: { schemas: ['public', 'extra'] },
    auth: { rateLimits: false, ...auth },
  });
}

/** The newest SMS code sent to `phone` (the server's dev outbox, `GET /_dev/sms`). */
export async function lastSms(server: RunningServer, phone: string): Promise<string> {
  const res = await fetch(`${server.url}/_dev/sms?to=${encodeURIComponent(phone)}`, {
    headers: { apikey: server.serviceRoleKey },
  });
  const [sms] = (await res.json()) as { otp: string }[];
  if (!sms) throw new Error(`no SMS to ${phone}`);
  return sms.otp;
}

/** A mail in the server's dev outbox. */
export interface DevMail {
  otp: string | null;
  links: string[];
  type: string;
}

/** The newest mail to `to` from the server's dev outbox (`GET /_dev/mail`). */
export async function lastMail(server: RunningServer, to: string): Promise<DevMail> {
  const res = await fetch(`${server.url}/_dev/mail?to=${encodeURIComponent(to)}`, {
    headers: { apikey: server.serviceRoleKey },
  });
  const [mail] = (await res.json()) as DevMail[];
  if (!mail) throw new Error(`no mail to ${to}`);
  return mail;
}

/** A unique email for a fresh test user. */
export const freshEmail = (tag = 'user'): string =>
  `${tag}-${crypto.randomUUID().slice(0, 8)}@example.com`;

const b64url = (data: string | Uint8Array) => Buffer.from(data).toString('base64url');

/** A user access token signed (HS256) with the server's secret, as auth would issue it. */
export async function userToken(
  server: RunningServer,
  sub: string = crypto.randomUUID(),
  lifetime = 3600,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = b64url(
    JSON.stringify({
      sub,
      role: 'authenticated',
      aud: 'authenticated',
      email: `${sub}@example.com`,
      session_id: crypto.randomUUID(),
      iat: now,
      exp: now + lifetime,
    }),
  );
  const key = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(server.jwtSecret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const signature = await crypto.subtle.sign(
    'HMAC',
    key,
    new TextEncoder().encode(`${header}.${payload}`),
  );
  return `${header}.${payload}.${b64url(new Uint8Array(signature))}`;
}
