/**
 * The two sides of the parity test: supabase-js 2.109.0 ("theirs", the oracle) and this SDK
 * ("ours"), each created the same way against the same real server, sending through a
 * recording fetch and a recording WebSocket. Each side has its own user and its own names
 * (tagged `zoursz` / `ztheirsz`, which the comparison maps to one placeholder), so the two
 * runs of a scenario never see each other's rows, files or channels.
 */
import type { RunningServer } from '@app/backend-server';
import { createClient as createOfficial } from '@supabase/supabase-js';
import { createClient as createOurs } from '../../src/index';
import type { WebSocketConstructor } from '../../src/realtime/client';
import { type DevMail, lastMail, lastSms } from '../support/server';
import { recordingWebSocket, type WebSocketRecorder } from '../support/ws-record';
import { recorder, type WireRequest } from './wire';

// biome-ignore lint/suspicious/noExplicitAny: scenarios drive both untyped clients alike
export type Any = any;

export type Side = 'theirs' | 'ours';

/** What a scenario knows about its side. */
export interface Ctx {
  side: Side;
  /** `zoursz` or `ztheirsz`: goes into every name a scenario makes. */
  tag: string;
  server: RunningServer;
  /** The side's user (created before the run), signed in unless the scenario says not. */
  user: { id: string; email: string; password: string };
  /** A name of this side: `${name}-${tag}`. */
  u(name: string): string;
  /** An email address of this side. */
  email(name: string): string;
  /** The newest mail to `to` in the server's outbox. */
  mail(to: string): Promise<DevMail>;
  /** The newest SMS code sent to `phone`. */
  sms(phone: string): Promise<string>;
  /** A phone number of this side. */
  phone(n: number): string;
  /** A query as the database superuser (setup only). */
  sql(query: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  /** Waits until `fn` returns something other than undefined (event-driven state, polled). */
  until<T>(fn: () => T | undefined | false, ms?: number): Promise<T>;
}

/** How a scenario's client is made. */
export interface ClientSetup {
  /** The key the client is created with; default anon (the legacy JWT key). */
  key?: 'anon' | 'service' | 'publishable' | 'secret';
  /** Signed in as the side's user before the scenario; default true with the anon key. */
  signedIn?: boolean;
  flowType?: 'implicit' | 'pkce';
}

export const PASSWORD = 'parity-password-1';

export function context(side: Side, server: RunningServer, user: Ctx['user']): Ctx {
  const tag = side === 'ours' ? 'zoursz' : 'ztheirsz';
  return {
    side,
    tag,
    server,
    user,
    u: (name) => `${name}-${tag}`,
    email: (name) => `${name}-${tag}@example.com`,
    mail: (to) => lastMail(server, to),
    sms: (phone) => lastSms(server, phone),
    phone: (n) => `1555${side === 'ours' ? 1 : 2}${String(n).padStart(6, '0')}`,
    sql: async (query, params = []) =>
      (await server.db.query(query, params)).rows as Array<Record<string, unknown>>,
    until: async (fn, ms = 10_000) => {
      const start = Date.now();
      for (;;) {
        const v = fn();
        if (v !== undefined && v !== false) return v as never;
        if (Date.now() - start > ms) throw new Error(`condition not met within ${ms} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

/** One side's client with its recorders. */
export interface Made {
  client: Any;
  http: WireRequest[];
  ws: WebSocketRecorder;
  close(): Promise<void>;
}

export function makeClient(ctx: Ctx, setup: ClientSetup): Made {
  const rec = recorder();
  const ws = recordingWebSocket();
  const keys = {
    anon: ctx.server.anonKey,
    service: ctx.server.serviceRoleKey,
    publishable: ctx.server.publishableKey,
    secret: ctx.server.secretKey,
  };
  const key = keys[setup.key ?? 'anon'];
  const auth = {
    persistSession: false,
    autoRefreshToken: false,
    detectSessionInUrl: false,
    ...(setup.flowType ? { flowType: setup.flowType } : {}),
  };
  const client: Any =
    ctx.side === 'theirs'
      ? createOfficial(ctx.server.url, key, {
          global: { fetch: rec.fetch as typeof fetch },
          auth,
          realtime: { transport: ws.WebSocket as never },
        })
      : createOurs(ctx.server.url, key, {
          global: { fetch: rec.fetch },
          auth,
          realtime: { transport: ws.WebSocket as unknown as WebSocketConstructor },
        });
  return {
    client,
    http: rec.log,
    ws,
    async close() {
      await client.removeAllChannels();
      client.realtime.disconnect();
      if (ctx.side === 'ours') client.auth.dispose();
      else await client.auth.stopAutoRefresh();
    },
  };
}

/** Creates the side's user (confirmed) through the admin API. */
export async function createUser(server: RunningServer, email: string): Promise<Ctx['user']> {
  const res = await fetch(`${server.url}/auth/v1/admin/users`, {
    method: 'POST',
    headers: {
      apikey: server.serviceRoleKey,
      authorization: `Bearer ${server.serviceRoleKey}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ email, password: PASSWORD, email_confirm: true }),
  });
  const body = (await res.json()) as { id: string };
  if (!res.ok) throw new Error(`cannot create ${email}: ${JSON.stringify(body)}`);
  return { id: body.id, email, password: PASSWORD };
}
