/**
 * The realtime part of the platform schema (idempotent, part of the platform snapshot):
 *
 * - schema `realtime` with `messages` and `topic()`, as the hosted backend has them, so
 *   private channels are authorised by RLS policies on `realtime.messages`;
 * - the `supabase_realtime` publication an app adds its tables to;
 * - change capture: a row trigger on every table of the publication notifies
 *   `realtime_changes` with the table, operation and primary key values (and the old row of a
 *   REPLICA IDENTITY FULL table), never the new row. What does not fit in a notification
 *   (NOTIFY's 8 KB limit) waits in `realtime.captured_rows` until every replica has read it;
 * - an event trigger keeps the capture triggers in step with the publication;
 * - `realtime.check_change()`: per subscriber, switches to its role and claims and re-selects
 *   the changed row (RLS and column privileges decide), in one call for all subscribers.
 */
import { mayBecomeSql } from '../db/request';
import { FILTERS_SQL } from './filters';

export const REALTIME_SQL = /* sql */ `
create schema if not exists realtime;
grant usage on schema realtime to anon, authenticated, service_role;

create table if not exists realtime.messages (
  id uuid not null default gen_random_uuid(),
  topic text not null,
  extension text not null,
  payload jsonb,
  event text,
  private boolean default false,
  updated_at timestamp without time zone not null default now(),
  inserted_at timestamp without time zone not null default now(),
  primary key (id, inserted_at)
);
create index if not exists messages_topic_index on realtime.messages (topic);
alter table realtime.messages enable row level security;
grant select, insert, update on realtime.messages to anon, authenticated, service_role;

create or replace function realtime.topic() returns text
  language sql stable
  as $f$ select nullif(current_setting('realtime.topic', true), '')::text $f$;
grant execute on function realtime.topic() to anon, authenticated, service_role;

do $$
begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
end
$$;

-- Broadcast from the database: realtime.send() writes a message; the server broadcasts it.
create or replace function realtime.send(
  payload jsonb, event text, topic text, private boolean default true)
  returns void
  language plpgsql
  as $f$
begin
  insert into realtime.messages (payload, event, topic, private, extension)
    values (payload, event, topic, private, 'broadcast');
exception when others then
  raise warning 'ErrorSendingBroadcastMessage: %', sqlerrm;
end
$f$;

-- A row trigger helper: broadcasts the change (operation, table, record, old_record).
create or replace function realtime.broadcast_changes(
  topic_name text, event_name text, operation text, table_name text, table_schema text,
  new record, old record, level text default 'ROW')
  returns void
  language plpgsql
  as $f$
begin
  if level = 'STATEMENT' then
    raise exception 'function can only be triggered for each row, not for each statement';
  end if;
  if operation not in ('INSERT', 'UPDATE', 'DELETE') then
    raise exception 'Unexpected operation type: %', operation;
  end if;
  perform realtime.send(
    jsonb_build_object('old_record', old, 'record', new, 'operation', operation,
                       'table', table_name, 'schema', table_schema),
    event_name, topic_name);
end
$f$;

create or replace function realtime.notify_message() returns trigger
  language plpgsql security definer set search_path = ''
  as $f$
begin
  perform pg_catalog.pg_notify('realtime_messages', new.id::text);
  return null;
end
$f$;

-- Authorisation probes carry no payload, and are rolled back anyway.
drop trigger if exists realtime_message_broadcast on realtime.messages;
create trigger realtime_message_broadcast after insert on realtime.messages
  for each row when (new.extension = 'broadcast' and new.payload is not null)
  execute function realtime.notify_message();

create sequence if not exists realtime.change_seq;
create table if not exists realtime.captured_rows (
  id bigint primary key,
  keys jsonb,
  old_keys jsonb,
  old_record jsonb,
  created_at timestamptz not null default now()
);
-- Replicas that have read the row (several servers on one database).
alter table realtime.captured_rows add column if not exists read_by text[] not null default '{}';

create or replace function realtime.capture_change() returns trigger
  language plpgsql security definer set search_path = ''
  as $f$
declare
  n bigint := nextval('realtime.change_seq');
  pk text[];
  new_row jsonb;
  old_row jsonb;
  keys jsonb;
  old_keys jsonb;
  full_old boolean := false;
  msg jsonb;
begin
  select array_agg(a.attname::text order by array_position(x.indkey::int2[], a.attnum))
    into pk
    from pg_catalog.pg_index x
    join pg_catalog.pg_attribute a on a.attrelid = x.indrelid and a.attnum = any(x.indkey)
   where x.indrelid = tg_relid and x.indisprimary;
  if tg_op <> 'DELETE' then
    new_row := pg_catalog.to_jsonb(new);
    if pk is not null then
      select pg_catalog.jsonb_object_agg(c, new_row -> c) into keys from unnest(pk) c;
    end if;
  end if;
  if tg_op <> 'INSERT' then
    old_row := pg_catalog.to_jsonb(old);
    if pk is not null then
      select pg_catalog.jsonb_object_agg(c, old_row -> c) into old_keys from unnest(pk) c;
    end if;
    full_old := (select relreplident = 'f' from pg_catalog.pg_class where oid = tg_relid);
  end if;
  msg := pg_catalog.jsonb_build_object(
    'n', n, 's', tg_table_schema, 't', tg_table_name, 'o', tg_op,
    'ts', pg_catalog.to_char(pg_catalog.clock_timestamp() at time zone 'utc',
                             'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'k', keys, 'ok', old_keys, 'p', pk is not null);
  if full_old then
    msg := msg || pg_catalog.jsonb_build_object('or', old_row);
  end if;
  if pg_catalog.octet_length(msg::text) > 7000 then
    insert into realtime.captured_rows (id, keys, old_keys, old_record)
      values (n, keys, old_keys, case when full_old then old_row end);
    msg := msg - 'k' - 'ok' - 'or' || pg_catalog.jsonb_build_object('c', true);
  end if;
  perform pg_catalog.pg_notify('realtime_changes', msg::text);
  return null;
end
$f$;

-- Every table of the publication gets the capture trigger; tables that left it lose it.
create or replace function realtime.sync_capture_triggers() returns void
  language plpgsql
  as $f$
declare
  rel regclass;
begin
  for rel in
    select format('%I.%I', p.schemaname, p.tablename)::regclass
      from pg_publication_tables p
     where p.pubname = 'supabase_realtime'
       and not exists (
         select 1 from pg_trigger t
          where t.tgrelid = format('%I.%I', p.schemaname, p.tablename)::regclass
            and t.tgname = 'realtime_capture')
  loop
    execute format(
      'create trigger realtime_capture after insert or update or delete on %s '
      'for each row execute function realtime.capture_change()', rel);
  end loop;
  for rel in
    select t.tgrelid::regclass
      from pg_trigger t
     where t.tgname = 'realtime_capture'
       and not exists (
         select 1 from pg_publication_tables p
          where p.pubname = 'supabase_realtime'
            and format('%I.%I', p.schemaname, p.tablename)::regclass = t.tgrelid)
  loop
    execute format('drop trigger realtime_capture on %s', rel);
  end loop;
end
$f$;

create or replace function realtime.on_publication_ddl() returns event_trigger
  language plpgsql
  as $f$ begin perform realtime.sync_capture_triggers(); end $f$;

-- Event triggers need a superuser; without one, triggers are synced when a channel
-- subscribes (and at start) instead.
do $$
begin
  drop event trigger if exists realtime_capture_sync;
  create event trigger realtime_capture_sync on ddl_command_end
    when tag in ('CREATE PUBLICATION', 'ALTER PUBLICATION', 'CREATE TABLE', 'CREATE TABLE AS',
                 'SELECT INTO')
    execute function realtime.on_publication_ddl();
exception when insufficient_privilege then
  raise notice 'realtime: no event trigger (needs a superuser); capture triggers sync on subscribe';
end
$$;

select realtime.sync_capture_triggers();

${FILTERS_SQL}
-- checks: [{"role", "claims", "filters": [[column, op, value, negate], …]}, …], sorted by role, then
-- filters. For INSERT/UPDATE the row is re-selected by primary key as each subscriber's role
-- and claims (RLS + column privileges decide), through one prepared statement per (role,
-- filters) so N subscribers cost one plan; for DELETE the filters run on the old values.
-- One row per check: visible, the record it may see, and (on each new role) its columns.
drop function if exists realtime.check_change(regclass, text, jsonb, jsonb, jsonb);
create function realtime.check_change(
  entity regclass, action text, keys jsonb, old jsonb, checks jsonb)
  returns table (idx int, visible boolean, record jsonb, columns jsonb, rls boolean)
  language plpgsql
  set plan_cache_mode = force_generic_plan
  as $f$
declare
  chk jsonb;
  i int := -1;
  cur_role text;
  cur_filters jsonb;
  prepared boolean := false;
  role_set boolean := false;
  pk_ok boolean;
  role_ok boolean := false;
  cols text;
  col_list jsonb;
  pk_cond text;
  filt text;
  f jsonb;
  n int;
  col_type text;
  ok boolean;
  rec jsonb;
begin
  if exists (select 1 from pg_prepared_statements where name = 'realtime_check') then
    deallocate realtime_check;
  end if;
  rls := (select relrowsecurity from pg_class where oid = entity);
  select string_agg(format('%I = ($1 ->> %L)::%s', a.attname, a.attname,
                           format_type(a.atttypid, null)), ' and ')
    into pk_cond
    from pg_index x join pg_attribute a on a.attrelid = x.indrelid and a.attnum = any(x.indkey)
   where x.indrelid = entity and x.indisprimary;
  for chk in select value from jsonb_array_elements(checks) loop
    i := i + 1;
    idx := i;
    columns := null;
    if i = 0 or (chk ->> 'role') is distinct from cur_role
       or (chk -> 'filters') is distinct from cur_filters then
      if role_set then
        perform set_config('role', null, true);
        role_set := false;
      end if;
      if (chk ->> 'role') is distinct from cur_role or i = 0 then
        -- The rule of every service: only roles the API role may become (else nothing).
        role_ok := ${mayBecomeSql("chk ->> 'role'")};
      end if;
      if role_ok and ((chk ->> 'role') is distinct from cur_role or i = 0) then
        select string_agg(format('%I', a.attname), ', ' order by a.attnum),
               coalesce(jsonb_agg(jsonb_build_object('name', a.attname, 'type', t.typname)
                                  order by a.attnum), '[]'::jsonb)
          into cols, col_list
          from pg_attribute a join pg_type t on t.oid = a.atttypid
         where a.attrelid = entity and a.attnum > 0 and not a.attisdropped
           and has_column_privilege(chk ->> 'role', entity, a.attnum, 'SELECT');
        columns := col_list;
        -- A role that may not read the primary key gets no row (the caller reports 401).
        pk_ok := not exists (
          select 1 from pg_index x
           where x.indrelid = entity and x.indisprimary
             and exists (select 1 from unnest(x.indkey) k
                          where not has_column_privilege(chk ->> 'role', entity, k, 'SELECT')));
      end if;
      if not role_ok then
        cols := null;
        columns := null;
      end if;
      cur_role := chk ->> 'role';
      cur_filters := chk -> 'filters';
      filt := '';
      ok := role_ok;
      n := 0;
      for f in select value from jsonb_array_elements(coalesce(cur_filters, '[]'::jsonb)) loop
        col_type := null;
        select format_type(a.atttypid, null) into col_type
          from pg_attribute a
         where a.attrelid = entity and a.attname = f ->> 0 and a.attnum > 0
           and not a.attisdropped;
        if col_type is null
           or (action <> 'DELETE'
               and not has_column_privilege(cur_role, entity, f ->> 0, 'SELECT'))
        then
          ok := false;
          exit;
        end if;
        filt := filt || ' and ' || realtime.filter_sql(f, n, col_type);
        n := n + 1;
      end loop;
      if prepared then
        deallocate realtime_check;
        prepared := false;
      end if;
      if ok and pk_ok and action <> 'DELETE' and cols is not null and pk_cond is not null then
        -- r.*: the whole row, even when the table has a column named r.
        execute format(
          'prepare realtime_check(jsonb, jsonb) as '
          'select to_jsonb(r.*) from (select %s from %s where %s%s) r',
          cols, entity, pk_cond, filt);
        prepared := true;
      end if;
    end if;
    visible := false;
    record := null;
    if ok and action = 'DELETE' then
      execute format('select true from jsonb_populate_record(null::%s, $3) where true%s',
                     entity, filt)
        into visible using keys, cur_filters, old;
      visible := coalesce(visible, false);
    elsif prepared then
      -- The role stays switched for a run of checks; only the claims change.
      if not role_set then
        perform set_config('role', cur_role, true);
        role_set := true;
      end if;
      perform set_config('request.jwt.claims', chk ->> 'claims', true);
      execute format('execute realtime_check(%L, %L)', keys::text, cur_filters::text)
        into rec;
      visible := rec is not null;
      record := rec;
    end if;
    return next;
  end loop;
  if prepared then
    deallocate realtime_check;
  end if;
  perform set_config('role', null, true);
end
$f$;
`;
