import { randomUUID } from 'node:crypto';
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
  realtimeClient,
  settle,
  subscribed,
  uniqueTopic,
  userToken,
} from './support';

const SCHEMA = `
create table public.todos (
  id bigint generated always as identity primary key,
  owner_id uuid not null,
  title text not null,
  done boolean not null default false,
  secret text
);
alter table public.todos enable row level security;
create policy "own rows" on public.todos for select using (owner_id = auth.uid());
revoke select on public.todos from anon, authenticated;
grant select (id, owner_id, title, done) on public.todos to anon, authenticated;
alter publication supabase_realtime add table public.todos;

create table public.notes (id int primary key, body text, n int);
alter table public.notes replica identity full;
alter publication supabase_realtime add table public.notes;

create table public.unpublished (id int primary key);

create table public.secret_ids (id int primary key, v text);
revoke select on public.secret_ids from anon, authenticated;
grant select (v) on public.secret_ids to authenticated;
alter publication supabase_realtime add table public.secret_ids;
create table public.no_pk (v text);
alter publication supabase_realtime add table public.no_pk;

create table public.room_members (room text not null, user_id uuid not null);
create policy "members read" on realtime.messages for select to authenticated
  using (exists (select 1 from public.room_members m
                 where m.room = realtime.topic() and m.user_id = auth.uid()));
create policy "members write" on realtime.messages for insert to authenticated
  with check (exists (select 1 from public.room_members m
                      where m.room = realtime.topic() and m.user_id = auth.uid()));
`;

type Change = {
  eventType: string;
  new: Record<string, unknown>;
  old: Record<string, unknown>;
  schema: string;
  table: string;
  commit_timestamp: string;
  errors: unknown;
};

describe(`postgres_changes and private channels (${databaseKind()})`, () => {
  let server: RunningServer;
  const clients: SupabaseClient[] = [];
  const client = (token: string, vsn: '1.0.0' | '2.0.0' = '2.0.0') => {
    const c = realtimeClient(server, { token, vsn });
    clients.push(c);
    return c;
  };
  const insertTodo = async (owner: string, title: string) =>
    (
      await server.db.query<{ id: string }>(
        'insert into public.todos (owner_id, title, secret) values ($1, $2, $3) returning id',
        [owner, title, 'hidden'],
      )
    ).rows[0]?.id as string;
  const listen = (channel: RealtimeChannel, inbox: Inbox<Change>, filter: Record<string, string>) =>
    channel.on(
      'postgres_changes' as never,
      { schema: 'public', ...filter } as never,
      ((p: Change) => inbox.push(p)) as never,
    );

  beforeAll(async () => {
    const migrationsDir = await mkdtemp(join(tmpdir(), 'realtime-migrations-'));
    await writeFile(join(migrationsDir, '0001_schema.sql'), SCHEMA);
    server = await startTestServer({ migrationsDir });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.removeAllChannels()));
  });
  afterAll(() => server?.stop());

  for (const vsn of ['2.0.0', '1.0.0'] as const) {
    it(`delivers each user only the rows RLS lets it select, with allowed columns (vsn ${vsn})`, async () => {
      const [a, b] = [randomUUID(), randomUUID()];
      const inboxA = new Inbox<Change>();
      const inboxB = new Inbox<Change>();
      const chA = listen(client(await userToken(server, a), vsn).channel(uniqueTopic()), inboxA, {
        event: '*',
        table: 'todos',
      });
      const chB = listen(client(await userToken(server, b), vsn).channel(uniqueTopic()), inboxB, {
        event: 'INSERT',
        table: 'todos',
      });
      await Promise.all([subscribed(chA), subscribed(chB)]);

      const id = await insertTodo(a, 'for a');
      await inboxA.next(1);
      const change = inboxA.items[0] as Change;
      expect(change).toMatchObject({
        eventType: 'INSERT',
        schema: 'public',
        table: 'todos',
        new: { id: Number(id), owner_id: a, title: 'for a', done: false },
        old: {},
        errors: null,
      });
      expect(change.new).not.toHaveProperty('secret');
      expect(change.commit_timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

      await insertTodo(b, 'for b');
      await inboxB.next(1);
      expect(inboxB.items[0]?.new).toMatchObject({ owner_id: b, title: 'for b' });

      // UPDATE: old is the primary key only; DELETE on an RLS table: primary key only.
      await server.db.query("update public.todos set done = true, title = 'done' where id = $1", [
        id,
      ]);
      await inboxA.next(2);
      expect(inboxA.items[1]).toMatchObject({
        eventType: 'UPDATE',
        new: { id: Number(id), title: 'done', done: true },
        old: { id: Number(id) },
      });
      await server.db.query('delete from public.todos where id = $1', [id]);
      await inboxA.next(3);
      expect(inboxA.items[2]).toMatchObject({
        eventType: 'DELETE',
        new: {},
        old: { id: Number(id) },
      });
      expect(Object.keys(inboxA.items[2]?.old ?? {})).toEqual(['id']);

      await settle();
      // A never saw B's row, and B (INSERT only) saw neither A's row nor the update/delete.
      expect(inboxA.items.map((c) => c.new.owner_id ?? c.old.id)).not.toContain(b);
      expect(inboxA.items).toHaveLength(3);
      expect(inboxB.items).toHaveLength(1);
    });
  }

  it('applies filters (eq, neq, lt, lte, gt, gte, in, comma AND) and event types', async () => {
    const token = await userToken(server);
    const cases: [string, string, number[]][] = [
      ['eq', 'n=eq.3', [3]],
      ['neq', 'n=neq.3', [1, 5, 7]],
      ['lt', 'n=lt.3', [1]],
      ['lte', 'n=lte.3', [1, 3]],
      ['gt', 'n=gt.3', [5, 7]],
      ['gte', 'n=gte.5', [5, 7]],
      ['in', 'n=in.(1,7)', [1, 7]],
      ['and', 'n=gt.1,n=lt.7', [3, 5]],
    ];
    const base = 1000 + Math.floor(Math.random() * 1000) * 10;
    const inboxes = cases.map(() => new Inbox<Change>());
    const channel = client(token).channel(uniqueTopic());
    cases.forEach(([, filter], i) => {
      listen(channel, inboxes[i] as Inbox<Change>, { event: 'INSERT', table: 'notes', filter });
    });
    await subscribed(channel);
    for (const [i, n] of [1, 3, 5, 7].entries()) {
      await server.db.query('insert into public.notes (id, body, n) values ($1, $2, $3)', [
        base + i,
        'x',
        n,
      ]);
    }
    await server.db.query('update public.notes set body = $1 where id >= $2 and id < $3', [
      'y',
      base,
      base + 4,
    ]);
    for (const [i, [, , expected]] of cases.entries()) {
      const inbox = inboxes[i] as Inbox<Change>;
      await inbox.next(expected.length);
    }
    await settle();
    for (const [i, [name, , expected]] of cases.entries()) {
      const got = (inboxes[i] as Inbox<Change>).items;
      expect({
        name,
        n: got.map((c) => c.new.n),
        types: [...new Set(got.map((c) => c.eventType))],
      }).toEqual({
        name,
        n: expected,
        types: ['INSERT'],
      });
    }
  });

  it('never delivers a DELETE to a filter on a column outside the key (the old row holds only the key)', async () => {
    // As on the hosted realtime: with the default replica identity a deleted row is known by
    // its primary key only, so `owner_id=eq.…` cannot match it, and RLS cannot be checked on
    // a row that is gone. (This is why Drive's deletes never reached other devices while it
    // listened to postgres_changes filtered by owner; it now uses Broadcast from the database.)
    const owner = randomUUID();
    const inbox = new Inbox<Change>();
    const channel = listen(client(await userToken(server, owner)).channel(uniqueTopic()), inbox, {
      event: '*',
      table: 'todos',
      filter: `owner_id=eq.${owner}`,
    });
    await subscribed(channel);
    const first = await insertTodo(owner, 'first');
    await inbox.next(1);
    await server.db.query('delete from public.todos where id = $1', [first]);
    // Ordered after the delete on the same feed: once it is here, the delete would have been.
    await insertTodo(owner, 'second');
    await inbox.next(2);
    await settle();
    expect(inbox.items.map((c) => [c.eventType, c.new.title])).toEqual([
      ['INSERT', 'first'],
      ['INSERT', 'second'],
    ]);
  });

  it('sends full old rows for REPLICA IDENTITY FULL tables without RLS', async () => {
    const inbox = new Inbox<Change>();
    const channel = listen(client(await userToken(server)).channel(uniqueTopic()), inbox, {
      event: '*',
      table: 'notes',
      filter: 'body=eq.full',
    });
    await subscribed(channel);
    const id = 50_000 + Math.floor(Math.random() * 10_000);
    // Each step waits for its event: INSERT/UPDATE carry the row as re-selected at delivery.
    await server.db.query("insert into public.notes values ($1, 'full', 1)", [id]);
    await inbox.next(1);
    await server.db.query('update public.notes set n = 2 where id = $1', [id]);
    await inbox.next(2);
    await server.db.query('delete from public.notes where id = $1', [id]);
    await inbox.next(3);
    expect(inbox.items.map((c) => [c.eventType, c.new, c.old])).toEqual([
      ['INSERT', { id, body: 'full', n: 1 }, {}],
      ['UPDATE', { id, body: 'full', n: 2 }, { id, body: 'full', n: 1 }],
      ['DELETE', {}, { id, body: 'full', n: 2 }],
    ]);
    const left = await server.db.query('select count(*)::int as c from realtime.captured_rows');
    expect(left.rows[0]).toEqual({ c: 0 });
  });

  it('reports a hidden primary key (401) and a missing one (400) in errors, without data', async () => {
    const inbox = new Inbox<Change>();
    const channel = client(await userToken(server)).channel(uniqueTopic());
    listen(channel, inbox, { event: 'INSERT', table: 'secret_ids' });
    listen(channel, inbox, { event: 'INSERT', table: 'no_pk' });
    await subscribed(channel);
    await server.db.query("insert into public.secret_ids values (1, 'hidden')");
    await inbox.next(1);
    await server.db.query("insert into public.no_pk values ('x')");
    await inbox.next(2);
    expect(inbox.items.map((c) => [c.table, c.new, c.errors])).toEqual([
      ['secret_ids', {}, ['Error 401: Unauthorized']],
      ['no_pk', {}, ['Error 400: Bad Request, no primary key']],
    ]);
  });

  it('keeps capture triggers in step with the publication (event trigger)', async () => {
    const triggered = async () =>
      (
        await server.db.query<{ t: string }>(
          "select tgrelid::regclass::text as t from pg_trigger where tgname = 'realtime_capture' order by 1",
        )
      ).rows.map((r) => r.t);
    await server.db.exec('create table public.late (id int primary key)');
    expect(await triggered()).not.toContain('late');
    await server.db.exec('alter publication supabase_realtime add table public.late');
    expect(await triggered()).toContain('late');
    await server.db.exec('alter publication supabase_realtime drop table public.late');
    expect(await triggered()).not.toContain('late');
    expect(await triggered()).toEqual(expect.arrayContaining(['notes', 'todos']));
  });

  it('reports subscription problems as system messages', async () => {
    const systems = new Inbox<{ status: string; message: string; extension: string }>();
    const channel = client(await userToken(server)).channel(uniqueTopic());
    listen(channel, new Inbox<Change>(), { event: '*', table: 'unpublished' });
    channel.on('system', {}, (p) => systems.push(p as never));
    await subscribed(channel);
    await systems.next(1);
    expect(systems.items[0]).toMatchObject({ extension: 'postgres_changes', status: 'error' });
    expect(systems.items[0]?.message).toMatch(
      /^Unable to subscribe to changes with given parameters/,
    );

    const bad = client(await userToken(server)).channel(uniqueTopic());
    const badSystems = new Inbox<{ status: string; message: string }>();
    listen(bad, new Inbox<Change>(), { event: '*', table: 'notes', filter: 'n=foo.3' });
    bad.on('system', {}, (p) => badSystems.push(p as never));
    await subscribed(bad);
    await badSystems.next(1);
    expect(badSystems.items[0]).toMatchObject({
      status: 'error',
      message: 'Error parsing `filter` params: ["foo", "3"]',
    });
  });

  it('follows token refresh through realtime.setAuth, and closes on an expired token', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const c = client(await userToken(server, a));
    const inbox = new Inbox<Change>();
    const statuses = new Inbox<string>();
    const channel = listen(c.channel(uniqueTopic()), inbox, { event: 'INSERT', table: 'todos' });
    await new Promise<void>((resolve) =>
      channel.subscribe((status) => {
        statuses.push(status);
        if (status === 'SUBSCRIBED') resolve();
      }),
    );
    await insertTodo(a, 'a1');
    await inbox.next(1);
    await c.realtime.setAuth(await userToken(server, b));
    await settle(200);
    await insertTodo(a, 'a2');
    await insertTodo(b, 'b1');
    await inbox.next(2);
    await settle();
    expect(inbox.items.map((x) => x.new.title)).toEqual(['a1', 'b1']);

    const systems = new Inbox<{ status: string; message: string }>();
    channel.on('system', {}, (p) => systems.push(p as never));
    await c.realtime.setAuth(await userToken(server, b, { expiresIn: -5 }));
    await systems.next(1);
    expect(systems.items[0]).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/^Token has expired/),
    });
    await statuses.next(2);
    expect(statuses.items[1]).toBe('CLOSED');
  });

  it('authorises private channels through RLS on realtime.messages', async () => {
    const room = uniqueTopic('private');
    const [member1, member2, outsider] = [randomUUID(), randomUUID(), randomUUID()];
    await server.db.query('insert into public.room_members values ($1, $2), ($1, $3)', [
      room,
      member1,
      member2,
    ]);
    const heard = new Inbox<unknown>();
    const publicHeard = new Inbox<unknown>();
    const ch1 = client(await userToken(server, member1)).channel(room, {
      config: { private: true, broadcast: { ack: true } },
    });
    const ch2 = client(await userToken(server, member2))
      .channel(room, { config: { private: true } })
      .on('broadcast', { event: 'msg' }, (m) => heard.push(m));
    const publicSameName = client(await userToken(server, outsider))
      .channel(room)
      .on('broadcast', { event: 'msg' }, (m) => publicHeard.push(m));
    await Promise.all([subscribed(ch1), subscribed(ch2), subscribed(publicSameName)]);

    const denied = client(await userToken(server, outsider)).channel(room, {
      config: { private: true },
    });
    expect(await joinError(denied)).toBe(
      `Unauthorized: You do not have permissions to read from this Channel topic: ${room}`,
    );
    await denied.unsubscribe();

    expect(await ch1.send({ type: 'broadcast', event: 'msg', payload: { hi: 1 } })).toBe('ok');
    await heard.next(1);
    expect(heard.items[0]).toEqual({ type: 'broadcast', event: 'msg', payload: { hi: 1 } });

    // REST: an outsider may not write to the private topic; a member may.
    const single = (token: string) =>
      fetch(`${server.url}/realtime/v1/api/broadcast/${room}/events/msg?private=true`, {
        method: 'POST',
        headers: {
          apikey: server.anonKey,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ via: 'rest' }),
      });
    const refused = await single(await userToken(server, outsider));
    expect(refused.status).toBe(403);
    expect((await single(await userToken(server, member1))).status).toBe(202);
    await heard.next(2);
    expect(heard.items[1]).toEqual({ type: 'broadcast', event: 'msg', payload: { via: 'rest' } });
    // Broadcast from the database (private by default) reaches the members only.
    await server.db.query(`select realtime.send('{"db":1}'::jsonb, 'msg', $1)`, [room]);
    await heard.next(3);
    expect(heard.items[2]).toEqual({
      type: 'broadcast',
      event: 'msg',
      payload: { db: 1 },
      meta: { id: expect.any(String) },
    });
    await settle();
    expect(publicHeard.items).toEqual([]);
  });
});
