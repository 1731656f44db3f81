import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpDatabase } from '../../src/data/dump';
import { exportProject } from '../../src/data/portable';
import { MigrationError } from '../../src/db/index';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';

async function dirWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'migrations-'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

// The contrib extensions users ask for, as a migration creates them on a hosted project.
const CONTRIB = ['pg_trgm', 'unaccent', 'citext', 'hstore', 'ltree', 'uuid-ossp', 'pgcrypto'];

describe(`extensions through create extension (${databaseKind()})`, () => {
  let server: RunningServer;

  beforeAll(async () => {
    const migrationsDir = await dirWith({
      '0001_contrib.sql': CONTRIB.map(
        (name) => `create extension if not exists "${name}" with schema extensions;`,
      ).join('\n'),
      '0002_queues.sql': `create extension pgmq;
        select pgmq.create('jobs');
        select pgmq.create_unlogged('Fast');`,
    });
    server = await startTestServer({ migrationsDir });
  });
  afterAll(() => server?.stop());

  it('creates every contrib extension in a migration, and they work', async () => {
    const { rows } = await server.db.query<{ extname: string }>(
      `select extname from pg_extension where extname = any($1::text[]) order by extname`,
      [CONTRIB],
    );
    expect(rows.map((r) => r.extname)).toEqual([...CONTRIB].sort());
    // As a project's search path has it: extensions' operators found through `extensions`.
    const used = await server.db.transaction(async (tx) => {
      await tx.query(`set local search_path = public, extensions`);
      const { rows } = await tx.query(
        `select similarity('hello', 'hallo') > 0.3 as trgm, unaccent('Crème') as unaccented,
           'ABC'::citext = 'abc' as citext, ('a=>1'::hstore) -> 'a' as hstore,
           'a.b.c'::ltree <@ 'a.b' as ltree, length(uuid_generate_v4()::text) as uuid_len,
           encode(digest('x', 'sha256'), 'hex') as sha256`,
      );
      return rows;
    });
    expect(used[0]).toEqual({
      trgm: true,
      unaccented: 'Creme',
      citext: true,
      hstore: '1',
      ltree: true,
      uuid_len: 36,
      sha256: '2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881',
    });
  });

  it('refuses an extension the database cannot offer, naming it', async () => {
    const dir = await dirWith({ '0001_vector.sql': 'create extension vector;' });
    const { applyMigrations } = await import('../../src/db/index');
    const error = await applyMigrations(server.db, dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toMatch(
      /Migration 0001_vector\.sql failed: extension "vector" is not available/,
    );
  });

  it('installs pgmq as an extension with its version and schema', async () => {
    const { rows } = await server.db.query(
      `select e.extversion, n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace
       where e.extname = 'pgmq'`,
    );
    expect(rows).toEqual([{ extversion: '1.4.4', nspname: 'pgmq' }]);
    // Queues are exposed to clients only when pgmq_public is among the API's schemas.
    const { rows: exposed } = await server.db.query(
      `select to_regnamespace('pgmq_public') is not null as exposed`,
    );
    expect(exposed).toEqual([{ exposed: false }]);
    const { rows: queues } = await server.db.query(
      `select queue_name, is_partitioned, is_unlogged from pgmq.list_queues()`,
    );
    expect(queues).toEqual([
      { queue_name: 'fast', is_partitioned: false, is_unlogged: true },
      { queue_name: 'jobs', is_partitioned: false, is_unlogged: false },
    ]);
  });

  it('sends, reads with a visibility timeout, pops, archives and deletes', async () => {
    const q = server.db;
    await q.query(`select pgmq.create('work')`);
    const sent = await q.query<{ id: string }>(`select * from pgmq.send('work', '{"n": 1}') as id`);
    const batch = await q.query<{ id: string }>(
      `select * from pgmq.send_batch('work', array['{"n": 2}', '{"n": 3}', '{"n": 4}']::jsonb[]) as id`,
    );
    const ids = [...sent.rows, ...batch.rows].map((r) => Number(r.id));
    expect(ids).toEqual([1, 2, 3, 4]);
    await q.query(`select pgmq.send('work', '{"n": 5}', 3600)`);

    const read = await q.query(
      `select msg_id, read_ct, message, vt > now() + interval '25 seconds' as hidden
       from pgmq.read('work', 30, 2)`,
    );
    expect(read.rows).toEqual([
      { msg_id: '1', read_ct: 1, message: { n: 1 }, hidden: true },
      { msg_id: '2', read_ct: 1, message: { n: 2 }, hidden: true },
    ]);
    // Read messages stay invisible until their timeout; the delayed one is not visible yet.
    const next = await q.query(`select msg_id from pgmq.read('work', 0, 10)`);
    expect(next.rows).toEqual([{ msg_id: '3' }, { msg_id: '4' }]);
    // vt 0: visible again at once, with the read counted.
    const again = await q.query(`select msg_id, read_ct from pgmq.read('work', 30, 1)`);
    expect(again.rows).toEqual([{ msg_id: '3', read_ct: 2 }]);
    const filtered = await q.query(`select msg_id from pgmq.read('work', 30, 5, '{"n": 4}')`);
    expect(filtered.rows).toEqual([{ msg_id: '4' }]);

    expect((await q.query(`select pgmq.archive('work', 1::bigint) as ok`)).rows).toEqual([
      { ok: true },
    ]);
    expect((await q.query(`select pgmq.archive('work', 1::bigint) as ok`)).rows).toEqual([
      { ok: false },
    ]);
    expect((await q.query(`select pgmq.delete('work', 2::bigint) as ok`)).rows).toEqual([
      { ok: true },
    ]);
    expect(
      (await q.query(`select * from pgmq.delete('work', array[3, 999]::bigint[]) as id`)).rows,
    ).toEqual([{ id: '3' }]);
    const archived = await q.query(`select msg_id, message from pgmq.a_work`);
    expect(archived.rows).toEqual([{ msg_id: '1', message: { n: 1 } }]);

    await q.query(`select pgmq.set_vt('work', 4, 0)`);
    const popped = await q.query(`select msg_id, message from pgmq.pop('work')`);
    expect(popped.rows).toEqual([{ msg_id: '4', message: { n: 4 } }]);
    expect((await q.query(`select * from pgmq.pop('work')`)).rows).toEqual([]);

    const metrics = await q.query(
      `select queue_name, queue_length, total_messages from pgmq.metrics('work')`,
    );
    expect(metrics.rows).toEqual([{ queue_name: 'work', queue_length: '1', total_messages: '5' }]);
    const all = await q.query(`select queue_name from pgmq.metrics_all()`);
    expect(all.rows.map((r) => r.queue_name)).toEqual(['fast', 'jobs', 'work']);
    expect((await q.query(`select pgmq.purge_queue('work') as n`)).rows).toEqual([{ n: '1' }]);
    expect((await q.query(`select pgmq.drop_queue('work') as ok`)).rows).toEqual([{ ok: true }]);
    expect((await q.query(`select to_regclass('pgmq.q_work') as t`)).rows).toEqual([{ t: null }]);
  });

  it('dumps the extension, its queue list and the queues, as pg_dump would', async () => {
    const dump = Buffer.concat((await dumpDatabase(server.db)).chunks).toString('utf8');
    expect(dump).toContain('create extension if not exists "pgmq" with schema "pgmq";');
    expect(dump).toMatch(/COPY "pgmq"\."meta" \([^)]*\) FROM stdin;\n(fast|jobs)\t/);
    expect(dump).toMatch(/create table "pgmq"\."q_jobs"/i);
  });

  it('carries queues and their messages through export and import', async () => {
    await server.db.query(`select pgmq.send('jobs', '{"kept": true}')`);
    const backup = join(await mkdtemp(join(tmpdir(), 'queues-export-')), 'backup');
    await exportProject(server.db, server.storageDir, backup);
    const copy = await startTestServer({ importFile: backup });
    try {
      const { rows: queues } = await copy.db.query(`select queue_name from pgmq.list_queues()`);
      expect(queues.map((r) => r.queue_name)).toContain('jobs');
      const { rows } = await copy.db.query(
        `select message from pgmq.read('jobs', 30, 10) where message ? 'kept'`,
      );
      expect(rows).toEqual([{ message: { kept: true } }]);
      // The queue's identity goes on after the imported messages.
      const { rows: next } = await copy.db.query<{ id: string }>(
        `select pgmq.send('jobs', '{}') as id`,
      );
      const { rows: max } = await server.db.query<{ id: string }>(
        `select max(msg_id) as id from pgmq.q_jobs`,
      );
      expect(Number(next[0]?.id)).toBeGreaterThan(Number(max[0]?.id));
    } finally {
      await copy.stop();
    }
  });

  it("answers bad input with pgmq's errors", async () => {
    const q = server.db;
    await expect(q.query(`select pgmq.send('nope', '{}')`)).rejects.toMatchObject({
      code: '42P01',
      message: 'relation "pgmq.q_nope" does not exist',
    });
    await expect(q.query(`select * from pgmq.read('nope', 30, 1)`)).rejects.toMatchObject({
      code: '42P01',
    });
    await expect(q.query(`select pgmq.create('bad;name')`)).rejects.toMatchObject({
      message: "queue name contains invalid characters: $, ;, --, or \\'",
    });
    await expect(q.query(`select pgmq.create($1)`, ['x'.repeat(48)])).rejects.toMatchObject({
      message: 'queue name is too long, maximum length is 47 characters',
    });
    await expect(q.query(`select pgmq.drop_queue('nope')`)).rejects.toMatchObject({
      message: 'queue "nope" does not exist',
    });
    // Nothing else broke: the queues made by the migration still answer.
    expect((await q.query(`select pgmq.send('jobs', '{}') is not null as ok`)).rows).toEqual([
      { ok: true },
    ]);
  });
});
