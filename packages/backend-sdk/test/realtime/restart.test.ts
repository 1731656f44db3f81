import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BroadcastMessage, PostgresChange } from '../../src/realtime/channel';
import type { RealtimeClient } from '../../src/realtime/client';
import { type RunningServer, startBackend } from '../tus/support';
import { Inbox, newUser, realtimeFor, SCHEMA, settle, statuses, topic } from './support';

let server: RunningServer;
let dataDir: string;
let client: RealtimeClient | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sdk-rt-restart-'));
  server = await startBackend({ dataDir });
  await server.db.exec(SCHEMA);
}, 90_000);

afterAll(async () => {
  client?.disconnect();
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

it('reconnects and rejoins every channel after a server restart, with the fresh token', async () => {
  const alice = newUser(server);
  const bob = newUser(server);
  const holder = { token: alice.token };
  client = realtimeFor(server, holder, { reconnectAfterMs: () => 300 });
  const changes = new Inbox<PostgresChange<{ title: string }>>();
  const messages = new Inbox<BroadcastMessage>();
  const db = client.channel(topic('db'));
  db.on<{ title: string }>(
    'postgres_changes',
    { event: 'INSERT', schema: 'public', table: 'todos' },
    changes.push,
  );
  const room = client.channel(topic('room'));
  room.on('broadcast', { event: 'ping' }, messages.push);
  const dbStatus = statuses(db);
  const roomStatus = statuses(room);
  await Promise.all([dbStatus.until('SUBSCRIBED'), roomStatus.until('SUBSCRIBED')]);

  const port = Number(new URL(server.url).port);
  await server.stop();
  // While the socket is down the session moves on to another identity.
  holder.token = bob.token;
  server = await startBackend({ dataDir, port });

  await Promise.all([
    dbStatus.until('SUBSCRIBED', 1, 30_000),
    roomStatus.until('SUBSCRIBED', 1, 30_000),
  ]);
  expect(dbStatus.seen).toEqual(['SUBSCRIBED', 'CHANNEL_ERROR', 'SUBSCRIBED']);
  expect(client.isConnected()).toBe(true);

  // The rejoin carried bob's token: RLS now delivers bob's rows, not alice's.
  await server.db.query('insert into public.todos (owner_id, title) values ($1, $2)', [
    alice.id,
    'a',
  ]);
  await server.db.query('insert into public.todos (owner_id, title) values ($1, $2)', [
    bob.id,
    'b',
  ]);
  await changes.next(1);
  await settle();
  expect(changes.items.map((c) => c.new.title)).toEqual(['b']);

  const other = realtimeFor(server, null);
  expect(await other.channel(room.name).httpSend('ping', { n: 1 })).toEqual({ success: true });
  await messages.next(1);
  expect(messages.items[0]?.payload).toEqual({ n: 1 });
}, 90_000);
