/**
 * `pgmq`, the message queue extension hosted projects offer as Queues: the server's own SQL
 * implementation of its API (version 1.4.4, the one hosted projects run), installed as a
 * real extension so `create extension pgmq` works in a migration (see ./README.md).
 *
 * Each queue is a table `pgmq.q_<name>` with its archive `pgmq.a_<name>`, recorded in
 * `pgmq.meta`. Queue names are lower-cased, as pgmq does; an unknown queue is Postgres'
 * `relation "pgmq.q_<name>" does not exist` (42P01), as with pgmq.
 */
import type { ProvidedExtension } from './provided';

const SCRIPT = /* sql */ `
create table pgmq.meta (
  queue_name varchar unique not null,
  is_partitioned boolean not null,
  is_unlogged boolean not null,
  created_at timestamptz not null default now()
);
-- Its rows are project data: dumps carry them.
select pg_catalog.pg_extension_config_dump('pgmq.meta', '');
grant select on table pgmq.meta to public;

create type pgmq.message_record as (
  msg_id bigint,
  read_ct integer,
  enqueued_at timestamptz,
  vt timestamptz,
  message jsonb
);

create type pgmq.queue_record as (
  queue_name varchar,
  is_partitioned boolean,
  is_unlogged boolean,
  created_at timestamptz
);

create type pgmq.metrics_result as (
  queue_name text,
  queue_length bigint,
  newest_msg_age_sec integer,
  oldest_msg_age_sec integer,
  total_messages bigint,
  scrape_time timestamptz
);

-- The table of a queue ('q') or of its archive ('a'), after pgmq's checks on the name.
create function pgmq.format_table_name(queue_name text, prefix text) returns text
language plpgsql immutable as $fn$
begin
  if queue_name ~ '\\$|;|--|''' then
    raise exception 'queue name contains invalid characters: $, ;, --, or \\''';
  end if;
  return lower(prefix || '_' || queue_name);
end
$fn$;

create function pgmq.validate_queue_name(queue_name text) returns void
language plpgsql immutable as $fn$
begin
  if length(queue_name) > 47 then
    raise exception 'queue name is too long, maximum length is 47 characters';
  end if;
end
$fn$;

create function pgmq._create(queue_name text, unlogged boolean) returns void
language plpgsql as $fn$
declare
  q text := pgmq.format_table_name(queue_name, 'q');
  a text := pgmq.format_table_name(queue_name, 'a');
begin
  perform pgmq.validate_queue_name(queue_name);
  execute format(
    'create %s table if not exists pgmq.%I (
       msg_id bigint primary key generated always as identity,
       read_ct integer not null default 0,
       enqueued_at timestamptz not null default now(),
       vt timestamptz not null,
       message jsonb)',
    case when unlogged then 'unlogged' else '' end, q);
  execute format(
    'create table if not exists pgmq.%I (
       msg_id bigint primary key,
       read_ct integer not null default 0,
       enqueued_at timestamptz not null default now(),
       archived_at timestamptz not null default now(),
       vt timestamptz not null,
       message jsonb)', a);
  execute format('create index if not exists %I on pgmq.%I (vt asc)', q || '_vt_idx', q);
  execute format('create index if not exists %I on pgmq.%I (archived_at)', 'archived_at_idx_' || queue_name, a);
  insert into pgmq.meta (queue_name, is_partitioned, is_unlogged)
  values (lower(_create.queue_name), false, unlogged)
  on conflict on constraint meta_queue_name_key do nothing;
end
$fn$;

create function pgmq."create"(queue_name text) returns void
language sql as $fn$ select pgmq._create(queue_name, false) $fn$;

create function pgmq.create_non_partitioned(queue_name text) returns void
language sql as $fn$ select pgmq._create(queue_name, false) $fn$;

create function pgmq.create_unlogged(queue_name text) returns void
language sql as $fn$ select pgmq._create(queue_name, true) $fn$;

create function pgmq.create_partitioned(
  queue_name text,
  partition_interval text default '10000',
  retention_interval text default '100000'
) returns void
language plpgsql as $fn$
begin
  raise exception 'pg_partman is required for partitioned queues'
    using hint = 'Partitioned queues are not available on this server; use pgmq.create.';
end
$fn$;

create function pgmq.drop_queue(queue_name text) returns boolean
language plpgsql as $fn$
begin
  if not exists (select 1 from pgmq.meta m where m.queue_name = lower(drop_queue.queue_name)) then
    raise exception 'queue "%" does not exist', queue_name;
  end if;
  execute format('drop table if exists pgmq.%I', pgmq.format_table_name(queue_name, 'q'));
  execute format('drop table if exists pgmq.%I', pgmq.format_table_name(queue_name, 'a'));
  delete from pgmq.meta m where m.queue_name = lower(drop_queue.queue_name);
  return true;
end
$fn$;

create function pgmq.detach_archive(queue_name text) returns void
language plpgsql as $fn$
begin
  -- Queue tables are not members of the extension here, so there is nothing to detach.
  perform pgmq.format_table_name(queue_name, 'a');
end
$fn$;

create function pgmq.send(queue_name text, msg jsonb, delay integer default 0)
returns setof bigint
language plpgsql as $fn$
begin
  return query execute format(
    'insert into pgmq.%I (vt, message) values (clock_timestamp() + make_interval(secs => $1), $2) returning msg_id',
    pgmq.format_table_name(queue_name, 'q'))
  using delay, msg;
end
$fn$;

create function pgmq.send_batch(queue_name text, msgs jsonb[], delay integer default 0)
returns setof bigint
language plpgsql as $fn$
begin
  return query execute format(
    'insert into pgmq.%I (vt, message)
     select clock_timestamp() + make_interval(secs => $1), m from unnest($2) with ordinality as u(m, i) order by i
     returning msg_id',
    pgmq.format_table_name(queue_name, 'q'))
  using delay, msgs;
end
$fn$;

create function pgmq.read(queue_name text, vt integer, qty integer, conditional jsonb default '{}')
returns setof pgmq.message_record
language plpgsql as $fn$
begin
  return query execute format(
    'with picked as (
       select msg_id from pgmq.%1$I
       where vt <= clock_timestamp() and ($3 = ''{}''::jsonb or message @> $3)
       order by msg_id limit $2 for update skip locked)
     update pgmq.%1$I m set vt = clock_timestamp() + make_interval(secs => $1), read_ct = m.read_ct + 1
     from picked where m.msg_id = picked.msg_id
     returning m.msg_id, m.read_ct, m.enqueued_at, m.vt, m.message',
    pgmq.format_table_name(queue_name, 'q'))
  using vt, qty, coalesce(conditional, '{}'::jsonb);
end
$fn$;

create function pgmq.read_with_poll(
  queue_name text,
  vt integer,
  qty integer,
  max_poll_seconds integer default 5,
  poll_interval_ms integer default 100,
  conditional jsonb default '{}'
) returns setof pgmq.message_record
language plpgsql as $fn$
declare
  found_any boolean;
  r pgmq.message_record;
  deadline timestamptz := clock_timestamp() + make_interval(secs => max_poll_seconds);
begin
  loop
    found_any := false;
    for r in select * from pgmq.read(queue_name, read_with_poll.vt, qty, conditional) loop
      found_any := true;
      return next r;
    end loop;
    if found_any or clock_timestamp() >= deadline then
      return;
    end if;
    perform pg_sleep(poll_interval_ms / 1000.0);
  end loop;
end
$fn$;

create function pgmq.pop(queue_name text) returns setof pgmq.message_record
language plpgsql as $fn$
begin
  return query execute format(
    'with picked as (
       select msg_id from pgmq.%1$I where vt <= clock_timestamp()
       order by msg_id limit 1 for update skip locked)
     delete from pgmq.%1$I m using picked where m.msg_id = picked.msg_id
     returning m.msg_id, m.read_ct, m.enqueued_at, m.vt, m.message',
    pgmq.format_table_name(queue_name, 'q'));
end
$fn$;

create function pgmq.set_vt(queue_name text, msg_id bigint, vt integer)
returns setof pgmq.message_record
language plpgsql as $fn$
begin
  return query execute format(
    'update pgmq.%I set vt = clock_timestamp() + make_interval(secs => $2) where msg_id = $1
     returning msg_id, read_ct, enqueued_at, vt, message',
    pgmq.format_table_name(queue_name, 'q'))
  using msg_id, vt;
end
$fn$;

create function pgmq.delete(queue_name text, msg_ids bigint[]) returns setof bigint
language plpgsql as $fn$
begin
  return query execute format(
    'delete from pgmq.%I where msg_id = any($1) returning msg_id',
    pgmq.format_table_name(queue_name, 'q'))
  using msg_ids;
end
$fn$;

create function pgmq.delete(queue_name text, msg_id bigint) returns boolean
language sql as $fn$
  select exists (select 1 from pgmq.delete(queue_name, array[msg_id]))
$fn$;

create function pgmq.archive(queue_name text, msg_ids bigint[]) returns setof bigint
language plpgsql as $fn$
begin
  return query execute format(
    'with moved as (delete from pgmq.%I where msg_id = any($1)
       returning msg_id, vt, read_ct, enqueued_at, message)
     insert into pgmq.%I (msg_id, vt, read_ct, enqueued_at, message)
     select msg_id, vt, read_ct, enqueued_at, message from moved
     returning msg_id',
    pgmq.format_table_name(queue_name, 'q'), pgmq.format_table_name(queue_name, 'a'))
  using msg_ids;
end
$fn$;

create function pgmq.archive(queue_name text, msg_id bigint) returns boolean
language sql as $fn$
  select exists (select 1 from pgmq.archive(queue_name, array[msg_id]))
$fn$;

create function pgmq.purge_queue(queue_name text) returns bigint
language plpgsql as $fn$
declare
  deleted bigint;
begin
  execute format('with d as (delete from pgmq.%I returning 1) select count(*) from d',
    pgmq.format_table_name(queue_name, 'q')) into deleted;
  return deleted;
end
$fn$;

create function pgmq.list_queues() returns setof pgmq.queue_record
language sql stable as $fn$
  select queue_name, is_partitioned, is_unlogged, created_at from pgmq.meta order by queue_name
$fn$;

create function pgmq.metrics(queue_name text) returns pgmq.metrics_result
language plpgsql as $fn$
declare
  q text := pgmq.format_table_name(queue_name, 'q');
  result pgmq.metrics_result;
begin
  execute format(
    'select $1::text, count(*)::bigint,
       extract(epoch from (now() - max(enqueued_at)))::integer,
       extract(epoch from (now() - min(enqueued_at)))::integer,
       (select case when is_called then last_value else 0 end from pgmq.%I),
       now()
     from pgmq.%I', q || '_msg_id_seq', q)
  into result
  using queue_name;
  return result;
end
$fn$;

create function pgmq.metrics_all() returns setof pgmq.metrics_result
language plpgsql as $fn$
declare
  name text;
begin
  for name in select m.queue_name from pgmq.meta m order by m.queue_name loop
    return next pgmq.metrics(name);
  end loop;
end
$fn$;
`;

export const PGMQ: ProvidedExtension = {
  name: 'pgmq',
  version: '1.4.4',
  comment: 'A lightweight message queue. Like AWS SQS and RSMQ but on Postgres.',
  schema: 'pgmq',
  script: SCRIPT,
};
