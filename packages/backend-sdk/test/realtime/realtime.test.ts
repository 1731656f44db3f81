import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BroadcastMessage, PostgresChange } from '../../src/realtime/channel';
import type { RealtimeClient } from '../../src/realtime/client';
import { pgFilter } from '../../src/realtime/postgres';
import { officialClient } from '../support/official';
import { type RunningServer, startBackend } from '../tus/support';
import { Inbox, newUser, realtimeFor, SCHEMA, settle, statuses, topic, userToken } from './support';

let server: RunningServer;
const clients: RealtimeClient[] = [];
const open = (...args: Parameters<typeof realtimeFor>) => {
  const client = realtimeFor(...args);
  clients.push(client);
  return client;
};

beforeAll(async () => {
  server = await startBackend();
  await server.db.exec(SCHEMA);
}, 60_000);

afterAll(async () => {
  for (const c of clients) c.disconnect();
  await server?.stop();
});

const insertTodo = (owner: string, title: string) =>
  server.db.query(`insert into public.todos (owner_id, title, tags) values ($1, $2, '{a,b}')`, [
    owner,
    title,
  ]);

type Todo = { id: number; owner_id: string; title: string; done: boolean; tags: string[] };

describe('realtime against the real server', () => {
  it('delivers postgres_changes with RLS respected and values typed', async () => {
    const alice = newUser(server);
    const bob = newUser(server);
    const aliceInbox = new Inbox<PostgresChange<Todo>>();
    const bobInbox = new Inbox<PostgresChange<Todo>>();
    const a = open(server, alice).channel(topic('todos'));
    a.on<Todo>(
      'postgres_changes',
      { event: 'INSERT', schema: 'public', table: 'todos' },
      aliceInbox.push,
    );
    const b = open(server, bob).channel(topic('todos'));
    b.on<Todo>('postgres_changes', { event: '*', schema: 'public', table: 'todos' }, bobInbox.push);
    await Promise.all([statuses(a).until('SUBSCRIBED'), statuses(b).until('SUBSCRIBED')]);

    await insertTodo(alice.id, 'for alice');
    await insertTodo(bob.id, 'for bob');
    const [got] = await aliceInbox.next(1);
    await bobInbox.next(1);
    await settle();
    expect(aliceInbox.items).toHaveLength(1);
    expect(got).toMatchObject({
      schema: 'public',
      table: 'todos',
      eventType: 'INSERT',
      new: { owner_id: alice.id, title: 'for alice', done: false, tags: ['a', 'b'] },
    });
    expect(typeof got?.new.id).toBe('number');
    expect(bobInbox.items.map((c) => c.new.title)).toEqual(['for bob']);
  });

  it('applies a filter built with pgFilter()', async () => {
    const user = newUser(server);
    const inbox = new Inbox<PostgresChange<Todo>>();
    const ch = open(server, user).channel(topic('filter'));
    ch.on<Todo>(
      'postgres_changes',
      {
        event: 'INSERT',
        schema: 'public',
        table: 'todos',
        filter: pgFilter().eq('title', 'wanted'),
      },
      inbox.push,
    );
    await statuses(ch).until('SUBSCRIBED');
    await insertTodo(user.id, 'other');
    await insertTodo(user.id, 'wanted');
    await inbox.next(1);
    await settle();
    expect(inbox.items.map((c) => c.new.title)).toEqual(['wanted']);
  });

  for (const vsn of ['2.0.0', '1.0.0'] as const) {
    it(`broadcasts over the socket (vsn ${vsn}), with ack and self, and over HTTP`, async () => {
      const name = topic('bc');
      const inbox = new Inbox<BroadcastMessage>();
      const listener = open(server, null, { vsn }).channel(name);
      listener.on('broadcast', { event: 'cursor' }, inbox.push);
      const selfInbox = new Inbox<BroadcastMessage>();
      const sender = open(server, null, { vsn }).channel(name, {
        config: { broadcast: { self: true, ack: true } },
      });
      sender.on('broadcast', { event: '*' }, selfInbox.push);
      await Promise.all([
        statuses(listener).until('SUBSCRIBED'),
        statuses(sender).until('SUBSCRIBED'),
      ]);

      expect(await sender.send({ type: 'broadcast', event: 'cursor', payload: { x: 1 } })).toBe(
        'ok',
      );
      await inbox.next(1);
      await selfInbox.next(1);
      expect(inbox.items[0]).toMatchObject({
        type: 'broadcast',
        event: 'cursor',
        payload: { x: 1 },
      });

      const http = open(server, null).channel(name);
      expect(await http.httpSend('cursor', { x: 2 })).toEqual({ success: true });
      await inbox.next(2);
      expect(inbox.items[1]?.payload).toEqual({ x: 2 });
      // Not joined: send() goes over HTTP too.
      expect(await http.send({ type: 'broadcast', event: 'cursor', payload: { x: 3 } })).toBe('ok');
      await inbox.next(3);
      expect(inbox.items[2]?.payload).toEqual({ x: 3 });
    });
  }

  it('syncs presence: track, join, leave, untrack', async () => {
    const name = topic('presence');
    const joins: string[] = [];
    const leaves: string[] = [];
    const a = open(server, null).channel(name, { config: { presence: { key: 'ann' } } });
    a.on('presence', { event: 'join' }, (e) => joins.push(e.key ?? ''));
    a.on('presence', { event: 'leave' }, (e) => leaves.push(e.key ?? ''));
    const b = open(server, null).channel(name, { config: { presence: { key: 'bob' } } });
    b.on('presence', { event: 'sync' }, () => {});
    await Promise.all([statuses(a).until('SUBSCRIBED'), statuses(b).until('SUBSCRIBED')]);
    expect(await a.track({ status: 'online' })).toBe('ok');
    expect(await b.track({ status: 'away' })).toBe('ok');
    await expect.poll(() => Object.keys(a.presenceState()).sort()).toEqual(['ann', 'bob']);
    expect(a.presenceState().bob?.[0]).toMatchObject({ status: 'away' });
    expect(typeof a.presenceState().bob?.[0]?.presence_ref).toBe('string');
    expect(joins).toContain('bob');
    expect(await b.untrack()).toBe('ok');
    await expect.poll(() => Object.keys(a.presenceState())).toEqual(['ann']);
    expect(leaves).toContain('bob');
  });

  it('pushes a new token to joined channels: the server applies it', async () => {
    const alice = newUser(server);
    const bob = newUser(server);
    const holder = { token: alice.token };
    const client = open(server, holder);
    const inbox = new Inbox<PostgresChange<Todo>>();
    const ch = client.channel(topic('auth'));
    ch.on<Todo>(
      'postgres_changes',
      { event: 'INSERT', schema: 'public', table: 'todos' },
      inbox.push,
    );
    await statuses(ch).until('SUBSCRIBED');
    await insertTodo(alice.id, 'a1');
    await inbox.next(1);

    // The token changes (a refresh to another identity makes the effect visible through RLS).
    holder.token = bob.token;
    await client.setAuth();
    await settle(200);
    await insertTodo(alice.id, 'a2');
    await insertTodo(bob.id, 'b1');
    await inbox.next(2);
    await settle();
    expect(inbox.items.map((c) => c.new.title)).toEqual(['a1', 'b1']);
    expect(ch.state).toBe('joined');
  });

  it('keeps a channel past the first token expiry when the token is refreshed', async () => {
    const user = newUser(server, 3);
    const holder = { token: user.token };
    const systems: Array<Record<string, unknown>> = [];
    const refreshedClient = open(server, holder);
    const refreshed = refreshedClient.channel(topic('exp'));
    refreshed.on('system', {}, (m) => systems.push(m));
    const s = statuses(refreshed);
    // The control never learns a new token: the server closes it at expiry.
    const control = open(server, { token: user.token }).channel(topic('exp'));
    const c = statuses(control);
    await Promise.all([s.until('SUBSCRIBED'), c.until('SUBSCRIBED')]);
    holder.token = userToken(server, user.id, 3600);
    await refreshedClient.setAuth();
    await c.until('CLOSED', 0, 10_000);
    await settle(300);
    expect(refreshed.state).toBe('joined');
    expect(s.seen).toEqual(['SUBSCRIBED']);
    expect(systems.filter((m) => m.status === 'error')).toEqual([]);
  });

  it('httpSend rejects as the official client does: no payload, a refused private topic', async () => {
    const ch = open(server, null).channel(topic('deny'), { config: { private: true } });
    await expect(ch.httpSend('x', undefined)).rejects.toMatchObject({
      message: 'Payload is required for httpSend()',
    });
    const refused = await ch.httpSend('x', { a: 1 }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: 'RealtimeError' });
    expect((refused as { status: number }).status).toBeGreaterThanOrEqual(400);
    const official = officialClient(server.url, server.anonKey);
    const theirs = await official
      .channel(ch.name, { config: { private: true } })
      .httpSend('x', { a: 1 })
      .catch((e: unknown) => e);
    expect((refused as Error).message).toBe((theirs as Error).message);
  });

  it('lists its listeners in bindings, by type', () => {
    const ch = open(server, null)
      .channel(topic('bindings'))
      .on('broadcast', { event: 'a' }, () => {})
      .on('postgres_changes', { event: '*', schema: 'public', table: 'todos' }, () => {})
      .on('broadcast', { event: 'b' }, () => {});
    expect(Object.keys(ch.bindings)).toEqual(['broadcast', 'postgres_changes']);
    expect(ch.bindings.broadcast?.map((b) => b.filter.event)).toEqual(['a', 'b']);
    expect(ch.bindings.postgres_changes?.[0]).toMatchObject({
      type: 'postgres_changes',
      filter: { event: '*', schema: 'public', table: 'todos' },
    });
  });

  it('reports a refused join as CHANNEL_ERROR with the server reason', async () => {
    const ch = open(server, null).channel(topic('private'), { config: { private: true } });
    const s = statuses(ch);
    await s.until('CHANNEL_ERROR');
    await ch.unsubscribe();
    expect(s.seen[0]).toBe('CHANNEL_ERROR');
  });
});
