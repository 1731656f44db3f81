import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJobNow } from '../../src/cron/scheduler';
import { exportProject } from '../../src/data/portable';
import { type RunningServer, startServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { until } from '../support/until';

// A project's migration as written for a hosted project (the hosted documentation installs
// pg_cron in pg_catalog), with a job that counts its runs.
const MIGRATION = /* sql */ `
create extension pg_cron with schema pg_catalog;
create table public.ticks (id bigserial primary key, job text not null, at timestamptz default now());
select cron.schedule('tick-from-migration', '1 seconds', $$insert into public.ticks (job) values ('migration')$$);
`;

interface Run {
  status: string;
  return_message: string | null;
  start_time: string | null;
  end_time: string | null;
}

describe(`pg_cron (${databaseKind()})`, () => {
  let server: RunningServer;

  beforeAll(async () => {
    const migrationsDir = await mkdtemp(join(tmpdir(), 'cron-'));
    await writeFile(join(migrationsDir, '0001_cron.sql'), MIGRATION);
    server = await startTestServer({ migrationsDir });
  });
  afterAll(() => server?.stop());

  const runs = async (jobname: string) =>
    (
      await server.db.query<Run>(
        `select r.status, r.return_message, r.start_time::text, r.end_time::text
           from cron.job_run_details r join cron.job j using (jobid)
          where j.jobname = $1 order by r.runid`,
        [jobname],
      )
    ).rows;

  it('installs pg_cron in pg_catalog with the cron schema and its tables', async () => {
    const { rows } = await server.db.query(
      `select e.extversion, n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace
        where e.extname = 'pg_cron'`,
    );
    expect(rows).toEqual([{ extversion: '1.6', nspname: 'pg_catalog' }]);
    const job = await server.db.query(
      `select schedule, command, nodename, database = current_database() as here, username, active, jobname
         from cron.job where jobname = 'tick-from-migration'`,
    );
    expect(job.rows).toEqual([
      {
        schedule: '1 seconds',
        command: `insert into public.ticks (job) values ('migration')`,
        nodename: 'localhost',
        here: true,
        username: expect.any(String),
        active: true,
        jobname: 'tick-from-migration',
      },
    ]);
  });

  it('runs a job scheduled by a migration and records succeeded runs', async () => {
    const done = await until(async () => {
      const rows = await runs('tick-from-migration');
      return rows.filter((r) => r.status === 'succeeded').length >= 2 && rows;
    });
    const ok = done.filter((r) => r.status === 'succeeded');
    expect(ok[0]?.return_message).toBe('INSERT 0 1');
    expect(ok.every((r) => r.start_time && r.end_time && r.end_time >= r.start_time)).toBe(true);
    const ticks = await server.db.query<{ n: number }>(
      `select count(*)::int as n from public.ticks where job = 'migration'`,
    );
    expect(ticks.rows[0]?.n).toBeGreaterThanOrEqual(2);
  });

  it('schedules through SQL, records a failing command as failed, unschedules', async () => {
    const { rows } = await server.db.query<{ id: string }>(
      `select cron.schedule('broken', '1 seconds', 'select * from no_such_table') as id`,
    );
    expect(Number(rows[0]?.id)).toBeGreaterThan(0);
    const failed = await until(async () =>
      (await runs('broken')).find((r) => r.status === 'failed'),
    );
    expect(failed.return_message).toMatch(/relation "no_such_table" does not exist/);
    expect(failed.end_time).not.toBeNull();

    expect((await server.db.query(`select cron.unschedule('broken') as ok`)).rows).toEqual([
      { ok: true },
    ]);
    // A run that had already started when the job went away finishes; none starts after it.
    await new Promise((r) => setTimeout(r, 1500));
    const after = (
      await server.db.query<{ n: number }>(
        `select count(*)::int as n from cron.job_run_details where command = 'select * from no_such_table'`,
      )
    ).rows[0]?.n;
    await new Promise((r) => setTimeout(r, 2500));
    const later = (
      await server.db.query<{ n: number }>(
        `select count(*)::int as n from cron.job_run_details where command = 'select * from no_such_table'`,
      )
    ).rows[0]?.n;
    expect(later).toBe(after);
  });

  it('runs the two-argument form, and alter_job pauses, resumes and reschedules', async () => {
    const { rows } = await server.db.query<{ id: string }>(
      `select cron.schedule('2 seconds', $$insert into public.ticks (job) values ('anon')$$) as id`,
    );
    const id = rows[0]?.id as string;
    const count = async () =>
      (
        await server.db.query<{ n: number }>(
          `select count(*)::int as n from cron.job_run_details where jobid = $1::bigint and status = 'succeeded'`,
          [id],
        )
      ).rows[0]?.n ?? 0;
    await until(async () => (await count()) >= 1);

    await server.db.query(`select cron.alter_job($1::bigint, active := false)`, [id]);
    await new Promise((r) => setTimeout(r, 1000));
    const paused = await count();
    await new Promise((r) => setTimeout(r, 3000));
    expect(await count()).toBe(paused);

    await server.db.query(
      `select cron.alter_job($1::bigint, schedule := '1 seconds', active := true)`,
      [id],
    );
    expect(
      (
        await server.db.query(`select schedule, active from cron.job where jobid = $1::bigint`, [
          id,
        ])
      ).rows,
    ).toEqual([{ schedule: '1 seconds', active: true }]);
    await until(async () => (await count()) >= paused + 2);
    await server.db.query(`select cron.unschedule($1::bigint)`, [id]);
  });

  it('runs a job as its username', async () => {
    await server.db.exec(`
      create table public.whoami (name text);
      grant insert on public.whoami to authenticated;
      select cron.schedule_in_database('as-authenticated', '1 seconds',
        'insert into public.whoami values (current_user)', current_database(), 'authenticated');`);
    const who = await until(
      async () =>
        (await server.db.query<{ name: string }>(`select name from public.whoami`)).rows[0],
    );
    expect(who.name).toBe('authenticated');
    await server.db.query(
      `select cron.unschedule(jobid) from cron.job where jobname = 'as-authenticated'`,
    );
  });

  it("records pg_cron's return message, and runs several statements in one job", async () => {
    await server.db.query(`select cron.schedule('select-one', '1 seconds', 'select 1')`);
    await server.db.query(
      `select cron.schedule('two-inserts', '1 seconds', $$insert into public.ticks (job) values ('a'); insert into public.ticks (job) values ('b')$$)`,
    );
    const one = await until(async () =>
      (await runs('select-one')).find((r) => r.status === 'succeeded'),
    );
    expect(one.return_message).toBe('1 row');
    const two = await until(async () =>
      (await runs('two-inserts')).find((r) => r.status === 'succeeded'),
    );
    // PostgreSQL reports the last statement's status, as pg_cron; PGlite only its verb.
    expect(two.return_message).toBe(databaseKind() === 'postgres' ? 'INSERT 0 1' : 'INSERT');
    await server.db.query(`select cron.unschedule('select-one'), cron.unschedule('two-inserts')`);
    const { rows } = await server.db.query<{ job: string }>(
      `select distinct job from public.ticks where job in ('a', 'b') order by job`,
    );
    expect(rows).toEqual([{ job: 'a' }, { job: 'b' }]);
  });

  it('never starts a job again while its previous run is going', async () => {
    await server.db.query(`select cron.schedule('slow', '1 seconds', 'select pg_sleep(1.5)')`);
    const done = await until(async () => {
      const rows = (await runs('slow')).filter((r) => r.status === 'succeeded');
      return rows.length >= 3 && rows;
    });
    await server.db.query(`select cron.unschedule('slow')`);
    for (let i = 1; i < done.length; i++)
      expect(Date.parse(done[i]?.start_time as string)).toBeGreaterThanOrEqual(
        Date.parse(done[i - 1]?.end_time as string),
      );
  });

  it('starts one run of a job however many manual runs are asked for at once', async () => {
    // Paused, so only the manual runs below start it; on PostgreSQL they race on the pool's
    // connections, and the job's lock lets one of them through while it runs.
    const { rows } = await server.db.query<{ id: string }>(
      `select cron.schedule('manual', '0 0 1 1 *', 'select pg_sleep(0.5)')::text as id`,
    );
    const id = rows[0]?.id as string;
    await server.db.query('select cron.alter_job($1::bigint, active := false)', [id]);
    const started = await Promise.all(Array.from({ length: 4 }, () => runJobNow(server.db, id)));
    expect(started.filter((runid) => runid !== null)).toHaveLength(1);
    expect((await runs('manual')).map((r) => r.status)).toEqual(['succeeded']);
    await server.db.query(`select cron.unschedule('manual')`);
  });

  it.skipIf(databaseKind() === 'pglite')(
    'runs each due time once with two servers on one database',
    async () => {
      const replica = await startServer({ port: 0, databaseUrl: server.db.url as string });
      try {
        await server.db.query(
          `select cron.schedule('shared', '1 seconds', $$insert into public.ticks (job) values ('shared')$$)`,
        );
        await until(async () => (await runs('shared')).length >= 5);
      } finally {
        await replica.stop();
      }
      await server.db.query(`select cron.unschedule('shared')`);
      const { rows } = await server.db.query<{ second: string; n: number }>(
        `select date_trunc('second', start_time)::text as second, count(*)::int as n
           from cron.job_run_details r join cron.job j using (jobid)
          where j.jobname = 'shared' group by 1 having count(*) > 1`,
      );
      expect(rows).toEqual([]);
    },
  );

  it('carries jobs through export and import, and the copy runs them', async () => {
    const backup = join(await mkdtemp(join(tmpdir(), 'cron-export-')), 'backup');
    await exportProject(server.db, server.storageDir, backup);
    const copy = await startTestServer({ importFile: backup });
    try {
      const { rows } = await copy.db.query(
        `select jobname, schedule from cron.job where jobname = 'tick-from-migration'`,
      );
      expect(rows).toEqual([{ jobname: 'tick-from-migration', schedule: '1 seconds' }]);
      // A job keeps the database it names: on PostgreSQL the copy is a database of another
      // name, and its jobs move there with alter_job.
      await copy.db.query(
        `select cron.alter_job(jobid, database := current_database()) from cron.job
          where database <> current_database()`,
      );
      const since = (await copy.db.query<{ now: string }>(`select now()::text as now`)).rows[0]
        ?.now;
      await until(
        async () =>
          (
            await copy.db.query(
              `select 1 from cron.job_run_details where status = 'succeeded' and start_time > $1::timestamptz`,
              [since],
            )
          ).rows.length > 0,
      );
      // New jobs get ids after the imported ones.
      const { rows: next } = await copy.db.query<{ id: string }>(
        `select cron.schedule('after-import', '@daily', 'select 1') as id`,
      );
      const { rows: max } = await copy.db.query<{ id: string }>(
        `select max(jobid)::text as id from cron.job where jobname <> 'after-import'`,
      );
      expect(Number(next[0]?.id)).toBeGreaterThan(Number(max[0]?.id));
    } finally {
      await copy.stop();
    }
  });

  it("refuses a malformed schedule with pg_cron's error", async () => {
    for (const schedule of [
      'every minute',
      '0 seconds',
      '60 seconds',
      '* * * *',
      '61 * * * *',
      '* * 32 * *',
    ]) {
      await expect(
        server.db.query(`select cron.schedule('bad', $1, 'select 1')`, [schedule]),
      ).rejects.toThrow(`invalid schedule: ${schedule}`);
    }
    // The forms pg_cron accepts.
    for (const schedule of [
      '*/5 * * * *',
      '0 4 $ * *',
      '30 2 * * mon-fri',
      '@daily',
      '0 0 1,15 jan,jul *',
    ]) {
      await server.db.query(`select cron.schedule('good', $1, 'select 1')`, [schedule]);
    }
    await server.db.query(`select cron.unschedule('good')`);
    await expect(server.db.query(`select cron.alter_job(1, schedule := 'nope')`)).rejects.toThrow(
      'invalid schedule: nope',
    );
  });

  it("refuses unknown jobs with pg_cron's errors", async () => {
    await expect(server.db.query(`select cron.unschedule('no-such-job')`)).rejects.toThrow(
      "could not find valid entry for job 'no-such-job'",
    );
    await expect(server.db.query(`select cron.unschedule(987654)`)).rejects.toThrow(
      'could not find valid entry for job 987654',
    );
    await expect(server.db.query(`select cron.alter_job(987654, active := false)`)).rejects.toThrow(
      'Job 987654 does not exist',
    );
  });
});
