/**
 * Realtime scenarios: joins, broadcast (self, ack, HTTP), presence, postgres_changes, a
 * refused private join, a join with an expired token set by `setAuth`, and leaving. Frames
 * sent and received are compared as well as the results.
 */
import { userToken } from '../../support/server';
import type { Any, Ctx, Scenario } from '../scenario';

/** Subscribes; resolves once the first status other than CLOSED arrives. */
function join(channel: Any): Promise<string[]> {
  const seen: string[] = [];
  return new Promise((resolve) => {
    channel.subscribe((status: string, error?: Error) => {
      seen.push(error ? `${status}: ${error.message}` : status);
      if (status !== 'CLOSED') resolve(seen);
    });
  });
}

async function leave(c: Any, channel: Any, ctx: Ctx, statuses: string[]) {
  const removed = await c.removeChannel(channel);
  await ctx.until(() => statuses.includes('CLOSED') || undefined, 5000).catch(() => undefined);
  return removed;
}

export const realtimeScenarios: Scenario[] = [
  {
    id: 'realtime.broadcast-self',
    run: async (c, ctx) => {
      const got: unknown[] = [];
      const channel = c
        .channel(ctx.u('room'), { config: { broadcast: { self: true } } })
        .on('broadcast', { event: 'ping' }, (m: unknown) => got.push(m));
      const statuses = await join(channel);
      const sent = await channel.send({ type: 'broadcast', event: 'ping', payload: { n: 1 } });
      await ctx.until(() => got.length === 1);
      const removed = await leave(c, channel, ctx, statuses);
      return { statuses, sent, got, removed };
    },
  },
  {
    id: 'realtime.broadcast-signed-out',
    client: { signedIn: false },
    run: async (c, ctx) => {
      const got: unknown[] = [];
      const channel = c
        .channel(ctx.u('anon'), { config: { broadcast: { self: true } } })
        .on('broadcast', { event: '*' }, (m: unknown) => got.push(m));
      const statuses = await join(channel);
      const sent = await channel.send({ type: 'broadcast', event: 'hi', payload: {} });
      await ctx.until(() => got.length === 1);
      const removed = await leave(c, channel, ctx, statuses);
      return { statuses, sent, got, removed };
    },
  },
  {
    id: 'realtime.broadcast-ack',
    run: async (c, ctx) => {
      const channel = c.channel(ctx.u('ack'), { config: { broadcast: { ack: true } } });
      const statuses = await join(channel);
      const sent = await channel.send({ type: 'broadcast', event: 'e', payload: { ok: true } });
      const removed = await leave(c, channel, ctx, statuses);
      return { statuses, sent, removed };
    },
  },
  {
    id: 'realtime.broadcast-binary',
    run: async (c, ctx) => {
      const got: Any[] = [];
      const channel = c
        .channel(ctx.u('bin'), { config: { broadcast: { self: true } } })
        .on('broadcast', { event: 'bytes' }, (m: Any) => got.push(m));
      const statuses = await join(channel);
      const sent = await channel.send({
        type: 'broadcast',
        event: 'bytes',
        payload: new Uint8Array([1, 2, 3]).buffer,
      });
      await ctx.until(() => got.length === 1);
      const removed = await leave(c, channel, ctx, statuses);
      return { statuses, sent, got, removed };
    },
  },
  {
    id: 'realtime.presence',
    run: async (c, ctx) => {
      const events: string[] = [];
      const channel = c
        .channel(ctx.u('presence'), { config: { presence: { key: 'me' } } })
        .on('presence', { event: 'sync' }, () => events.push('sync'))
        .on('presence', { event: 'join' }, (e: Any) => events.push(`join ${e.key}`))
        .on('presence', { event: 'leave' }, (e: Any) => events.push(`leave ${e.key}`));
      const statuses = await join(channel);
      const tracked = await channel.track({ online: true });
      await ctx.until(() => events.includes('join me'));
      const state = channel.presenceState();
      const untracked = await channel.untrack();
      await ctx.until(() => events.includes('leave me'));
      const removed = await leave(c, channel, ctx, statuses);
      return { statuses, tracked, state, untracked, events, removed };
    },
  },
  {
    id: 'realtime.postgres-changes',
    run: async (c, ctx) => {
      const changes: Any[] = [];
      const channel = c
        .channel(ctx.u('db'))
        .on(
          'postgres_changes',
          { event: 'INSERT', schema: 'public', table: 'todos', filter: `title=eq.${ctx.u('rt')}` },
          (change: Any) => changes.push(change),
        );
      const statuses = await join(channel);
      const inserted = await c.from('todos').insert({ title: ctx.u('rt') });
      await ctx.until(() => changes.length === 1);
      const removed = await leave(c, channel, ctx, statuses);
      return { statuses, inserted, changes, removed };
    },
  },
  {
    id: 'realtime.http-send',
    run: async (c, ctx) => ({ sent: await c.channel(ctx.u('http')).httpSend('evt', { a: 1 }) }),
  },
  {
    id: 'realtime.send-not-joined',
    run: async (c, ctx) => ({
      sent: await c
        .channel(ctx.u('late'))
        .send({ type: 'broadcast', event: 'e', payload: { b: 2 } }),
    }),
  },
  {
    id: 'realtime.private-refused',
    run: async (c, ctx) => {
      const channel = c.channel(ctx.u('private'), { config: { private: true } });
      const statuses = await join(channel);
      await c.removeChannel(channel);
      return { statuses };
    },
  },
  {
    id: 'realtime.set-auth-expired',
    run: async (c, ctx) => {
      await c.realtime.setAuth(await userToken(ctx.server, ctx.user.id, -10));
      const channel = c.channel(ctx.u('expired'));
      const statuses = await join(channel);
      await c.removeChannel(channel);
      return { statuses };
    },
  },
];
