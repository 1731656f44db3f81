import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Client, createClient } from '../../src/client';
import type { PostgresChange } from '../../src/realtime/channel';
import type { WebSocketConstructor } from '../../src/realtime/client';
import { type RunningServer, startBackend } from '../tus/support';
import { Inbox, SCHEMA, settle, statuses, topic } from './support';

let server: RunningServer;
let client: Client | undefined;

beforeAll(async () => {
  server = await startBackend();
  await server.db.exec(SCHEMA);
}, 60_000);

afterAll(async () => {
  await client?.removeAllChannels();
  await server?.stop();
});

it('createClient pushes sign-in changes to joined channels (RLS follows the new user)', async () => {
  client = createClient(server.url, server.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as unknown as WebSocketConstructor },
  });
  const password = 'correct horse battery staple';
  const emails = [`a-${randomUUID()}@example.test`, `b-${randomUUID()}@example.test`];
  const ids: string[] = [];
  for (const email of emails) {
    const { data, error } = await client.auth.signUp({ email, password });
    if (error) throw error;
    ids.push(data.user?.id as string);
  }
  // Signed in as the second user now; back to the first before subscribing.
  await client.auth.signInWithPassword({ email: emails[0] as string, password });
  const inbox = new Inbox<PostgresChange<{ title: string }>>();
  const channel = client
    .channel(topic('auth'))
    .on<{ title: string }>(
      'postgres_changes',
      { event: 'INSERT', schema: 'public', table: 'todos' },
      inbox.push,
    );
  await statuses(channel).until('SUBSCRIBED');
  const insert = (owner: string, title: string) =>
    server.db.query('insert into public.todos (owner_id, title) values ($1, $2)', [owner, title]);
  await insert(ids[0] as string, 'a1');
  await inbox.next(1);

  const { error } = await client.auth.signInWithPassword({ email: emails[1] as string, password });
  expect(error).toBeNull();
  await expect.poll(() => client?.realtime.token).not.toBe(server.anonKey);
  await settle(300);
  await insert(ids[0] as string, 'a2');
  await insert(ids[1] as string, 'b1');
  await inbox.next(2);
  await settle();
  expect(inbox.items.map((c) => c.new.title)).toEqual(['a1', 'b1']);
  expect(channel.state).toBe('joined');
});
