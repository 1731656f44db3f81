import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TOKEN_HEADER } from '../../src/console/index';
import { type Clock, startCronScheduler } from '../../src/cron/scheduler';
import { PROVIDED_MARK } from '../../src/db/extensions/provided';
import { type RunningServer, startServer } from '../../src/server';
import { type Cluster, startCluster } from '../support/postgres-cluster';
import { pgCronTree } from '../support/real-pg-cron';
import { until } from '../support/until';

// The server on a PostgreSQL where Debian's real pg_cron is installed and preloaded (only in
// the `postgres` project, vitest.config.ts): `create extension pg_cron` installs the real one,
// its background worker runs the jobs, and the server's own scheduler stays idle. The cluster
// is started from an installation tree of its own (test/support/real-pg-cron.ts), so the
// other clusters keep the server's pg_cron.
//
// pg_cron 1.4 schedules by the minute: waiting for its worker to run a job is opt-in
// (CRON_REAL_RUN=1), not part of the suite.

const DATABASE = 'cron_real';

const MIGRATION = /* sql */ `
create extension pg_cron;
create table public.ticks (id bigserial primary key, at timestamptz default now());
`;

const tree = pgCronTree();
const skip = 'skip' in tree ? tree.skip : null;
if (skip) console.warn(`real pg_cron test skipped: ${skip}`);

describe.skipIf(skip)(`real pg_cron (postgres)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let cluster: Cluster;
  let server: RunningServer;
  let token: string;
  let assets: string;
  let manualRun: string | undefined;
  const warnings: string[] = [];

  beforeAll(async () => {
    if ('skip' in tree) return;
    cluster = await startCluster({
      bin: tree.bin,
      settings: { shared_preload_libraries: 'pg_cron', 'cron.database_name': DATABASE },
    });
    const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${DATABASE}`);
    await admin.end();
    const migrationsDir = mkdtempSync(join(tmpdir(), 'cron-real-'));
    writeFileSync(join(migrationsDir, '0001_cron.sql'), MIGRATION);
    assets = mkdtempSync(join(tmpdir(), 'console-assets-'));
    mkdirSync(join(assets, 'assets'));
    writeFileSync(join(assets, 'index.html'), '<!doctype html><title>console</title>');
    const warn = vi.spyOn(console, 'warn').mockImplementation((...args) => {
      warnings.push(args.join(' '));
    });
    try {
      server = await startServer({
        port: 0,
        databaseUrl: cluster.url.replace(/\/postgres$/, `/${DATABASE}`),
        migrationsDir,
        console: { assetsDir: assets },
      });
    } finally {
      warn.mockRestore();
    }
    token = new URL(server.consoleUrl ?? '').hash.replace('#token=', '');
  });

  afterAll(async () => {
    await server?.stop();
    cluster?.stop();
    if (assets) rmSync(assets, { recursive: true, force: true });
    if (!('skip' in tree)) tree.remove();
  });

  // biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers field by field
  const call = async (method: string, path: string, body?: unknown): Promise<[number, any]> => {
    const res = await fetch(`${server.url}/_console/api${path}`, {
      method,
      headers: { [TOKEN_HEADER]: token, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return [res.status, await res.json()];
  };

  it("installs Debian's pg_cron, not the server's, and its worker runs", async () => {
    const { rows } = await server.db.query(
      `select extversion from pg_extension where extname = 'pg_cron'`,
    );
    expect(rows).toEqual([{ extversion: expect.stringMatching(/^1\.4/) }]);
    // The server left the real control file alone and did not add its 1.6 script…
    if ('skip' in tree) return;
    const control = readFileSync(join(tree.extensionDir, 'pg_cron.control'), 'utf8');
    expect(control.startsWith(PROVIDED_MARK)).toBe(false);
    expect(control).toContain("module_pathname = '$libdir/pg_cron'");
    expect(existsSync(join(tree.extensionDir, 'pg_cron--1.6.sql'))).toBe(false);
    // …and did not warn that `create extension pg_cron` would fail.
    expect(warnings.filter((w) => w.includes('pg_cron'))).toEqual([]);
    // The launcher connects to cron.database_name (again a second after the database exists).
    const launcher = await until(async () => {
      const { rows } = await server.db.query<{ application_name: string }>(
        `select application_name from pg_stat_activity
          where backend_type = 'pg_cron launcher' and datname = current_database()`,
      );
      return rows[0];
    });
    expect(launcher.application_name).toBe('pg_cron scheduler');
  });

  it('schedules through the console SQL, lists the job in the Cron API; the server runs nothing', async () => {
    const [status, answer] = await call('POST', '/sql', {
      query: `select cron.schedule('tick', '* * * * *', $$insert into public.ticks default values$$) as jobid`,
    });
    expect(status).toBe(200);
    expect(answer.results[0].columns).toEqual(['jobid']);
    const jobid = String(answer.results[0].rows[0][0]);
    const [, list] = await call('GET', '/cron');
    expect(list.installed).toBe(true);
    expect(list.jobs).toEqual([
      expect.objectContaining({
        jobid,
        jobname: 'tick',
        schedule: '* * * * *',
        command: 'insert into public.ticks default values',
        active: true,
        lastRun: null,
      }),
    ]);
    expect(Date.parse(list.jobs[0].nextRun)).toBeGreaterThan(Date.now());

    // The catalogue is pg_cron's: no mark of the server's, no claim table of its scheduler.
    const catalogue = await server.db.query(
      `select obj_description('cron.job'::regclass, 'pg_class') as comment,
              to_regclass('cron.job_claim') as claims`,
    );
    expect(catalogue.rows).toEqual([{ comment: null, claims: null }]);
    // The server's scheduler, as started by the server, on this database: with a job due every
    // minute in cron.job, it loads none and arms no timer.
    const timers: number[] = [];
    const clock: Clock = {
      now: () => Date.now(),
      setTimeout: (_fn, ms) => timers.push(ms),
      clearTimeout: () => {},
    };
    const scheduler = await startCronScheduler(server.db, { clock });
    await scheduler.reload();
    await scheduler.stop();
    expect(timers).toEqual([]);
  });

  it("runs a job now from the console on pg_cron's tables", async () => {
    const [, list] = await call('GET', '/cron');
    const jobid = list.jobs[0].jobid;
    const [status, ran] = await call('POST', `/cron/jobs/${jobid}/run`);
    expect(status).toBe(200);
    expect(ran.run).toMatchObject({ status: 'succeeded', return_message: 'INSERT 0 1' });
    manualRun = ran.run.runid;
    const [, runs] = await call('GET', `/cron/jobs/${jobid}/runs`);
    expect(runs.map((r: { runid: string }) => r.runid)).toContain(ran.run.runid);
  });

  it.skipIf(!process.env.CRON_REAL_RUN)(
    "pg_cron's worker runs the job at the next minute (CRON_REAL_RUN=1)",
    async () => {
      const byWorker = async () => {
        const { rows } = await server.db.query<{ status: string; return_message: string }>(
          `select status, return_message, start_time::text from cron.job_run_details
            where runid <> $1::bigint and status in ('succeeded', 'failed')`,
          [manualRun ?? '0'],
        );
        return rows[0];
      };
      const run = await until(byWorker, 75_000);
      console.log(`pg_cron's worker ran the job: ${JSON.stringify(run)}`);
      expect(run).toMatchObject({ status: 'succeeded', return_message: 'INSERT 0 1' });
      const ticks = await server.db.query('select count(*)::int as n from public.ticks');
      expect(ticks.rows).toEqual([{ n: 2 }]);
    },
    90_000,
  );
});
