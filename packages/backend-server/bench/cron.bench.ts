/**
 * Cron (issue 25): how late a job scheduled every second (`'1 seconds'`) starts after its
 * second, on PGlite and on a real PostgreSQL 15 at the same time, through the server's own
 * scheduler. Two figures per run: when the run was claimed and recorded
 * (`cron.job_run_details.start_time`) and when the job's command itself ran (the
 * `clock_timestamp()` it inserts), each minus the whole second it was due. Also counts the
 * seconds that got no run. Goal: p95 ≤ 100 ms (over 5 minutes: `BENCH_CRON_SECONDS=300`;
 * the default run is 25 s, both engines side by side).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, startServer } from '../src/server';
import { startCluster } from '../test/support/postgres-cluster';

const SECONDS = Number(process.env.BENCH_CRON_SECONDS ?? 25);

function migrations(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cron-'));
  writeFileSync(
    join(dir, '0001_cron.sql'),
    `create extension pg_cron with schema pg_catalog;
     create table public.beats (at timestamptz not null default clock_timestamp());`,
  );
  return dir;
}

const quantile = (sorted: number[], q: number) =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number);

const summary = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return `p50 ${quantile(s, 0.5).toFixed(1)} ms  p95 ${quantile(s, 0.95).toFixed(1)} ms  max ${(s.at(-1) ?? Number.NaN).toFixed(1)} ms`;
};

async function measure(
  server: RunningServer,
): Promise<{ recorded: number[]; ran: number[]; missed: number }> {
  const since = new Date().toISOString();
  await server.db.query(
    `select cron.schedule('beat', '1 seconds', 'insert into public.beats default values')`,
  );
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  await server.db.query(`select cron.unschedule('beat')`);
  const late = async (sql: string) =>
    (await server.db.query<{ ms: number }>(sql, [since])).rows.map((r) => Number(r.ms));
  const recorded = await late(
    `select extract(epoch from start_time - date_trunc('second', start_time)) * 1000 as ms
       from cron.job_run_details where start_time > $1::timestamptz and status = 'succeeded'`,
  );
  const ran = await late(
    `select extract(epoch from at - date_trunc('second', at)) * 1000 as ms
       from public.beats where at > $1::timestamptz`,
  );
  // The first second after scheduling and the last before unscheduling may fall either way.
  const missed = Math.max(0, SECONDS - 2 - ran.length);
  return { recorded, ran, missed };
}

export default async function bench() {
  const migrationsDir = migrations();
  const cluster = await startCluster();
  const pglite = await startServer({ port: 0, migrationsDir });
  const pg = await startServer({ port: 0, migrationsDir, databaseUrl: cluster.url });
  try {
    console.log(`pg_cron, a '1 seconds' job for ${SECONDS} s on each engine (side by side)`);
    const results = await Promise.all([measure(pglite), measure(pg)]);
    for (const [label, r] of [
      ['PGlite       ', results[0]],
      ['PostgreSQL 15', results[1]],
    ] as const) {
      const p95 = quantile(
        [...r.recorded].sort((a, b) => a - b),
        0.95,
      );
      console.log(
        `  ${label}  run recorded after its second: ${summary(r.recorded)}  (${r.recorded.length} runs, ${r.missed} seconds missed)`,
      );
      console.log(`  ${label}  command ran after its second:  ${summary(r.ran)}`);
      console.log(
        `  ${label}  goal p95 ≤ 100 ms: ${p95 <= 100 ? 'met' : 'NOT met'}  (load average ${loadavg()
          .map((x) => x.toFixed(2))
          .join(' ')})`,
      );
    }
  } finally {
    await pglite.stop();
    await pg.stop();
    cluster.stop();
  }
}
