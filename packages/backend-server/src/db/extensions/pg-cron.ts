/**
 * `pg_cron`, the job scheduler hosted projects offer as Cron: the server's own SQL
 * implementation of its catalogue and API (version 1.6, the one hosted projects run), installed
 * as a real extension so `create extension pg_cron` (or `… with schema pg_catalog`, as the
 * hosted documentation writes it) works in a migration. The jobs are run by the server's
 * scheduler (src/cron/), which reads `cron.job` and records runs in `cron.job_run_details`.
 *
 * Same tables, columns, function signatures and errors as pg_cron: a malformed schedule is
 * `invalid schedule: <text>`, an unknown job `could not find valid entry for job …`. Each role
 * sees and changes its own jobs (row level security on `username`, as pg_cron), superusers all.
 */
import type { ProvidedExtension } from './provided';

/** The comment on `cron.job` by which the scheduler knows the catalogue is its own. */
export const CRON_MARK = 'pg_cron jobs, run by @app/backend-server';

const SCRIPT = /* sql */ `
create schema cron;
grant usage on schema cron to public;

create table cron.job (
  jobid bigserial primary key,
  schedule text not null,
  command text not null,
  nodename text not null default 'localhost',
  nodeport integer not null default coalesce(pg_catalog.inet_server_port(), 5432),
  database text not null default pg_catalog.current_database(),
  username text not null default current_user,
  active boolean not null default true,
  jobname text,
  constraint jobname_username_uniq unique (jobname, username)
);
comment on table cron.job is '${CRON_MARK}';
select pg_catalog.pg_extension_config_dump('cron.job', '');
select pg_catalog.pg_extension_config_dump('cron.job_jobid_seq', '');
grant select, insert, update, delete on cron.job to public;
grant usage on sequence cron.job_jobid_seq to public;
alter table cron.job enable row level security;
create policy cron_job_policy on cron.job using (username = current_user);

create table cron.job_run_details (
  jobid bigint,
  runid bigserial primary key,
  job_pid integer,
  database text,
  username text,
  command text,
  status text,
  return_message text,
  start_time timestamptz,
  end_time timestamptz
);
select pg_catalog.pg_extension_config_dump('cron.job_run_details', '');
select pg_catalog.pg_extension_config_dump('cron.job_run_details_runid_seq', '');
grant select, delete on cron.job_run_details to public;
alter table cron.job_run_details enable row level security;
create policy cron_job_run_details_policy on cron.job_run_details using (username = current_user);

-- The scheduler's own bookkeeping: the last due time each job was claimed for.
create table cron.job_claim (
  jobid bigint primary key,
  last_due timestamptz not null
);

-- A change to the jobs wakes the scheduler (a payload-less notification).
create function cron.job_changed() returns trigger
language plpgsql as $fn$
begin
  perform pg_catalog.pg_notify('cron_job_changed', '');
  return null;
end
$fn$;
create trigger cron_job_changed after insert or update or delete or truncate on cron.job
for each statement execute function cron.job_changed();

-- Checks one field of a cron schedule: lists of *, n, a-b, each with an optional /step.
create function cron.valid_field(field text, lo integer, hi integer, names text[]) returns boolean
language plpgsql immutable as $fn$
declare
  part text;
  m text[];
  a integer;
  b integer;
begin
  foreach part in array pg_catalog.string_to_array(lower(field), ',') loop
    m := pg_catalog.regexp_match(part, '^(\\*|[0-9a-z]+)(?:-([0-9a-z]+))?(?:/([0-9]+))?$');
    if m is null then return false; end if;
    if m[3] is not null and m[3]::integer < 1 then return false; end if;
    continue when m[1] = '*' and m[2] is null;
    if m[1] = '*' then return false; end if;
    a := coalesce(pg_catalog.array_position(names, m[1]) - 1 + lo, case when m[1] ~ '^[0-9]+$' then m[1]::integer end);
    b := coalesce(pg_catalog.array_position(names, m[2]) - 1 + lo, case when m[2] ~ '^[0-9]+$' then m[2]::integer end);
    if a is null or a < lo or a > hi then return false; end if;
    if m[2] is not null and (b is null or b < lo or b > hi) then return false; end if;
  end loop;
  return true;
end
$fn$;

-- pg_cron's schedule forms: '[1-59] seconds', five cron fields ($ = last day of the month
-- in the day field), or @yearly/@annually/@monthly/@weekly/@daily/@hourly/@reboot.
create function cron.check_schedule(schedule text) returns void
language plpgsql immutable as $fn$
declare
  f text[] := pg_catalog.regexp_split_to_array(pg_catalog.btrim(lower(schedule)), '\\s+');
  ok boolean;
begin
  if schedule ~* '^\\s*[0-9]+\\s+seconds?\\s*$' then
    ok := ((pg_catalog.regexp_match(schedule, '[0-9]+'))[1])::numeric between 1 and 59;
  elsif lower(pg_catalog.btrim(schedule)) in
      ('@yearly', '@annually', '@monthly', '@weekly', '@daily', '@hourly', '@reboot') then
    ok := true;
  else
    ok := pg_catalog.array_length(f, 1) = 5
      and cron.valid_field(f[1], 0, 59, '{}')
      and cron.valid_field(f[2], 0, 23, '{}')
      and (f[3] = '$' or cron.valid_field(f[3], 1, 31, '{}'))
      and cron.valid_field(f[4], 1, 12, '{jan,feb,mar,apr,may,jun,jul,aug,sep,oct,nov,dec}')
      and cron.valid_field(f[5], 0, 7, '{sun,mon,tue,wed,thu,fri,sat}');
  end if;
  if not coalesce(ok, false) then
    raise exception 'invalid schedule: %', schedule
      using hint = 'Use cron format (e.g. 5 4 * * *), or interval format ''[1-59] seconds''';
  end if;
end
$fn$;

create function cron.schedule(job_name text, schedule text, command text) returns bigint
language plpgsql as $fn$
declare
  id bigint;
begin
  perform cron.check_schedule(schedule);
  update cron.job j set schedule = $2, command = $3
   where j.jobname = $1 and j.username = current_user
  returning j.jobid into id;
  if id is null then
    insert into cron.job (schedule, command, jobname) values ($2, $3, $1) returning jobid into id;
  end if;
  return id;
end
$fn$;

create function cron.schedule(schedule text, command text) returns bigint
language plpgsql as $fn$
declare
  id bigint;
begin
  perform cron.check_schedule(schedule);
  insert into cron.job (schedule, command) values ($1, $2) returning jobid into id;
  return id;
end
$fn$;

create function cron.schedule_in_database(
  job_name text, schedule text, command text, database text,
  username text default null, active boolean default true
) returns bigint
language plpgsql as $fn$
declare
  id bigint;
begin
  perform cron.check_schedule(schedule);
  if not exists (select 1 from pg_catalog.pg_database d where d.datname = $4) then
    raise exception 'database "%" does not exist', $4;
  end if;
  if $5 is not null and $5 <> current_user and not (select rolsuper from pg_catalog.pg_roles where rolname = current_user) then
    raise exception 'must be superuser to create a job for another role';
  end if;
  insert into cron.job (schedule, command, jobname, database, username, active)
  values ($2, $3, $1, $4, coalesce($5, current_user), coalesce($6, true))
  on conflict on constraint jobname_username_uniq do update
    set schedule = excluded.schedule, command = excluded.command,
        database = excluded.database, active = excluded.active
  returning jobid into id;
  return id;
end
$fn$;

create function cron.unschedule(job_id bigint) returns boolean
language plpgsql as $fn$
begin
  delete from cron.job j where j.jobid = $1;
  if not found then
    raise exception 'could not find valid entry for job %', $1;
  end if;
  return true;
end
$fn$;

create function cron.unschedule(job_name text) returns boolean
language plpgsql as $fn$
begin
  delete from cron.job j where j.jobname = $1 and j.username = current_user;
  if not found then
    raise exception 'could not find valid entry for job ''%''', $1;
  end if;
  return true;
end
$fn$;

create function cron.alter_job(
  job_id bigint, schedule text default null, command text default null,
  database text default null, username text default null, active boolean default null
) returns void
language plpgsql as $fn$
begin
  if $2 is not null then perform cron.check_schedule($2); end if;
  if $4 is not null and not exists (select 1 from pg_catalog.pg_database d where d.datname = $4) then
    raise exception 'database "%" does not exist', $4;
  end if;
  update cron.job j set
    schedule = coalesce($2, j.schedule),
    command = coalesce($3, j.command),
    database = coalesce($4, j.database),
    username = coalesce($5, j.username),
    active = coalesce($6, j.active)
  where j.jobid = $1;
  if not found then
    raise exception 'Job % does not exist or you don''t own it', $1;
  end if;
end
$fn$;
`;

export const PG_CRON: ProvidedExtension = {
  name: 'pg_cron',
  version: '1.6',
  comment: 'Job scheduler for PostgreSQL',
  schema: 'pg_catalog',
  script: SCRIPT,
};
