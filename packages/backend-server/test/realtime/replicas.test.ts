import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server';
import { builtCli } from '../support/built-cli';
import { createTestDatabase, databaseKind } from '../support/server';
import { until } from '../support/until';
import { Inbox, realtimeClient, settle, subscribed, uniqueTopic, userToken } from './support';

const SCHEMA = `
create table public.events (id bigint primary key, n int not null, body text);
alter table public.events replica identity full;
grant select, insert, update, delete on public.events to anon, authenticated;
alter publication supabase_realtime add table public.events;

create table public.room_members (room text not null, user_id uuid not null);
create policy "members read" on realtime.messages for select to authenticated
  using (exists (select 1 from public.room_members m
                 where m.room = realtime.topic() and m.user_id = auth.uid()));
create policy "members write" on realtime.messages for insert to authenticated
  with check (exists (select 1 from public.room_members m
                      where m.room = realtime.topic() and m.user_id = auth.uid()));
`;

/** `backend-server start` on `databaseUrl` in a child process (so it can be SIGKILLed). */
async function startChild(
  databaseUrl: string,
): Promise<{ child: ChildProcess; url: string; anonKey: string }> {
  const child = spawn(
    process.execPath,
    [await builtCli(), 'start', '--port', '0', '--database-url', databaseUrl],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stderr?.on('data', (d) => {
    err += d;
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      out += d;
      if (/anon key:\s+\S+/.test(out) && /API URL:\s+\S+/.test(out)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
  const line = (label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(out)?.[1] ?? '';
  return { child, url: line('API URL'), anonKey: line('anon key') };
}

describe.skipIf(databaseKind() === 'pglite')('realtime across replicas on one PostgreSQL', () => {
  let a: RunningServer;
  let b: RunningServer;
  let drop: () => Promise<void>;
  let databaseUrl: string;
  let dir: string;
  const clients: SupabaseClient[] = [];
  const client = (server: RunningServer) => {
    const c = realtimeClient(server);
    clients.push(c);
    return c;
  };
  /** Joins `topic` on `server` and collects who joins and who leaves its presence. */
  async function watchPresence(server: RunningServer, topic: string) {
    const joins = new Inbox<string>();
    const leaves = new Inbox<string>();
    const channel = client(server)
      .channel(topic)
      .on('presence', { event: 'join' }, ({ newPresences }) => {
        for (const p of newPresences) joins.push(String(p.who));
      })
      .on('presence', { event: 'leave' }, ({ leftPresences }) => {
        for (const p of leftPresences) leaves.push(String(p.who));
      });
    await subscribed(channel);
    return { joins, leaves };
  }

  beforeAll(async () => {
    const db = await createTestDatabase();
    if (!db) throw new Error('no PostgreSQL');
    drop = db.drop;
    databaseUrl = db.url;
    dir = await mkdtemp(join(tmpdir(), 'rt-replicas-'));
    await writeFile(join(dir, '0001_events.sql'), SCHEMA);
    [a, b] = (await Promise.all(
      [0, 1].map(() => startServer({ port: 0, databaseUrl: db.url, migrationsDir: dir })),
    )) as [RunningServer, RunningServer];
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.removeAllChannels()));
    await Promise.all([a?.stop(), b?.stop()]);
    await drop?.();
    await rm(dir, { recursive: true, force: true });
  });

  /** A subscribed channel collecting the payloads of `event` broadcasts. */
  async function listener(server: RunningServer, topic: string, self = false) {
    const inbox = new Inbox<unknown>();
    const channel = client(server)
      .channel(topic, { config: { broadcast: { self } } })
      .on('broadcast', { event: 'm' }, (m) => inbox.push(m.payload));
    await subscribed(channel);
    return { channel, inbox };
  }

  it('client broadcasts reach members on every replica, in order, once; self: false skips only the sender', async () => {
    const topic = uniqueTopic();
    const sender = await listener(a, topic);
    const sameReplica = await listener(a, topic);
    const other = await listener(b, topic);
    const count = 200;
    for (let i = 0; i < count; i++) {
      await sender.channel.send({ type: 'broadcast', event: 'm', payload: { i } });
    }
    const expected = Array.from({ length: count }, (_, i) => ({ i }));
    await other.inbox.next(count, 20_000);
    await sameReplica.inbox.next(count, 20_000);
    await settle();
    expect(other.inbox.items).toEqual(expected);
    expect(sameReplica.inbox.items).toEqual(expected);
    expect(sender.inbox.items).toEqual([]);
  });

  it('self: true gets its own message once; the other replica too', async () => {
    const topic = uniqueTopic();
    const sender = await listener(b, topic, true);
    const other = await listener(a, topic);
    await sender.channel.send({ type: 'broadcast', event: 'm', payload: { hello: 1 } });
    await other.inbox.next(1);
    await sender.inbox.next(1);
    await settle();
    expect(sender.inbox.items).toEqual([{ hello: 1 }]);
    expect(other.inbox.items).toEqual([{ hello: 1 }]);
  });

  it('private channels: a member on the other replica hears it, the public room of that name does not', async () => {
    const room = uniqueTopic('private');
    const [sender, member, outsider] = [randomUUID(), randomUUID(), randomUUID()];
    await a.db.query('insert into public.room_members values ($1, $2), ($1, $3)', [
      room,
      sender,
      member,
    ]);
    const asUser = (server: RunningServer, token: string) => {
      const c = realtimeClient(server, { token });
      clients.push(c);
      return c;
    };
    const heard = new Inbox<unknown>();
    const publicHeard = new Inbox<unknown>();
    const onB = asUser(b, await userToken(b, sender)).channel(room, {
      config: { private: true, broadcast: { ack: true } },
    });
    const onA = asUser(a, await userToken(a, member))
      .channel(room, { config: { private: true } })
      .on('broadcast', { event: 'm' }, (m) => heard.push(m.payload));
    const publicOnA = asUser(a, await userToken(a, outsider))
      .channel(room)
      .on('broadcast', { event: 'm' }, (m) => publicHeard.push(m.payload));
    await Promise.all([subscribed(onB), subscribed(onA), subscribed(publicOnA)]);
    expect(await onB.send({ type: 'broadcast', event: 'm', payload: { secret: 1 } })).toBe('ok');
    // An outsider may not write to the private topic through replica B's REST API.
    const res = await fetch(`${b.url}/realtime/v1/api/broadcast/${room}/events/m?private=true`, {
      method: 'POST',
      headers: {
        apikey: b.anonKey,
        authorization: `Bearer ${await userToken(b, outsider)}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ secret: 2 }),
    });
    expect(res.status).toBe(403);
    await heard.next(1);
    await settle();
    expect(heard.items).toEqual([{ secret: 1 }]);
    expect(publicHeard.items).toEqual([]);
  });

  it('spills payloads over NOTIFY’s 8000 bytes to a table and reads them back', async () => {
    const topic = uniqueTopic();
    const sender = await listener(b, topic);
    const other = await listener(a, topic);
    const big = { text: 'x'.repeat(20_000), after: 'y' };
    await sender.channel.send({ type: 'broadcast', event: 'm', payload: { i: 0 } });
    await sender.channel.send({ type: 'broadcast', event: 'm', payload: big });
    await sender.channel.send({ type: 'broadcast', event: 'm', payload: { i: 2 } });
    await other.inbox.next(3);
    expect(other.inbox.items).toEqual([{ i: 0 }, big, { i: 2 }]);
    const spilled = await a.db.query<{ n: number }>(
      'select count(*)::int as n from realtime.cluster_spill where length(body) > 20000',
    );
    expect(spilled.rows[0]?.n).toBeGreaterThan(0);
  });

  it('REST broadcasts on one replica reach members of the other', async () => {
    const topic = uniqueTopic();
    const other = await listener(a, topic);
    const local = await listener(b, topic);
    const res = await fetch(`${b.url}/realtime/v1/api/broadcast`, {
      method: 'POST',
      headers: {
        apikey: b.serviceRoleKey,
        authorization: `Bearer ${b.serviceRoleKey}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ messages: [{ topic, event: 'm', payload: { rest: true } }] }),
    });
    expect(res.status).toBe(202);
    await other.inbox.next(1);
    await local.inbox.next(1);
    await settle();
    expect(other.inbox.items).toEqual([{ rest: true }]);
    expect(local.inbox.items).toEqual([{ rest: true }]);
  });

  it('database broadcasts (realtime.send) reach every replica once', async () => {
    const topic = uniqueTopic();
    const onA = await listener(a, topic);
    const onB = await listener(b, topic);
    for (const n of [1, 2]) {
      await b.db.query("select realtime.send(jsonb_build_object('db', $1::int), 'm', $2, false)", [
        n,
        topic,
      ]);
    }
    await onA.inbox.next(2);
    await onB.inbox.next(2);
    await settle();
    expect(onA.inbox.items).toEqual([{ db: 1 }, { db: 2 }]);
    expect(onB.inbox.items).toEqual([{ db: 1 }, { db: 2 }]);
  });

  it('a subscriber on replica A sees 1,000 changes written through replica B, all, in order', async () => {
    const inbox = new Inbox<{ eventType: string; new: { n?: number } }>();
    const channel = client(a)
      .channel(uniqueTopic('changes'))
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'events' }, (p) =>
        inbox.push(p as never),
      );
    await subscribed(channel);
    for (let n = 0; n < 1000; n++) {
      await b.db.query('insert into public.events (id, n) values ($1, $2)', [n, n]);
    }
    await inbox.next(1000, 60_000);
    await settle();
    expect(inbox.items.map((p) => p.new.n)).toEqual(Array.from({ length: 1000 }, (_, n) => n));
    await channel.unsubscribe();
  }, 90_000);

  it('every replica gets old_record, also when it waited in captured_rows; the row goes once all read it', async () => {
    const inboxes = [a, b].map(() => new Inbox<{ old: Record<string, unknown> }>());
    for (const [i, server] of [a, b].entries()) {
      const channel = client(server)
        .channel(uniqueTopic('old'))
        .on('postgres_changes', { event: 'UPDATE', schema: 'public', table: 'events' }, (p) =>
          inboxes[i]?.push(p as never),
        );
      await subscribed(channel);
    }
    const big = 'z'.repeat(9000);
    await b.db.query('insert into public.events (id, n, body) values (-1, 0, $1)', [big]);
    await b.db.query('update public.events set n = 1 where id = -1'); // old row too big: spilled
    await b.db.query('update public.events set n = 2, body = null where id = -1');
    await b.db.query('update public.events set n = 3 where id = -1'); // inline
    for (const inbox of inboxes) {
      await inbox.next(3);
      expect(inbox.items.map((p) => [p.old.n, p.old.body])).toEqual([
        [0, big],
        [1, big],
        [2, null],
      ]);
    }
    await until(async () => {
      const { rows } = await a.db.query<{ n: number }>(
        'select count(*)::int as n from realtime.captured_rows',
      );
      return rows[0]?.n === 0;
    });
  });

  it('presence: state on join and diffs span replicas', async () => {
    const topic = uniqueTopic('presence');
    const joins = new Inbox<string>();
    const leaves = new Inbox<string>();
    // A presence listener: the client applies diffs only after a presence_state.
    const onA = client(a)
      .channel(topic)
      .on('presence', { event: 'sync' }, () => {});
    await subscribed(onA);
    await onA.track({ who: 'a' });
    const onB: RealtimeChannel = client(b)
      .channel(topic)
      .on('presence', { event: 'join' }, ({ newPresences }) => {
        for (const p of newPresences) joins.push(String(p.who));
      })
      .on('presence', { event: 'leave' }, ({ leftPresences }) => {
        for (const p of leftPresences) leaves.push(String(p.who));
      });
    await subscribed(onB);
    // The state B got on join holds A's member.
    await joins.next(1);
    expect(joins.items).toEqual(['a']);
    await onB.track({ who: 'b' });
    await until(async () => {
      const who = Object.values(onA.presenceState()).flatMap((metas) =>
        metas.map((m) => (m as { who?: string }).who),
      );
      return who.includes('b') && who.includes('a');
    });
    await onA.untrack();
    await leaves.next(1);
    expect(leaves.items).toEqual(['a']);
  });

  it('members of a replica that stops leave the others’ presence at once', async () => {
    const topic = uniqueTopic('stopped');
    const { joins, leaves } = await watchPresence(a, topic);
    const c = await startServer({ port: 0, databaseUrl });
    const cClient = realtimeClient(c, { reconnectAfterMs: 60_000 });
    try {
      const onC = cClient.channel(topic);
      await subscribed(onC);
      await onC.track({ who: 'c' });
      await joins.next(1);
      expect(joins.items).toEqual(['c']);
    } finally {
      await c.stop();
      cClient.realtime.disconnect();
    }
    // Well before a dead heartbeat would be noticed (5 s).
    await leaves.next(1, 4000);
    expect(leaves.items).toEqual(['c']);
  });

  it('members of a replica killed without goodbye leave the others’ presence', async () => {
    const topic = uniqueTopic('killed');
    const { joins, leaves } = await watchPresence(a, topic);
    const { child, url: childUrl, anonKey } = await startChild(databaseUrl);
    try {
      const onC = client({ url: childUrl, anonKey } as RunningServer).channel(topic);
      await subscribed(onC);
      await onC.track({ who: 'c' });
      await joins.next(1, 20_000);
      expect(joins.items).toEqual(['c']);
      child.kill('SIGKILL');
      // The bound is the one the heartbeat promises (a dead row after 5 s, checked each second).
      await leaves.next(1, 10_000);
      expect(leaves.items).toEqual(['c']);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});
