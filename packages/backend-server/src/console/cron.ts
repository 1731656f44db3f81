/**
 * The console's Cron screen API (`/_console/api/cron`): pg_cron's jobs with their last and
 * next runs, a job's recent runs, run now (the scheduler's own run, src/cron/scheduler.ts),
 * pause/resume (`cron.alter_job`) and delete (`cron.unschedule`). Read and changed as the
 * database superuser, like the SQL screen.
 */
import { Hono } from 'hono';
import { nextDue, parseSchedule } from '../cron/schedule';
import { runJobNow } from '../cron/scheduler';
import type { Database } from '../db/index';
import type { AppEnv } from '../service-module';
import type { CronJob, CronResponse, CronRun, CronRunResponse } from './api-types';
import { badRequest, jsonBody, notFound, orPostgresError } from './http';

/** Timestamps as ISO 8601 texts, the same on both engines. */
const iso = (column: string) => `to_json(${column}) #>> '{}'`;

const INSTALLED_SQL = `select exists (select 1 from pg_extension where extname = 'pg_cron') as installed`;

const JOBS_SQL = /* sql */ `
  select j.jobid::text as jobid, j.jobname, j.schedule, j.command, j.database, j.username,
         j.active, r.status, ${iso('r.start_time')} as start_time, ${iso('r.end_time')} as end_time
    from cron.job j
    left join lateral (select status, start_time, end_time from cron.job_run_details d
                        where d.jobid = j.jobid order by d.runid desc limit 1) r on true
   order by j.jobid`;

const RUN_COLUMNS = /* sql */ `
  runid::text as runid, status, return_message,
  ${iso('start_time')} as start_time, ${iso('end_time')} as end_time,
  (extract(epoch from end_time - start_time) * 1000)::float8 as "durationMs"`;

const RUNS_SQL = /* sql */ `
  select ${RUN_COLUMNS} from cron.job_run_details
   where jobid = $1::bigint order by runid desc limit $2`;

/** Runs a job's page shows. */
const MAX_RUNS = 50;

type JobRow = Omit<CronJob, 'lastRun' | 'nextRun'> & {
  status: string | null;
  start_time: string | null;
  end_time: string | null;
};

function toJob(row: JobRow, now: number): CronJob {
  const { status, start_time, end_time, ...job } = row;
  const parsed = row.active ? parseSchedule(row.schedule) : null;
  const next = parsed ? nextDue(parsed, now) : null;
  return {
    ...job,
    lastRun: start_time === null && status === null ? null : { status, start_time, end_time },
    nextRun: next === null ? null : new Date(next).toISOString(),
  };
}

const jobIdOf = (text: string) => (/^\d{1,18}$/.test(text) ? text : null);

export function cronRoutes(db: Database): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const installed = async () =>
    (await db.query<{ installed: boolean }>(INSTALLED_SQL)).rows[0]?.installed === true;
  const exists = async (jobid: string) =>
    (await db.query('select 1 from cron.job where jobid = $1::bigint', [jobid])).rows.length > 0;

  routes.get('/', async (c) => {
    if (!(await installed())) return c.json({ installed: false, jobs: [] } satisfies CronResponse);
    const { rows } = await db.query<JobRow>(JOBS_SQL);
    const now = Date.now();
    return c.json({ installed: true, jobs: rows.map((r) => toJob(r, now)) } satisfies CronResponse);
  });

  // Every route below is about one job (`/jobs/:id` too): pg_cron must be there and the job must exist.
  routes.use('/jobs/:id/*', async (c, next) => {
    const jobid = jobIdOf(c.req.param('id') ?? '');
    if (!jobid) return badRequest(c, 'Not a job id.');
    if (!(await installed())) return notFound(c, 'pg_cron is not installed');
    if (!(await exists(jobid))) return notFound(c, `No job ${jobid}`);
    return next();
  });

  routes.get('/jobs/:id/runs', async (c) => {
    const { rows } = await db.query<CronRun>(RUNS_SQL, [c.req.param('id'), MAX_RUNS]);
    return c.json(rows satisfies CronRun[]);
  });

  routes.post('/jobs/:id/run', async (c) => {
    const runid = await runJobNow(db, c.req.param('id'));
    if (!runid) return c.json({ message: 'A run of this job is still going.' }, 409);
    const { rows } = await db.query<CronRun>(
      `select ${RUN_COLUMNS} from cron.job_run_details where runid = $1::bigint`,
      [runid],
    );
    return c.json({ run: rows[0] as CronRun } satisfies CronRunResponse);
  });

  routes.post('/jobs/:id/active', async (c) => {
    const body = await jsonBody(c);
    if (typeof body?.active !== 'boolean') return badRequest(c, 'Send {"active": true|false}.');
    const active = body.active;
    return orPostgresError(c, async () => {
      await db.query('select cron.alter_job($1::bigint, active => $2)', [
        c.req.param('id'),
        active,
      ]);
      return c.json({ active });
    });
  });

  routes.delete('/jobs/:id', (c) =>
    orPostgresError(c, async () => {
      await db.query('select cron.unschedule($1::bigint)', [c.req.param('id')]);
      return c.body(null, 204);
    }),
  );

  return routes;
}
