/** Realtime test support: the SDK's realtime client over `ws` against a real server. */
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { createHttp } from '../../src/http/index';
import type { RealtimeChannel, SubscribeStatus } from '../../src/realtime/channel';
import {
  RealtimeClient,
  type RealtimeOptions,
  type WebSocketConstructor,
} from '../../src/realtime/client';
import type { RunningServer } from '../tus/support';

export { newUser, userToken } from '../tus/support';

/** Tables for postgres_changes: rows readable by their owner only. */
export const SCHEMA = `
create table public.todos (
  id bigint generated always as identity primary key,
  owner_id uuid not null,
  title text not null,
  done boolean not null default false,
  tags text[] not null default '{}'
);
alter table public.todos enable row level security;
create policy "own rows" on public.todos for select using (owner_id = auth.uid());
grant select on public.todos to authenticated;
alter publication supabase_realtime add table public.todos;
`;

/** A unique channel name, so tests sharing one server never meet. */
export const topic = (tag = 'room') => `${tag}-${randomBytes(5).toString('hex')}`;

/** The SDK's realtime client for a user whose token is read from `holder` on every need. */
export function realtimeFor(
  server: RunningServer | { url: string; anonKey: string },
  holder: { token: string } | null,
  options: RealtimeOptions = {},
): RealtimeClient {
  const http = createHttp({
    url: server.url,
    key: server.anonKey,
    accessToken: () => holder?.token ?? null,
  });
  return new RealtimeClient(http, {
    transport: WebSocket as unknown as WebSocketConstructor,
    ...options,
  });
}

/** Records every subscribe status; `until(status)` waits for one (after `since`). */
export function statuses(channel: RealtimeChannel) {
  const seen: SubscribeStatus[] = [];
  const waiters: Array<{ status: SubscribeStatus; from: number; resolve: () => void }> = [];
  channel.subscribe((status) => {
    seen.push(status);
    for (const w of waiters.splice(0)) {
      if (seen.indexOf(w.status, w.from) >= 0) w.resolve();
      else waiters.push(w);
    }
  });
  return {
    seen,
    until(status: SubscribeStatus, from = 0, ms = 15_000): Promise<void> {
      if (seen.indexOf(status, from) >= 0) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ${status} within ${ms} ms (seen ${seen.join(', ')})`)),
          ms,
        );
        waiters.push({
          status,
          from,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
  };
}

/** Collects callback values; `next(n)` waits until n arrived. */
export class Inbox<T> {
  readonly items: T[] = [];
  push = (item: T): void => {
    this.items.push(item);
  };
  async next(n = 1, ms = 10_000): Promise<T[]> {
    const start = Date.now();
    while (this.items.length < n) {
      if (Date.now() - start > ms) throw new Error(`only ${this.items.length} of ${n} arrived`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.items;
  }
}

/** Lets in-flight deliveries arrive before asserting that something did not. */
export const settle = (ms = 400) => new Promise((r) => setTimeout(r, ms));
