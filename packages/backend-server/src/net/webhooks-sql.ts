/**
 * The `supabase_functions` schema database webhooks use, as hosted projects and the local
 * tooling have it: `supabase_functions.http_request()`, the trigger function a webhook
 * made in the dashboard runs, and `supabase_functions.hooks`, its audit trail (one row per
 * request it queued). Part of the platform schema, so a migration that creates a webhook's
 * trigger runs unchanged; the requests themselves need pg_net (`create extension pg_net`),
 * as on a hosted project where turning webhooks on installs it.
 *
 * The trigger's arguments are the hosted ones: url, method (GET or POST), headers (json),
 * params (json), timeout in milliseconds (default 1000). A POST carries the hosted payload
 * `{ type, table, schema, record, old_record }`. Idempotent.
 */
export const WEBHOOKS_SQL = /* sql */ `
create schema if not exists supabase_functions;
grant usage on schema supabase_functions to anon, authenticated, service_role;

create table if not exists supabase_functions.migrations (
  version text primary key,
  inserted_at timestamptz not null default now()
);

create table if not exists supabase_functions.hooks (
  id bigserial primary key,
  hook_table_id integer not null,
  hook_name text not null,
  created_at timestamptz not null default now(),
  request_id bigint
);
comment on table supabase_functions.hooks is
  'Supabase Functions Hooks: Audit trail for triggered hooks.';
create index if not exists supabase_functions_hooks_request_id_idx
  on supabase_functions.hooks using btree (request_id);
create index if not exists supabase_functions_hooks_h_table_id_h_name_idx
  on supabase_functions.hooks using btree (hook_table_id, hook_name);

create or replace function supabase_functions.http_request() returns trigger
language plpgsql security definer set search_path = supabase_functions as $fn$
declare
  request_id bigint;
  payload jsonb;
  url text := tg_argv[0]::text;
  method text := tg_argv[1]::text;
  headers jsonb := '{}'::jsonb;
  params jsonb := '{}'::jsonb;
  timeout_ms integer := 1000;
begin
  if url is null or url = 'null' then
    raise exception 'url argument is missing';
  end if;
  if method is null or method = 'null' then
    raise exception 'method argument is missing';
  end if;
  if tg_argv[2] is not null and tg_argv[2] <> 'null' then
    headers := tg_argv[2]::jsonb;
  end if;
  if tg_argv[3] is not null and tg_argv[3] <> 'null' then
    params := tg_argv[3]::jsonb;
  end if;
  if tg_argv[4] is not null and tg_argv[4] <> 'null' then
    timeout_ms := tg_argv[4]::integer;
  end if;

  case method
    when 'GET' then
      select net.http_get(url, params, headers, timeout_ms) into request_id;
    when 'POST' then
      payload := jsonb_build_object(
        'old_record', to_jsonb(old),
        'record', to_jsonb(new),
        'type', tg_op,
        'table', tg_table_name,
        'schema', tg_table_schema
      );
      select net.http_post(url, payload, params, headers, timeout_ms) into request_id;
    else
      raise exception 'method argument % is invalid', method;
  end case;

  insert into supabase_functions.hooks (hook_table_id, hook_name, request_id)
  values (tg_relid, tg_name, request_id);

  return new;
end
$fn$;
grant execute on function supabase_functions.http_request() to anon, authenticated, service_role;
`;
