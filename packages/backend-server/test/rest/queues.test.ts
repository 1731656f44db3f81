import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { mintToken, USER_A, USER_B } from './fixture';

// A project's migration as written for a hosted project: pgmq, queues, and the API
// permissions and RLS policies the dashboard gives a queue's table.
const MIGRATION = /* sql */ `
create extension pgmq;
select pgmq.create('tasks');
select pgmq.create('internal');
grant select, insert, update, delete on pgmq.q_tasks, pgmq.a_tasks to authenticated;
alter table pgmq.q_tasks enable row level security;
alter table pgmq.a_tasks enable row level security;
create policy own_messages on pgmq.q_tasks for all to authenticated
  using (message ->> 'owner' = auth.uid()::text)
  with check (message ->> 'owner' = auth.uid()::text);
create policy own_archive on pgmq.a_tasks for all to authenticated
  using (message ->> 'owner' = auth.uid()::text)
  with check (message ->> 'owner' = auth.uid()::text);
`;

const options = (token?: string) => ({
  auth: { persistSession: false, autoRefreshToken: false },
  realtime: { transport: WebSocket as never },
  ...(token ? { global: { headers: { Authorization: `Bearer ${token}` } } } : {}),
});

describe(`Queues through pgmq_public and supabase-js (${databaseKind()})`, () => {
  let server: RunningServer;
  let service: SupabaseClient;
  let anon: SupabaseClient;
  let alice: SupabaseClient;
  let bob: SupabaseClient;

  beforeAll(async () => {
    const migrationsDir = await mkdtemp(join(tmpdir(), 'queues-'));
    await writeFile(join(migrationsDir, '0001_queues.sql'), MIGRATION);
    // As the local tooling exposes Queues: pgmq_public among the API's schemas.
    server = await startTestServer({
      migrationsDir,
      rest: { schemas: ['public', 'graphql_public', 'pgmq_public'] },
    });
    service = createClient(server.url, server.serviceRoleKey, options());
    anon = createClient(server.url, server.anonKey, options());
    alice = createClient(
      server.url,
      server.anonKey,
      options(await mintToken(server.jwtSecret, USER_A)),
    );
    bob = createClient(
      server.url,
      server.anonKey,
      options(await mintToken(server.jwtSecret, USER_B)),
    );
  });
  afterAll(() => server?.stop());

  const queues = (client: SupabaseClient) => client.schema('pgmq_public');

  it('sends, reads whole messages, pops, archives and deletes as the service role', async () => {
    const sent = await queues(service).rpc('send', {
      queue_name: 'internal',
      message: { job: 'a' },
    });
    expect(sent).toMatchObject({ error: null, data: [1] });
    const batch = await queues(service).rpc('send_batch', {
      queue_name: 'internal',
      messages: [{ job: 'b' }, { job: 'c' }, { job: 'd' }],
    });
    expect(batch).toMatchObject({ error: null, data: [2, 3, 4] });

    const read = await queues(service).rpc('read', {
      queue_name: 'internal',
      sleep_seconds: 30,
      n: 2,
    });
    expect(read.error).toBeNull();
    expect(read.data).toEqual([
      expect.objectContaining({ msg_id: 1, read_ct: 1, message: { job: 'a' } }),
      expect.objectContaining({ msg_id: 2, read_ct: 1, message: { job: 'b' } }),
    ]);
    const [first] = read.data as { enqueued_at: string; vt: string }[];
    expect(Object.keys(first ?? {}).sort()).toEqual([
      'enqueued_at',
      'message',
      'msg_id',
      'read_ct',
      'vt',
    ]);
    expect(Date.parse(first?.vt ?? '') - Date.now()).toBeGreaterThan(20_000);

    const popped = await queues(service).rpc('pop', { queue_name: 'internal' });
    expect(popped.data).toEqual([expect.objectContaining({ msg_id: 3, message: { job: 'c' } })]);
    expect(
      await queues(service).rpc('archive', { queue_name: 'internal', message_id: 1 }),
    ).toMatchObject({ data: true, error: null });
    expect(
      await queues(service).rpc('delete', { queue_name: 'internal', message_id: 2 }),
    ).toMatchObject({ data: true, error: null });
    expect(
      await queues(service).rpc('delete', { queue_name: 'internal', message_id: 2 }),
    ).toMatchObject({ data: false, error: null });
    const { rows } = await server.db.query(
      `select (select count(*) from pgmq.q_internal)::int as queued,
              (select count(*) from pgmq.a_internal)::int as archived`,
    );
    expect(rows).toEqual([{ queued: 1, archived: 1 }]);
  });

  it('lets a user reach only what the queue table grants and its policies allow', async () => {
    const mine = await queues(alice).rpc('send', {
      queue_name: 'tasks',
      message: { owner: USER_A, todo: 'write' },
    });
    expect(mine.error).toBeNull();
    await queues(bob).rpc('send', {
      queue_name: 'tasks',
      message: { owner: USER_B, todo: 'read' },
    });
    // A message in someone else's name: refused by the table's policy.
    const forged = await queues(bob).rpc('send', {
      queue_name: 'tasks',
      message: { owner: USER_A },
    });
    expect(forged.error).toMatchObject({ code: '42501' });

    const aliceRead = await queues(alice).rpc('read', {
      queue_name: 'tasks',
      sleep_seconds: 0,
      n: 10,
    });
    expect((aliceRead.data as { message: unknown }[]).map((m) => m.message)).toEqual([
      { owner: USER_A, todo: 'write' },
    ]);
    const bobPop = await queues(bob).rpc('pop', { queue_name: 'tasks' });
    expect((bobPop.data as { message: unknown }[]).map((m) => m.message)).toEqual([
      { owner: USER_B, todo: 'read' },
    ]);
    const id = (mine.data as number[])[0];
    expect(
      await queues(alice).rpc('archive', { queue_name: 'tasks', message_id: id }),
    ).toMatchObject({ data: true, error: null });

    // No grant on the queue's table: Postgres' permission error.
    const denied = await queues(anon).rpc('send', { queue_name: 'tasks', message: {} });
    expect(denied.error).toMatchObject({
      code: '42501',
      message: 'permission denied for table q_tasks',
    });
    expect(
      (await queues(alice).rpc('read', { queue_name: 'internal', sleep_seconds: 0, n: 1 })).error,
    ).toMatchObject({
      code: '42501',
    });
  });

  it("answers an unknown queue with pgmq's error", async () => {
    const { error, status } = await queues(service).rpc('send', {
      queue_name: 'nope',
      message: {},
    });
    expect(error).toMatchObject({
      code: '42P01',
      message: 'relation "pgmq.q_nope" does not exist',
    });
    expect(status).toBe(404);
    const read = await queues(service).rpc('read', { queue_name: 'nope', sleep_seconds: 1, n: 1 });
    expect(read.error).toMatchObject({ code: '42P01' });
  });
});
