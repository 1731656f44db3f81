import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { StartServerOptions } from '../../src/config/index';
import { type RunningServer, startServer } from '../../src/server';
import { databaseKind } from '../support/server';
import { Inbox, RawSocket, realtimeClient, socketUrl, uniqueTopic, userToken } from './support';

/** Storage that survives a restart: a PGlite data dir, or a database on the run's cluster. */
async function persistentDatabase(): Promise<{
  options: StartServerOptions;
  drop(): Promise<void>;
}> {
  const adminUrl = inject('postgresAdminUrl');
  if (!adminUrl) {
    return {
      options: { dataDir: await mkdtemp(join(tmpdir(), 'realtime-data-')) },
      drop: async () => {},
    };
  }
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  return {
    options: { databaseUrl: adminUrl.replace(/\/postgres$/, `/${name}`) },
    async drop() {
      const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await sql.unsafe(`drop database if exists ${name} with (force)`);
      await sql.end();
    },
  };
}

type Change = { eventType: string; new: Record<string, unknown> };

const IDLE_TIMEOUT_MS = 2000;

describe(`realtime across a server restart, and idle sockets (${databaseKind()})`, () => {
  let server: RunningServer | null = null;
  let drop: () => Promise<void> = async () => {};
  afterAll(async () => {
    await server?.stop();
    await drop();
  });

  it('clients reconnect, rejoin and receive later events after a restart (same port and data); old database broadcasts are pruned', async () => {
    const db = await persistentDatabase();
    drop = db.drop;
    const migrationsDir = await mkdtemp(join(tmpdir(), 'realtime-migrations-'));
    await writeFile(
      join(migrationsDir, '0001.sql'),
      `create table public.items (id int primary key, label text);
       alter publication supabase_realtime add table public.items;`,
    );
    const options: StartServerOptions = {
      ...db.options,
      migrationsDir,
      realtime: { idleTimeoutMs: IDLE_TIMEOUT_MS },
    };
    server = await startServer({ port: 0, ...options });
    const port = Number(new URL(server.url).port);
    // Quick reconnect attempts: an upgrade that reaches the restarted server before its
    // services are up waits for them rather than going unanswered.
    const client = realtimeClient(server, {
      token: await userToken(server),
      heartbeatIntervalMs: 500,
      reconnectAfterMs: 300,
    });
    const changes = new Inbox<Change>();
    const joins = new Inbox<string>();
    const channel = client
      .channel(uniqueTopic())
      .on(
        'postgres_changes' as never,
        { event: 'INSERT', schema: 'public', table: 'items' } as never,
        ((p: Change) => changes.push(p)) as never,
      );
    channel.subscribe((status) => {
      if (status === 'SUBSCRIBED') joins.push(status);
    });
    await joins.next(1);
    await server.db.query("insert into public.items values (1, 'before')");
    await changes.next(1);

    // Database broadcasts are kept 72 hours, as on the hosted service: older ones go at start.
    await server.db.query(
      `insert into realtime.messages (topic, extension, payload, event, inserted_at)
       values ('kept', 'broadcast', null, 'x', localtimestamp - interval '71 hours'),
              ('pruned', 'broadcast', null, 'x', localtimestamp - interval '73 hours')`,
    );

    await server.stop();
    server = await startServer({ port, ...options });
    const { rows: messages } = await server.db.query<{ topic: string }>(
      "select topic from realtime.messages where topic in ('kept', 'pruned')",
    );
    expect(messages).toEqual([{ topic: 'kept' }]);
    await joins.next(2, 15_000);
    await server.db.query("insert into public.items values (2, 'after')");
    await changes.next(2);
    expect(changes.items.map((c) => c.new)).toEqual([
      { id: 1, label: 'before' },
      { id: 2, label: 'after' },
    ]);
    await client.removeAllChannels();
  }, 40_000);

  it('closes a socket that sends nothing for the idle timeout; heartbeats keep it open', async () => {
    const current = server as RunningServer;
    const url = socketUrl(current, `apikey=${current.anonKey}&vsn=2.0.0`);
    // Started before the sockets open, so it fires before the server's idle timer of the same
    // length (the server runs in this process, on this event loop).
    let idlePassed = false;
    setTimeout(() => {
      idlePassed = true;
    }, IDLE_TIMEOUT_MS);
    const [silent, beating] = await Promise.all([RawSocket.open(url), RawSocket.open(url)]);
    const timer = setInterval(
      () => beating.send([null, String(++beating.ref), 'phoenix', 'heartbeat', {}]),
      400,
    );
    const closed = await new Promise<{ code: number; reason: string }>((resolve) =>
      silent.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    expect(closed).toEqual({ code: 1000, reason: 'idle timeout' });
    expect(idlePassed).toBe(true);
    await new Promise((r) => setTimeout(r, 800));
    expect(beating.ws.readyState).toBe(beating.ws.OPEN);
    clearInterval(timer);
    beating.close();
  });
});
