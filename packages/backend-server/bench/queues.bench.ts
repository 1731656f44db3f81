/**
 * Queues (issue 25): pgmq send + read, messages per second, on PGlite and on a real
 * PostgreSQL 15, the same SQL through the server's database handle: each message sent by its
 * own `pgmq.send`, read and deleted by a consumer 100 at a time (the goal's figure); worker
 * loops sending, reading and deleting one message each (1 and 8 clients); everything in
 * batches of 100; and one bare round trip per message as the anchor. Engines are measured
 * in alternating slices so a neighbour's load on this shared machine weighs on both alike.
 * Goal: ≥ 2,000 messages/s on PGlite, and PGlite within 1.2× of PostgreSQL.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../src/db/index';
import { type RunningServer, startServer } from '../src/server';
import { startCluster } from '../test/support/postgres-cluster';

const MESSAGES = 2000;
const ROUNDS = 3;

function migrations(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-queues-'));
  writeFileSync(
    join(dir, '0001_queues.sql'),
    `create extension pgmq; select pgmq.create('bench');`,
  );
  return dir;
}

type Workload = (db: Database) => Promise<number>;

/**
 * `clients` worker loops, each: send one message, read one, delete what it read (a consumer
 * that never deletes leaves read messages in the table, which every later read scans past).
 */
const oneByOne =
  (clients: number): Workload =>
  async (db) => {
    let read = 0;
    const loop = async (count: number) => {
      for (let i = 0; i < count; i++) {
        await db.query(`select pgmq.send('bench', $1::text::jsonb)`, [JSON.stringify({ i })]);
        // With concurrent clients, the visible messages may all be another client's read
        // in progress (skip locked): read again until one comes.
        for (let tries = 0; tries < 100; tries++) {
          const { rows } = await db.query<{ msg_id: string }>(
            `select msg_id from pgmq.read('bench', 30, 1)`,
          );
          const [row] = rows;
          if (!row) continue;
          await db.query(`select pgmq.delete('bench', $1::bigint)`, [row.msg_id]);
          read += 1;
          break;
        }
      }
    };
    await Promise.all(Array.from({ length: clients }, () => loop(MESSAGES / clients)));
    return read;
  };

/** Each message sent by its own call; read and deleted by a consumer 100 at a time. */
const sendOneReadMany: Workload = async (db) => {
  let read = 0;
  for (let i = 0; i < MESSAGES; i++) {
    await db.query(`select pgmq.send('bench', $1::text::jsonb)`, [JSON.stringify({ i })]);
    if ((i + 1) % 100 === 0) read += await consume(db, 100);
  }
  return read;
};

async function consume(db: Database, n: number): Promise<number> {
  const { rows } = await db.query<{ ids: string[] }>(
    `select array_agg(msg_id) as ids from pgmq.read('bench', 30, $1)`,
    [n],
  );
  const ids = rows[0]?.ids ?? [];
  await db.query(`select pgmq.delete('bench', $1::bigint[])`, [ids]);
  return ids.length;
}

const batches: Workload = async (db) => {
  let read = 0;
  const batch = JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ i })));
  for (let i = 0; i < MESSAGES / 100; i++) {
    await db.query(
      `select pgmq.send_batch('bench', array(select jsonb_array_elements($1::text::jsonb)))`,
      [batch],
    );
    read += await consume(db, 100);
  }
  return read;
};

/** The anchor: one bare `select 1` round trip per message. */
const bareRoundTrips: Workload = async (db) => {
  for (let i = 0; i < MESSAGES; i++) await db.query('select 1');
  return MESSAGES;
};

/** Messages per second over ROUNDS slices of each engine, in turn. */
async function alternate(servers: RunningServer[], work: Workload): Promise<number[]> {
  const totals = servers.map(() => ({ messages: 0, ms: 0 }));
  for (const server of servers) await work(server.db); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, server] of servers.entries()) {
      await server.db.query(`select pgmq.purge_queue('bench')`);
      const t = performance.now();
      const read = await work(server.db);
      const ms = performance.now() - t;
      if (read !== MESSAGES) throw new Error(`read ${read} of ${MESSAGES} messages`);
      const total = totals[i] as { messages: number; ms: number };
      total.messages += MESSAGES;
      total.ms += ms;
    }
  }
  return totals.map((t) => t.messages / (t.ms / 1000));
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

export default async function bench() {
  const migrationsDir = migrations();
  const cluster = await startCluster();
  const pglite = await startServer({ port: 0, migrationsDir });
  const pg = await startServer({ port: 0, migrationsDir, databaseUrl: cluster.url });
  try {
    const cases: [string, Workload][] = [
      ['send each; read + delete 100 at a time', sendOneReadMany],
      ['send, read, delete each, 1 client     ', oneByOne(1)],
      ['send, read, delete each, 8 clients    ', oneByOne(8)],
      ['send_batch, read, delete 100 at a time', batches],
      ['anchor: one bare select 1 per message ', bareRoundTrips],
    ];
    console.log(`pgmq, ${MESSAGES} messages per slice, ${ROUNDS} slices per engine`);
    for (const [label, work] of cases) {
      const [lite = 0, postgres = 0] = await alternate([pglite, pg], work);
      console.log(
        `  ${label}  PGlite ${lite.toFixed(0).padStart(6)} msg/s  PostgreSQL 15 ${postgres.toFixed(0).padStart(6)} msg/s  PostgreSQL/PGlite ${(postgres / lite).toFixed(2)}×  (load average ${load()})`,
      );
      if (work === sendOneReadMany) {
        console.log(
          `  goal (send each, read 100 at a time): ≥ 2,000 msg/s on PGlite: ${lite >= 2000 ? 'met' : 'NOT met'}; within 1.2× of PostgreSQL: ${postgres / lite <= 1.2 ? 'met' : 'NOT met'}`,
        );
      }
    }
  } finally {
    await pglite.stop();
    await pg.stop();
    cluster.stop();
  }
}
