import { useBackendMutation, useBackendQuery } from '@app/backend-react';
import type {
  CronJob,
  CronResponse,
  CronRun,
  CronRunResponse,
} from '@app/backend-server/console-api';
import { ErrorText } from '../components/ErrorText';
import { useConsole } from '../lib/context';
import { duration, when } from '../lib/format';
import { Link, navigate } from '../lib/router';

/** The console's poll of jobs and runs, so scheduled runs show as they happen. */
const POLL_MS = 2000;

const jobName = (job: CronJob) => job.jobname ?? `job ${job.jobid}`;

/** pg_cron's jobs (last and next run, run now, pause/resume, delete) and a job's runs. */
export default function Cron({ path }: { path: string }) {
  const { api } = useConsole();
  const cron = useBackendQuery(['cron'], () => api.get<CronResponse>('/cron'), {
    refetchInterval: POLL_MS,
  });
  const selected = cron.data?.jobs.find((j) => j.jobid === path) ?? null;
  return (
    <section aria-labelledby="cron-heading">
      <h1 id="cron-heading">Cron</h1>
      <ErrorText error={cron.error} />
      {cron.data && !cron.data.installed && <NotInstalled />}
      {cron.data?.installed && (
        <>
          <Jobs jobs={cron.data.jobs} selected={path} />
          {selected ? (
            <Runs key={selected.jobid} job={selected} />
          ) : (
            path !== '' && <p className="muted">No job {path}.</p>
          )}
        </>
      )}
    </section>
  );
}

function NotInstalled() {
  return (
    <div className="note">
      <p>
        pg_cron is not installed in this database. Scheduled jobs come with it: create it in a
        migration, then schedule jobs with <code>cron.schedule</code>.
      </p>
      <pre>
        {`create extension if not exists pg_cron with schema pg_catalog;

select cron.schedule('nightly-cleanup', '0 3 * * *',
  $$delete from public.events where created_at < now() - interval '30 days'$$);`}
      </pre>
    </div>
  );
}

function Jobs({ jobs, selected }: { jobs: CronJob[]; selected: string }) {
  const { api } = useConsole();
  const invalidates = [['cron']];
  const run = useBackendMutation(
    (job: CronJob) => api.post<CronRunResponse>(`/cron/jobs/${job.jobid}/run`, {}),
    // The run shows among the job's runs.
    { invalidates, onSuccess: (_data, job) => navigate(`cron/${job.jobid}`) },
  );
  const toggle = useBackendMutation(
    (job: CronJob) => api.post(`/cron/jobs/${job.jobid}/active`, { active: !job.active }),
    { invalidates },
  );
  const remove = useBackendMutation((job: CronJob) => api.delete(`/cron/jobs/${job.jobid}`), {
    invalidates,
    onSuccess: (_data, job) => {
      if (job.jobid === selected) navigate('cron');
    },
  });
  const busy = run.isPending || toggle.isPending || remove.isPending;
  return (
    <>
      <ErrorText error={run.error ?? toggle.error ?? remove.error} />
      <div className="scroll-x">
        <table className="grid">
          <caption>Jobs</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Schedule</th>
              <th scope="col">Command</th>
              <th scope="col">Active</th>
              <th scope="col">Last run</th>
              <th scope="col">Next run</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((job) => (
              <tr key={job.jobid}>
                <td>
                  <Link
                    to={`cron/${job.jobid}`}
                    aria-current={job.jobid === selected ? 'page' : undefined}
                  >
                    {jobName(job)}
                  </Link>
                  <span className="tag">{job.username}</span>
                </td>
                <td>
                  <code>{job.schedule}</code>
                </td>
                <td>
                  <code>{job.command}</code>
                </td>
                <td>{job.active ? 'yes' : 'paused'}</td>
                <td>
                  {job.lastRun
                    ? `${job.lastRun.status ?? '?'} · ${when(job.lastRun.start_time)}`
                    : '—'}
                </td>
                <td>{when(job.nextRun)}</td>
                <td className="nowrap">
                  <button type="button" disabled={busy} onClick={() => run.mutate(job)}>
                    Run now<span className="visually-hidden"> {jobName(job)}</span>
                  </button>{' '}
                  <button type="button" disabled={busy} onClick={() => toggle.mutate(job)}>
                    {job.active ? 'Pause' : 'Resume'}
                    <span className="visually-hidden"> {jobName(job)}</span>
                  </button>{' '}
                  <button
                    type="button"
                    className="danger"
                    disabled={busy}
                    onClick={() => {
                      if (confirm(`Delete the job ${jobName(job)}?`)) remove.mutate(job);
                    }}
                  >
                    Delete<span className="visually-hidden"> {jobName(job)}</span>
                  </button>
                </td>
              </tr>
            ))}
            {jobs.length === 0 && (
              <tr>
                <td colSpan={7} className="muted">
                  No jobs yet: <code>select cron.schedule('name', '*/5 * * * *', $$…$$)</code>
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </>
  );
}

function Runs({ job }: { job: CronJob }) {
  const { api } = useConsole();
  const runs = useBackendQuery(
    ['cron', 'runs', job.jobid],
    () => api.get<CronRun[]>(`/cron/jobs/${job.jobid}/runs`),
    { refetchInterval: POLL_MS },
  );
  return (
    <section aria-labelledby="runs-heading" className="card">
      <h2 id="runs-heading">Runs of {jobName(job)}</h2>
      <ErrorText error={runs.error} />
      <div className="scroll-x">
        <table className="grid">
          <caption className="visually-hidden">Runs of {jobName(job)}, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Status</th>
              <th scope="col">Message</th>
              <th scope="col">Started</th>
              <th scope="col">Ended</th>
              <th scope="col">Duration</th>
            </tr>
          </thead>
          <tbody>
            {runs.data?.map((r) => (
              <tr key={r.runid}>
                <td>{r.runid}</td>
                <td>{r.status}</td>
                <td>{r.return_message}</td>
                <td>{when(r.start_time)}</td>
                <td>{when(r.end_time)}</td>
                <td>{duration(r.durationMs)}</td>
              </tr>
            ))}
            {runs.data?.length === 0 && (
              <tr>
                <td colSpan={6} className="muted">
                  No runs yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
