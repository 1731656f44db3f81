import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import {
  Inbox,
  RawSocket,
  realtimeClient,
  settle,
  socketUrl,
  subscribed,
  uniqueTopic,
} from './support';

describe(`realtime broadcast and presence through supabase-js (${databaseKind()})`, () => {
  let server: RunningServer;
  const clients: SupabaseClient[] = [];
  const client = (vsn: '1.0.0' | '2.0.0') => {
    const c = realtimeClient(server, { vsn });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.removeAllChannels()));
  });
  afterAll(() => server?.stop());

  for (const vsn of ['2.0.0', '1.0.0'] as const) {
    it(`broadcasts with self and ack (vsn ${vsn})`, async () => {
      const topic = uniqueTopic();
      const a = client(vsn);
      const b = client(vsn === '2.0.0' ? '1.0.0' : '2.0.0');
      const fromA = new Inbox<unknown>();
      const fromB = new Inbox<unknown>();
      const chA = a
        .channel(topic, { config: { broadcast: { self: true, ack: true } } })
        .on('broadcast', { event: 'move' }, (m) => fromA.push(m));
      const chB = b
        .channel(topic, { config: { broadcast: { self: false } } })
        .on('broadcast', { event: '*' }, (m) => fromB.push(m));
      await Promise.all([subscribed(chA), subscribed(chB)]);

      expect(await chA.send({ type: 'broadcast', event: 'move', payload: { x: 1 } })).toBe('ok');
      await fromB.next(1);
      await fromA.next(1);
      expect(fromB.items[0]).toEqual({ type: 'broadcast', event: 'move', payload: { x: 1 } });
      expect(fromA.items[0]).toEqual({ type: 'broadcast', event: 'move', payload: { x: 1 } });

      // B does not hear itself (self: false); A hears B.
      expect(await chB.send({ type: 'broadcast', event: 'move', payload: { x: 2 } })).toBe('ok');
      await fromA.next(2);
      expect(fromA.items[1]).toEqual({ type: 'broadcast', event: 'move', payload: { x: 2 } });
      await settle();
      expect(fromB.items).toHaveLength(1);
    });
  }

  it('delivers REST broadcasts (send before join falls back to REST; httpSend)', async () => {
    const topic = uniqueTopic();
    const inbox = new Inbox<unknown>();
    const listener = client('2.0.0');
    await subscribed(
      listener.channel(topic).on('broadcast', { event: 'note' }, (m) => inbox.push(m)),
    );
    const sender = client('2.0.0');
    const unjoined = sender.channel(topic);
    const result = await unjoined.httpSend('note', { via: 'httpSend' });
    expect(result).toEqual({ success: true });
    await inbox.next(1);
    expect(inbox.items[0]).toEqual({
      type: 'broadcast',
      event: 'note',
      payload: { via: 'httpSend' },
    });
  });

  it('tracks presence: presence_state on join, join/leave diffs, untrack', async () => {
    const topic = uniqueTopic();
    const a = client('2.0.0');
    const b = client('1.0.0');
    const joins = new Inbox<{ key: string; newPresences: unknown[] }>();
    const leaves = new Inbox<{ key: string; leftPresences: unknown[] }>();
    const chA = a
      .channel(topic, { config: { presence: { key: 'alice' } } })
      .on('presence', { event: 'join' }, (e) => joins.push(e as never))
      .on('presence', { event: 'leave' }, (e) => leaves.push(e as never));
    await subscribed(chA);
    expect(await chA.track({ name: 'Alice' })).toBe('ok');
    await joins.next(1);
    expect(joins.items[0]?.key).toBe('alice');

    const chB = b.channel(topic, { config: { presence: { key: 'bob' } } });
    const synced = new Inbox<void>();
    chB.on('presence', { event: 'sync' }, () => synced.push());
    await subscribed(chB);
    await synced.next(1);
    // B got the current state on join.
    expect(chB.presenceState()).toEqual({
      alice: [expect.objectContaining({ name: 'Alice', presence_ref: expect.any(String) })],
    });
    expect(await chB.track({ name: 'Bob' })).toBe('ok');
    await joins.next(2);
    expect(joins.items[1]?.key).toBe('bob');
    expect(Object.keys(chA.presenceState()).sort()).toEqual(['alice', 'bob']);

    // Re-tracking updates the meta (one diff: the new meta joins, the old one leaves).
    expect(await chB.track({ name: 'Bobby' })).toBe('ok');
    await joins.next(3);
    await leaves.next(1);
    expect(joins.items[2]).toMatchObject({ key: 'bob', newPresences: [{ name: 'Bobby' }] });
    expect(leaves.items[0]).toMatchObject({ key: 'bob', leftPresences: [{ name: 'Bob' }] });
    expect(await chB.untrack()).toBe('ok');
    await leaves.next(2);
    expect(leaves.items[1]).toMatchObject({ key: 'bob', leftPresences: [{ name: 'Bobby' }] });
    // The server's state, as a new joiner receives it: only alice is left.
    const late = await RawSocket.open(socketUrl(server, `apikey=${server.anonKey}&vsn=2.0.0`));
    late.send([
      '1',
      '1',
      `realtime:${topic}`,
      'phx_join',
      { config: { presence: { enabled: true } } },
    ]);
    const state = await late.waitFor<unknown[]>((f: unknown[]) => f[3] === 'presence_state');
    expect(state[4]).toEqual({
      alice: { metas: [{ name: 'Alice', phx_ref: expect.stringMatching(/^F/) }] },
    });
    late.close();
  });

  it('cleans presence up when a socket dies', async () => {
    const topic = `realtime:${uniqueTopic()}`;
    const watcher = await RawSocket.open(socketUrl(server, `apikey=${server.anonKey}&vsn=2.0.0`));
    const dying = await RawSocket.open(socketUrl(server, `apikey=${server.anonKey}&vsn=2.0.0`));
    const join = (key: string) => ({ config: { presence: { key, enabled: true } } });
    watcher.send(['1', '1', topic, 'phx_join', join('w')]);
    await watcher.waitFor((f: unknown[]) => f[1] === '1');
    dying.send(['1', '1', topic, 'phx_join', join('d')]);
    await dying.waitFor((f: unknown[]) => f[1] === '1');
    dying.send([
      '1',
      '2',
      topic,
      'presence',
      { type: 'presence', event: 'track', payload: { on: true } },
    ]);
    expect((await dying.waitFor((f: unknown[]) => f[1] === '2'))[4]).toEqual({
      status: 'ok',
      response: {},
    });
    const joined = await watcher.waitFor<unknown[]>((f: unknown[]) => f[3] === 'presence_diff');
    expect(joined[4]).toEqual({
      joins: { d: { metas: [{ on: true, phx_ref: expect.any(String) }] } },
      leaves: {},
    });
    dying.ws.terminate();
    const left = await watcher.waitFor<unknown[]>(
      (f: unknown[]) =>
        f[3] === 'presence_diff' && Object.keys((f[4] as { leaves: object }).leaves).length > 0,
    );
    expect(left[4]).toEqual({
      joins: {},
      leaves: {
        d: {
          metas: [
            {
              on: true,
              phx_ref: (joined[4] as never as { joins: { d: { metas: { phx_ref: string }[] } } })
                .joins.d.metas[0]?.phx_ref,
            },
          ],
        },
      },
    });
    // A later joiner sees nobody.
    const late = await RawSocket.open(socketUrl(server, `apikey=${server.anonKey}&vsn=2.0.0`));
    late.send(['1', '1', topic, 'phx_join', join('l')]);
    expect((await late.waitFor((f: unknown[]) => f[3] === 'presence_state'))[4]).toEqual({});
    watcher.close();
    late.close();
  });
});
