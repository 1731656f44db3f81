import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { writeProject } from '../functions/support';
import { databaseKind, startTestServer } from '../support/server';
import { until } from '../support/until';

// The hosted documentation's "schedule an edge function" recipe, as a project writes it: the
// project's key in Vault, a pg_cron job that posts to the function through pg_net, at the
// local stack's gateway address.
const MIGRATION = /* sql */ `
create extension if not exists pg_cron with schema pg_catalog;
create extension if not exists pg_net with schema extensions;
create table public.calls (id bigserial primary key, body jsonb not null);
alter table public.calls enable row level security;
`;

describe(`pg_cron jobs calling edge functions through pg_net (${databaseKind()})`, () => {
  let server: RunningServer;

  beforeAll(async () => {
    const migrationsDir = await mkdtemp(join(tmpdir(), 'cron-net-'));
    await writeFile(join(migrationsDir, '0001_cron_net.sql'), MIGRATION);
    // The function records what it was sent with the service role it was called with.
    const { functionsDir } = await writeProject({
      'record-call/index.ts': `
        Deno.serve(async (req: Request) => {
          const body = await req.json();
          const key = (req.headers.get('authorization') ?? '').replace(/^Bearer /, '');
          const res = await fetch(Deno.env.get('SUPABASE_URL') + '/rest/v1/calls', {
            method: 'POST',
            headers: { apikey: key, authorization: 'Bearer ' + key, 'content-type': 'application/json' },
            body: JSON.stringify({ body }),
          });
          return Response.json({ recorded: res.ok }, { status: res.ok ? 200 : 403 });
        });`,
    });
    server = await startTestServer({ migrationsDir, functionsDir });
    await server.db.query(`select vault.create_secret($1, 'service_role_key')`, [
      server.serviceRoleKey,
    ]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('runs the job, which reaches the function with the key from Vault, and records both', async () => {
    const { rows } = await server.db.query<{ jobid: string }>(
      `select cron.schedule('call-fn', '1 seconds', $$
         select net.http_post(
           url := 'http://host.docker.internal:54321/functions/v1/record-call',
           headers := jsonb_build_object(
             'Content-Type', 'application/json',
             'Authorization', 'Bearer ' || (select decrypted_secret from vault.decrypted_secrets where name = 'service_role_key')),
           body := jsonb_build_object('from', 'cron', 'at', now())
         ) as request_id
       $$)::text as jobid`,
    );
    const jobid = rows[0]?.jobid;
    const call = await until(async () => {
      const r = await server.db.query<{ body: { from: string } }>(
        'select body from public.calls order by id limit 1',
      );
      return r.rows[0];
    });
    expect(call.body.from).toBe('cron');
    // The job's run succeeded with the request's id; the function's answer is in pg_net's table.
    const run = await until(async () => {
      const r = await server.db.query<{ status: string; return_message: string }>(
        `select status, return_message from cron.job_run_details
          where jobid = $1::bigint and status = 'succeeded' order by runid limit 1`,
        [jobid],
      );
      return r.rows[0];
    });
    expect(run.return_message).toBe('1 row');
    const answer = await until(async () => {
      const r = await server.db.query<{ status_code: number; content: string }>(
        'select status_code, content from net._http_response where status_code is not null order by id limit 1',
      );
      return r.rows[0];
    });
    expect(answer.status_code).toBe(200);
    expect(JSON.parse(answer.content)).toEqual({ recorded: true });
    await server.db.query(`select cron.unschedule('call-fn')`);
  });

  it('records a refused call (a wrong key) as the function answered it, and the job stays healthy', async () => {
    await server.db.query(
      `select cron.schedule('call-fn-bad-key', '1 seconds', $$
         select net.http_post(
           url := 'http://host.docker.internal:54321/functions/v1/record-call',
           headers := '{"Content-Type":"application/json","Authorization":"Bearer not-a-key"}'::jsonb,
           body := '{"from":"bad"}'::jsonb)
       $$)`,
    );
    const answer = await until(async () => {
      const r = await server.db.query<{ status_code: number }>(
        `select r.status_code from net._http_response r
          where r.status_code = 401 limit 1`,
      );
      return r.rows[0];
    });
    expect(answer.status_code).toBe(401);
    const { rows } = await server.db.query<{ status: string }>(
      `select d.status from cron.job_run_details d join cron.job j using (jobid)
        where j.jobname = 'call-fn-bad-key' and d.status <> 'running' limit 1`,
    );
    expect(rows[0]?.status).toBe('succeeded');
    await server.db.query(`select cron.unschedule('call-fn-bad-key')`);
    const bad = await server.db.query("select 1 from public.calls where body->>'from' = 'bad'");
    expect(bad.rows).toEqual([]);
  });
});
