import { randomBytes, randomUUID } from 'node:crypto';
import {
  createClient,
  REALTIME_SUBSCRIBE_STATES,
  type RealtimeChannel,
  type SupabaseClient,
} from '@supabase/supabase-js';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import type { RunningServer } from '../../src/server';

/** A unique channel name, so tests sharing one server never meet. */
export const uniqueTopic = (tag = 'room') => `${tag}-${randomBytes(5).toString('hex')}`;

/** A user's access token, as the auth service would issue it. */
export function userToken(
  server: Pick<RunningServer, 'jwtSecret'>,
  sub: string = randomUUID(),
  options: { expiresIn?: string | number; role?: string; omit?: 'role' | 'exp' } = {},
): Promise<string> {
  const role = options.role ?? 'authenticated';
  const claims: Record<string, unknown> = {
    sub,
    aud: 'authenticated',
    email: `${sub.slice(0, 8)}@example.com`,
    session_id: randomUUID(),
  };
  if (options.omit !== 'role') claims.role = role;
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt();
  if (options.omit !== 'exp') jwt = jwt.setExpirationTime(options.expiresIn ?? '1h');
  return jwt.sign(new TextEncoder().encode(server.jwtSecret));
}

/** The official client, realtime over `ws`, with the given protocol version and user token. */
export function realtimeClient(
  server: RunningServer,
  options: {
    vsn?: '1.0.0' | '2.0.0';
    token?: string;
    key?: string;
    heartbeatIntervalMs?: number;
    reconnectAfterMs?: number;
  } = {},
): SupabaseClient {
  const client = createClient(server.url, options.key ?? server.anonKey, {
    auth: { autoRefreshToken: false, persistSession: false },
    realtime: {
      transport: WebSocket as never,
      vsn: options.vsn ?? '2.0.0',
      reconnectAfterMs: () => options.reconnectAfterMs ?? 200,
      ...(options.heartbeatIntervalMs ? { heartbeatIntervalMs: options.heartbeatIntervalMs } : {}),
    },
  } as never);
  // A manual token: sent in every join payload (and pushed as `access_token` when changed).
  if (options.token) void client.realtime.setAuth(options.token);
  return client;
}

/** Subscribes and resolves once SUBSCRIBED (rejects on an error status). */
export function subscribed(channel: RealtimeChannel): Promise<RealtimeChannel> {
  return new Promise((resolve, reject) => {
    channel.subscribe((status, err) => {
      if (status === REALTIME_SUBSCRIBE_STATES.SUBSCRIBED) resolve(channel);
      else if (status !== REALTIME_SUBSCRIBE_STATES.CLOSED) {
        reject(err ?? new Error(status));
      }
    });
  });
}

/** Resolves to the subscribe status error (CHANNEL_ERROR) of a join that must fail. */
export function joinError(channel: RealtimeChannel): Promise<string> {
  return new Promise((resolve, reject) => {
    channel.subscribe((status, err) => {
      if (status === REALTIME_SUBSCRIBE_STATES.CHANNEL_ERROR) resolve(err?.message ?? '');
      else if (status === REALTIME_SUBSCRIBE_STATES.SUBSCRIBED) reject(new Error('joined'));
    });
  });
}

/** Collects values pushed by callbacks; `next(n)` waits until n have arrived. */
export class Inbox<T> {
  readonly items: T[] = [];
  private waiters: { n: number; resolve: () => void }[] = [];

  push = (item: T): void => {
    this.items.push(item);
    this.waiters = this.waiters.filter((w) => {
      if (this.items.length >= w.n) w.resolve();
      return this.items.length < w.n;
    });
  };

  /** Waits until at least `n` items arrived (default: one more than now). */
  async next(n = this.items.length + 1, timeoutMs = 5000): Promise<T[]> {
    if (this.items.length < n) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`waited for ${n} items, got ${this.items.length}`)),
          timeoutMs,
        );
        this.waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    }
    return this.items;
  }
}

/** Lets in-flight frames arrive (used only to show that something did NOT arrive). */
export const settle = (ms = 300) => new Promise((r) => setTimeout(r, ms));

/** A raw socket speaking the wire protocol, for frames the official client never sends. */
export class RawSocket {
  readonly frames: (unknown[] | Record<string, unknown> | Buffer)[] = [];
  private readonly inbox = new Inbox<unknown>();
  ref = 0;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      const frame = isBinary ? (data as Buffer) : JSON.parse(String(data));
      this.frames.push(frame);
      this.inbox.push(frame);
    });
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<RawSocket> {
    const ws = new WebSocket(url, { headers });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new RawSocket(ws)));
      ws.once('error', reject);
    });
  }

  send(frame: unknown): void {
    this.ws.send(Buffer.isBuffer(frame) ? frame : JSON.stringify(frame));
  }

  /** Waits for the first frame (from now on, or already received) matching `match`. */
  async waitFor<F = unknown[]>(match: (frame: never) => boolean, timeoutMs = 5000): Promise<F> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find((f) => match(f as never));
      if (found !== undefined) return found as F;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('frame not received');
      await this.inbox.next(this.frames.length + 1, left).catch(() => undefined);
    }
  }

  close(): void {
    this.ws.close();
  }
}

/** The socket URL of a server. */
export const socketUrl = (server: RunningServer, query: string) =>
  `${server.url.replace(/^http/, 'ws')}/realtime/v1/websocket?${query}`;
