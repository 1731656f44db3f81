/**
 * `pg_net`, asynchronous HTTP from SQL as hosted projects have it (database webhooks are
 * built on it): the server's own SQL implementation of its API (version 0.19.5), installed
 * as a real extension so `create extension pg_net` (or `… with schema extensions`, as hosted
 * projects do) works in a migration (see ./README.md).
 *
 * `net.http_get`, `net.http_post` and `net.http_delete` only queue a row in
 * `net.http_request_queue` and notify the `pg_net` channel, which Postgres delivers when the
 * transaction commits: the server's worker (src/net/) then sends the request and writes the
 * answer in `net._http_response`. A rolled back transaction leaves no row and sends nothing.
 * Like pg_net's own script, it creates the `net` schema itself, whatever schema the
 * extension is recorded in.
 */
import type { ProvidedExtension } from './provided';

const SCRIPT = /* sql */ `
create schema if not exists net;

create domain net.http_method as text
  check (value ilike 'get' or value ilike 'post' or value ilike 'delete');

create unlogged table net.http_request_queue (
  id bigserial,
  method net.http_method not null,
  url text not null,
  headers jsonb,
  body bytea,
  timeout_milliseconds int not null
);

create unlogged table net._http_response (
  id bigint,
  status_code integer,
  content_type text,
  headers jsonb,
  content text,
  timed_out bool,
  error_msg text,
  created timestamptz not null default now()
);
create index on net._http_response (created);

-- The server's worker listens on this channel; a notification reaches it at commit.
create function net.wake() returns void
language sql as $fn$ select pg_catalog.pg_notify('pg_net', '') $fn$;

create function net.check_worker_is_up() returns void
language plpgsql as $fn$
begin
  -- The worker is the server's: it runs whenever the server does.
  return;
end
$fn$;

create function net.wait_until_running() returns void
language plpgsql as $fn$ begin return; end $fn$;

create function net.worker_restart() returns bool
language sql as $fn$ select true $fn$;

-- Percent-encodes every byte of the UTF-8 text but the unreserved characters (RFC 3986).
create function net._urlencode_string(string varchar) returns text
language plpgsql immutable as $fn$
declare
  bytes bytea := convert_to(string, 'UTF8');
  out text := '';
  b int;
begin
  if string is null then
    return null;
  end if;
  for i in 0 .. length(bytes) - 1 loop
    b := get_byte(bytes, i);
    if (b between 48 and 57) or (b between 65 and 90) or (b between 97 and 122)
       or b in (45, 46, 95, 126) then
      out := out || chr(b);
    else
      out := out || '%' || upper(lpad(to_hex(b), 2, '0'));
    end if;
  end loop;
  return out;
end
$fn$;

create function net._encode_url_with_params_array(url text, params_array text[]) returns text
language sql immutable as $fn$
  select case
    when params_array is null or cardinality(params_array) = 0 then url
    else url || case when position('?' in url) > 0 then '&' else '?' end
             || array_to_string(params_array, '&')
  end
$fn$;

create function net._params_array(params jsonb) returns text[]
language sql immutable as $fn$
  select coalesce(array_agg(net._urlencode_string(key) || '=' || net._urlencode_string(value)), '{}')
  from jsonb_each_text(coalesce(params, '{}'::jsonb))
$fn$;

create function net.http_get(
  url text,
  params jsonb default '{}'::jsonb,
  headers jsonb default '{}'::jsonb,
  timeout_milliseconds int default 5000
) returns bigint
language plpgsql volatile parallel unsafe as $fn$
declare
  request_id bigint;
begin
  insert into net.http_request_queue (method, url, headers, timeout_milliseconds)
  values ('GET', net._encode_url_with_params_array(url, net._params_array(params)), headers,
          timeout_milliseconds)
  returning id into request_id;
  perform net.wake();
  return request_id;
end
$fn$;

create function net.http_post(
  url text,
  body jsonb default '{}'::jsonb,
  params jsonb default '{}'::jsonb,
  headers jsonb default '{"Content-Type": "application/json"}'::jsonb,
  timeout_milliseconds int default 5000
) returns bigint
language plpgsql volatile parallel unsafe as $fn$
declare
  request_id bigint;
  content_type text;
begin
  select value into content_type
  from jsonb_each_text(coalesce(headers, '{}'::jsonb))
  where lower(key) = 'content-type'
  limit 1;
  if content_type is null then
    headers := coalesce(headers, '{}'::jsonb) || '{"Content-Type": "application/json"}'::jsonb;
  elsif content_type <> 'application/json' then
    raise exception 'Content-Type header must be "application/json"';
  end if;
  insert into net.http_request_queue (method, url, headers, body, timeout_milliseconds)
  values ('POST', net._encode_url_with_params_array(url, net._params_array(params)), headers,
          convert_to(body::text, 'UTF8'), timeout_milliseconds)
  returning id into request_id;
  perform net.wake();
  return request_id;
end
$fn$;

create function net.http_delete(
  url text,
  params jsonb default '{}'::jsonb,
  headers jsonb default '{}'::jsonb,
  timeout_milliseconds int default 5000,
  body jsonb default null
) returns bigint
language plpgsql volatile parallel unsafe as $fn$
declare
  request_id bigint;
begin
  insert into net.http_request_queue (method, url, headers, body, timeout_milliseconds)
  values ('DELETE', net._encode_url_with_params_array(url, net._params_array(params)), headers,
          convert_to(body::text, 'UTF8'), timeout_milliseconds)
  returning id into request_id;
  perform net.wake();
  return request_id;
end
$fn$;

create type net.request_status as enum ('PENDING', 'SUCCESS', 'ERROR');

create type net.http_response as (
  status_code integer,
  headers jsonb,
  body text
);

create type net.http_response_result as (
  status net.request_status,
  message text,
  response net.http_response
);

-- Waits (50 ms steps) until the answer to a request is recorded.
create function net._await_response(request_id bigint) returns bool
language plpgsql volatile parallel unsafe as $fn$
begin
  while not exists (select 1 from net._http_response r where r.id = request_id) loop
    perform pg_sleep(0.05);
  end loop;
  return true;
end
$fn$;

create function net._http_collect_response(request_id bigint, async bool default true)
returns net.http_response_result
language plpgsql volatile parallel unsafe as $fn$
declare
  rec net._http_response;
begin
  if not async then
    perform net._await_response(request_id);
  end if;
  select * into rec from net._http_response r where r.id = request_id;
  if rec is null or rec.error_msg is not null then
    if rec is null and exists (select 1 from net.http_request_queue q where q.id = request_id) then
      return ('PENDING', 'request is pending processing', null)::net.http_response_result;
    end if;
    return ('ERROR', coalesce(rec.error_msg, 'request matching request_id not found'), null)
      ::net.http_response_result;
  end if;
  return ('SUCCESS', 'ok', (rec.status_code, rec.headers, rec.content)::net.http_response)
    ::net.http_response_result;
end
$fn$;

create function net.http_collect_response(request_id bigint, async bool default true)
returns net.http_response_result
language plpgsql volatile parallel unsafe as $fn$
begin
  raise notice 'The net.http_collect_response function is deprecated.';
  return net._http_collect_response(request_id, async);
end
$fn$;

grant usage on schema net to public;
grant all on all sequences in schema net to public;
grant all on all tables in schema net to public;
`;

export const PG_NET: ProvidedExtension = {
  name: 'pg_net',
  version: '0.19.5',
  comment: 'Async HTTP',
  script: SCRIPT,
};
