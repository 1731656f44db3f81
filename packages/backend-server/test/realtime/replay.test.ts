import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import {
  Inbox,
  joinError,
  RawSocket,
  realtimeClient,
  socketUrl,
  subscribed,
  uniqueTopic,
  userToken,
} from './support';

// Users may read the private topics named `open-…` only.
const SCHEMA = `
create policy "read open topics" on realtime.messages for select to authenticated
  using (realtime.topic() like 'open-%');
`;

type Received = {
  event: string;
  payload: { n: number };
  meta?: { replayed?: boolean; id?: string };
};

describe(`broadcast replay on private channels (${databaseKind()})`, () => {
  let server: RunningServer;
  const clients: SupabaseClient[] = [];

  beforeAll(async () => {
    const migrationsDir = await mkdtemp(join(tmpdir(), 'realtime-replay-'));
    await writeFile(join(migrationsDir, '0001_schema.sql'), SCHEMA);
    server = await startTestServer({ migrationsDir });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.removeAllChannels()));
  });
  afterAll(() => server?.stop());

  const channel = async (topic: string, config: Record<string, unknown>) => {
    const c = realtimeClient(server, { token: await userToken(server) });
    clients.push(c);
    return c.channel(topic, { config } as never);
  };
  const listen = (ch: RealtimeChannel) => {
    const inbox = new Inbox<Received>();
    ch.on('broadcast', { event: '*' }, (p) => inbox.push(p as never));
    return inbox;
  };
  /** Stores a message `minutesAgo` in the past (as `realtime.send` would, with that time). */
  const store = (
    topic: string,
    n: number,
    minutesAgo: number,
    extra: { private?: boolean; extension?: string } = {},
  ) =>
    server.db.query(
      `insert into realtime.messages (topic, extension, event, payload, private, inserted_at)
       values ($1, $2, $3, $4::text::jsonb, $5, localtimestamp - make_interval(mins => $6))`,
      [
        topic,
        extra.extension ?? 'broadcast',
        `m${n}`,
        JSON.stringify({ n }),
        extra.private ?? true,
        minutesAgo,
      ],
    );
  /** Milliseconds since the epoch, `minutesAgo` in the past by the database's clock. */
  const msAgo = async (minutesAgo: number) =>
    Number(
      (
        await server.db.query<{ ms: string }>(
          `select (extract(epoch from now() - make_interval(mins => $1)) * 1000)::bigint::text as ms`,
          [minutesAgo],
        )
      ).rows[0]?.ms,
    );

  it('replays the newest `limit` stored broadcasts since `since`, oldest first, before live ones', async () => {
    const topic = uniqueTopic('open');
    await store(topic, 1, 60); // before `since`
    for (const [n, ago] of [
      [2, 40],
      [3, 30],
      [4, 20],
      [5, 10],
    ] as const) {
      await store(topic, n, ago);
    }
    await store(topic, 6, 5, { private: false }); // public: never replayed
    await store(topic, 7, 5, { extension: 'presence' });
    await store(uniqueTopic('open'), 8, 5); // another topic

    const ch = await channel(topic, {
      private: true,
      broadcast: { replay: { since: await msAgo(45), limit: 3 } },
    });
    const inbox = listen(ch);
    await subscribed(ch);
    await inbox.next(3);
    await server.db.query("select realtime.send('{\"n\": 9}'::jsonb, 'm9', $1, true)", [topic]);
    await inbox.next(4);
    expect(inbox.items.map((m) => [m.event, m.payload.n, m.meta?.replayed ?? false])).toEqual([
      ['m3', 3, true],
      ['m4', 4, true],
      ['m5', 5, true],
      ['m9', 9, false],
    ]);
    expect(inbox.items.every((m) => typeof m.meta?.id === 'string')).toBe(true);

    // Without a limit: all since `since`, up to the cap.
    const all = await channel(topic, {
      private: true,
      broadcast: { replay: { since: await msAgo(45) } },
    });
    const allInbox = listen(all);
    await subscribed(all);
    await allInbox.next(5);
    expect(allInbox.items.map((m) => m.payload.n)).toEqual([2, 3, 4, 5, 9]);
  });

  it('caps a replay at 25 messages (the newest)', async () => {
    const topic = uniqueTopic('open');
    for (let n = 1; n <= 30; n++) await store(topic, n, 100 - n);
    const ch = await channel(topic, {
      private: true,
      broadcast: { replay: { since: await msAgo(200), limit: 100 } },
    });
    const inbox = listen(ch);
    await subscribed(ch);
    await inbox.next(25);
    // A marker sent live arrives after every replayed message: nothing more was replayed.
    await server.db.query("select realtime.send('{\"n\": 0}'::jsonb, 'end', $1, true)", [topic]);
    await inbox.next(26);
    expect(inbox.items.map((m) => m.payload.n)).toEqual([
      ...Array.from({ length: 25 }, (_, i) => i + 6),
      0,
    ]);
  });

  it('refuses replay on public channels, without read permission, and with bad params', async () => {
    const since = await msAgo(10);
    // supabase-js itself refuses a public replay; a raw client gets the service's answer.
    const raw = await RawSocket.open(socketUrl(server, `apikey=${server.anonKey}&vsn=2.0.0`));
    const topic = `realtime:${uniqueTopic('open')}`;
    raw.send(['1', '1', topic, 'phx_join', { config: { broadcast: { replay: { since } } } }]);
    const reply = await raw.waitFor<unknown[]>((f: unknown[]) => f[3] === 'phx_reply');
    raw.close();
    expect(reply[4]).toEqual({
      status: 'error',
      response: { reason: 'UnableToReplayMessages: Replay is not allowed for public channels' },
    });

    const closed = uniqueTopic('closed');
    expect(
      await joinError(
        await channel(closed, { private: true, broadcast: { replay: { since, limit: 5 } } }),
      ),
    ).toBe(`Unauthorized: You do not have permissions to read from this Channel topic: ${closed}`);
    expect(
      await joinError(
        await channel(uniqueTopic('open'), { private: true, broadcast: { replay: { limit: 5 } } }),
      ),
    ).toBe('UnableToReplayMessages: Replay params are not valid');
  });
});
