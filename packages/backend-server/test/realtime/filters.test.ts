import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  postgresChangesFilter,
  type RealtimeChannel,
  type SupabaseClient,
} from '@supabase/supabase-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { Inbox, realtimeClient, uniqueTopic, userToken } from './support';

const SCHEMA = `
create table public.filtered (
  id int primary key,
  n int,
  t text,
  u uuid,
  ts timestamptz,
  b boolean
);
alter table public.filtered replica identity full;
alter publication supabase_realtime add table public.filtered;
`;

const U1 = '11111111-1111-4111-8111-111111111111';
const U2 = '22222222-2222-4222-8222-222222222222';

// [offset, n, t, u, ts, b] — ids are a per-test base + offset.
const ROWS: [number, number | null, string | null, string | null, string | null, boolean | null][] =
  [
    [1, 1, 'apple', U1, '2024-01-01T00:00:00Z', true],
    [2, 2, 'Banana', U2, '2024-06-01T00:00:00Z', false],
    [3, 3, 'c d', null, '2025-01-01T00:00:00Z', null],
    [4, null, null, null, null, true],
    [5, 5, 'a,b', U1, '2023-01-01T00:00:00Z', false],
    [6, 6, 'say "hi"', null, null, null],
  ];
const MARKER = 99;

type Change = { eventType: string; new: Record<string, unknown>; old: Record<string, unknown> };

describe(`postgres_changes filter operators (${databaseKind()})`, () => {
  let server: RunningServer;
  const clients: SupabaseClient[] = [];
  let nextBase = 0;

  beforeAll(async () => {
    const migrationsDir = await mkdtemp(join(tmpdir(), 'realtime-filters-'));
    await writeFile(join(migrationsDir, '0001_schema.sql'), SCHEMA);
    server = await startTestServer({ migrationsDir });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.removeAllChannels()));
  });
  afterAll(() => server?.stop());

  const channel = async () => {
    const c = realtimeClient(server, { token: await userToken(server) });
    clients.push(c);
    return c.channel(uniqueTopic());
  };

  /** Subscribes; resolves to the subscribe statuses and the `system` messages so far. */
  const subscribe = (ch: RealtimeChannel, systems: Inbox<{ status: string; message: string }>) => {
    ch.on('system', {}, (p) => systems.push(p as never));
    return new Promise<string[]>((resolve) => {
      const statuses: string[] = [];
      ch.subscribe((status) => {
        statuses.push(status);
        if (status !== 'CLOSED') resolve(statuses);
      });
    });
  };

  /**
   * Subscribes one binding per filter (plus one on the marker row), inserts the rows and then
   * the marker: deliveries are in commit order, so once the marker arrived every earlier
   * change has been delivered or never will be. Resolves to the row offsets each filter got.
   */
  async function received(filters: (string | ReturnType<typeof postgresChangesFilter>)[]) {
    nextBase += 1000;
    const base = nextBase + Math.floor(Math.random() * 1e6) * 1000;
    const ch = await channel();
    const inboxes = filters.map(() => new Inbox<Change>());
    filters.forEach((filter, i) => {
      ch.on(
        'postgres_changes' as never,
        { event: 'INSERT', schema: 'public', table: 'filtered', filter } as never,
        ((p: Change) => inboxes[i]?.push(p)) as never,
      );
    });
    const marker = new Inbox<Change>();
    ch.on(
      'postgres_changes' as never,
      {
        event: 'INSERT',
        schema: 'public',
        table: 'filtered',
        filter: `id=eq.${base + MARKER}`,
      } as never,
      ((p: Change) => marker.push(p)) as never,
    );
    const systems = new Inbox<{ status: string; message: string }>();
    expect(await subscribe(ch, systems)).toEqual(['SUBSCRIBED']);
    await systems.next(1);
    expect(systems.items[0]).toMatchObject({ status: 'ok', message: 'Subscribed to PostgreSQL' });
    for (const [offset, n, t, u, ts, b] of ROWS) {
      await server.db.query(
        'insert into public.filtered (id, n, t, u, ts, b) values ($1, $2, $3, $4, $5, $6)',
        [base + offset, n, t, u, ts, b],
      );
    }
    await server.db.query('insert into public.filtered (id) values ($1)', [base + MARKER]);
    await marker.next(1);
    return inboxes.map((inbox) =>
      inbox.items.map((c) => Number(c.new.id) - base).filter((offset) => offset !== MARKER),
    );
  }

  it('applies the comparison operators and in-lists on numbers, text, uuid and timestamps', async () => {
    const cases: [string, number[]][] = [
      ['n=eq.2', [2]],
      ['n=neq.2', [1, 3, 5, 6]],
      ['n=lt.3', [1, 2]],
      ['n=lte.3', [1, 2, 3]],
      ['n=gt.2', [3, 5, 6]],
      ['n=gte.2', [2, 3, 5, 6]],
      ['n=gt.1,n=lt.5', [2, 3]],
      ['n=in.(1,5)', [1, 5]],
      ['t=in.(apple,"c d","a,b")', [1, 3, 5]],
      ['t=eq."a,b"', [5]],
      ['t=eq."say \\"hi\\""', [6]],
      ['t=gt.c', [3, 6]],
      [`u=eq.${U2}`, [2]],
      [`u=in.(${U1},${U2})`, [1, 2, 5]],
      ['ts=gte.2024-06-01T00:00:00Z', [2, 3]],
      ['ts=lt.2024-03-01', [1, 5]],
      ['b=eq.false', [2, 5]],
      ['b=neq.true', [2, 5]],
    ];
    const got = await received(cases.map(([filter]) => filter));
    expect(cases.map(([filter], i) => [filter, got[i]])).toEqual(cases);
  });

  it('applies like, ilike, match, imatch, is, isdistinct and not. as PostgREST does', async () => {
    const cases: [string, number[]][] = [
      ['t=like.a%', [1, 5]],
      ['t=ilike.b%', [2]],
      ['t=match.^[a-c]', [1, 3, 5]],
      ['t=imatch.^B', [2]],
      ['t=is.null', [4]],
      ['t=not.is.null', [1, 2, 3, 5, 6]],
      ['b=is.true', [1, 4]],
      ['b=is.unknown', [3, 6]],
      ['n=isdistinct.2', [1, 3, 4, 5, 6]],
      ['n=not.isdistinct.2', [2]],
      ['n=not.eq.2', [1, 3, 5, 6]],
      ['n=not.in.(1,5)', [2, 3, 6]],
      ['t=not.like.a%', [2, 3, 6]],
    ];
    const got = await received(cases.map(([filter]) => filter));
    expect(cases.map(([filter], i) => [filter, got[i]])).toEqual(cases);
  });

  it('filters UPDATEs on the new row and DELETEs on the old row (replica identity full)', async () => {
    nextBase += 1000;
    const base = nextBase + Math.floor(Math.random() * 1e6) * 1000;
    for (const [offset, n, t, u, ts, b] of [
      ...ROWS,
      [MARKER, null, null, null, null, null] as (typeof ROWS)[number],
    ]) {
      await server.db.query(
        'insert into public.filtered (id, n, t, u, ts, b) values ($1, $2, $3, $4, $5, $6)',
        [base + offset, n, t, u, ts, b],
      );
    }
    const ch = await channel();
    const cases: [string, string][] = [
      ['UPDATE', 't=like.%!'],
      ['UPDATE', 'n=not.in.(1,2)'],
      ['DELETE', 't=ilike.A%'],
      ['DELETE', 'b=is.false'],
    ];
    const inboxes = cases.map(() => new Inbox<Change>());
    cases.forEach(([event, filter], i) => {
      ch.on(
        'postgres_changes' as never,
        { event, schema: 'public', table: 'filtered', filter } as never,
        ((p: Change) => inboxes[i]?.push(p)) as never,
      );
    });
    const marker = new Inbox<Change>();
    ch.on(
      'postgres_changes' as never,
      {
        event: '*',
        schema: 'public',
        table: 'filtered',
        filter: `id=eq.${base + MARKER}`,
      } as never,
      ((p: Change) => marker.push(p)) as never,
    );
    expect(await subscribe(ch, new Inbox())).toEqual(['SUBSCRIBED']);
    // Rows 1 and 3 get a "!": only they match like.%! afterwards.
    await server.db.query("update public.filtered set t = t || '!' where id = any($1::int[])", [
      [base + 1, base + 3],
    ]);
    // Updates are delivered before the rows go (delivery re-reads the row by its key).
    await server.db.query('update public.filtered set n = 0 where id = $1', [base + MARKER]);
    await marker.next(1);
    await server.db.query('delete from public.filtered where id >= $1 and id <= $2', [
      base + 1,
      base + 6,
    ]);
    await server.db.query('delete from public.filtered where id = $1', [base + MARKER]);
    await marker.next(2);
    const got = inboxes.map((inbox) =>
      inbox.items
        .map((c) => Number((c.eventType === 'DELETE' ? c.old : c.new).id) - base)
        .filter((offset) => offset !== MARKER)
        .sort((a, z) => a - z),
    );
    expect(got).toEqual([[1, 3], [3], [1, 5], [2, 5]]);
  });

  it("accepts realtime-js's filter builder (quoting reserved characters)", async () => {
    const got = await received([
      postgresChangesFilter().in('t', ['apple', 'a,b', 'say "hi"']),
      postgresChangesFilter().gte('n', 2).not('t', 'ilike', 'b%'),
      postgresChangesFilter().is('b', false),
    ]);
    expect(got).toEqual([
      [1, 5, 6],
      [3, 5, 6],
      [2, 5],
    ]);
  });

  it('refuses what the hosted service refuses: the join succeeds, a system message explains', async () => {
    const prefix =
      'Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: ';
    const cases: [string, string][] = [
      ['n=cs.{1}', 'Error parsing `filter` params: ["cs", "{1}"]'],
      ['n=in.1', 'Error parsing `filter` params: `in` filter value must be wrapped by parentheses'],
      [
        'nope=eq.1',
        `${prefix}[event: INSERT, schema: public, table: filtered, filters: [{"nope", "eq", "1", false}], select: nil]. Exception: ERROR P0001 (raise_exception) invalid column for filter nope`,
      ],
      ['n=eq.abc', 'invalid input syntax for type integer: "abc"'],
      ['u=in.(x)', 'invalid input syntax for type uuid: "x"'],
      ['n=like.1%', 'operator like requires a text-compatible column type, got integer'],
      ['n=is.true', 'is true filter requires a boolean column, got integer'],
      ['b=is.maybe', 'invalid value for is filter: must be null, true, false, or unknown'],
      ['t=match.(', 'invalid regular expression for match filter'],
      [
        `n=in.(${Array.from({ length: 101 }, (_, i) => i).join(',')})`,
        'too many values for `in` filter. Maximum 100',
      ],
    ];
    for (const [filter, message] of cases) {
      const ch = await channel();
      ch.on(
        'postgres_changes' as never,
        { event: 'INSERT', schema: 'public', table: 'filtered', filter } as never,
        (() => {}) as never,
      );
      const systems = new Inbox<{ status: string; message: string }>();
      expect(await subscribe(ch, systems)).toEqual(['SUBSCRIBED']);
      await systems.next(1);
      expect({ filter, status: systems.items[0]?.status }).toEqual({ filter, status: 'error' });
      expect(systems.items[0]?.message).toContain(message);
    }
  });
});
