/**
 * The platform schema every project has, as the hosted backend sets it up: roles,
 * schemas, default grants and privileges, and the claim helpers RLS policies use.
 * Idempotent: it can run again on an existing database.
 */
export const ROLES_SQL = /* sql */ `
-- Roles belong to the whole cluster, whose other databases may be set up at the same moment
-- (a role or membership another transaction just created is not an error here).
do $$
declare
  r record;
begin
  for r in
    select * from (values
      ('anon', 'nologin noinherit'),
      ('authenticated', 'nologin noinherit'),
      ('service_role', 'nologin noinherit bypassrls'),
      -- The role the hosted API services log in as (API_ROLE in request.ts): a request
      -- may only run as a role granted to it.
      ('authenticator', 'nologin noinherit')
    ) as v(name, options)
  loop
    if not exists (select 1 from pg_roles where rolname = r.name) then
      begin
        execute format('create role %I %s', r.name, r.options);
      exception when duplicate_object or unique_violation then
        null;
      end;
    end if;
  end loop;
  begin
    grant anon, authenticated, service_role to authenticator;
    -- The connecting role switches to these per request (SET LOCAL ROLE).
    grant anon, authenticated, service_role to current_user;
  exception when unique_violation then
    null;
  end;
end
$$;

create schema if not exists extensions;
create schema if not exists graphql_public;
create schema if not exists auth;
create schema if not exists supabase_migrations;

grant usage on schema public, extensions, graphql_public to anon, authenticated, service_role;
grant usage on schema auth to anon, authenticated, service_role;

-- Default privileges on schema public, as the hosted backend grants them: the API roles get
-- table, sequence and function privileges; row level security decides which rows.
grant all on all tables in schema public to anon, authenticated, service_role;
grant all on all sequences in schema public to anon, authenticated, service_role;
grant all on all functions in schema public to anon, authenticated, service_role;
alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;

-- Claim helpers (the hosted definitions: per-claim GUCs first, then request.jwt.claims).
create or replace function auth.uid() returns uuid
  language sql stable
  as $f$
    select coalesce(
      nullif(current_setting('request.jwt.claim.sub', true), ''),
      (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
    )::uuid
  $f$;

create or replace function auth.role() returns text
  language sql stable
  as $f$
    select coalesce(
      nullif(current_setting('request.jwt.claim.role', true), ''),
      (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
    )::text
  $f$;

create or replace function auth.email() returns text
  language sql stable
  as $f$
    select coalesce(
      nullif(current_setting('request.jwt.claim.email', true), ''),
      (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'email')
    )::text
  $f$;

create or replace function auth.jwt() returns jsonb
  language sql stable
  as $f$
    select coalesce(
      nullif(current_setting('request.jwt.claim', true), ''),
      nullif(current_setting('request.jwt.claims', true), '')
    )::jsonb
  $f$;

grant execute on function auth.uid(), auth.role(), auth.email(), auth.jwt()
  to anon, authenticated, service_role;

create table if not exists supabase_migrations.schema_migrations (
  version text primary key,
  name text not null,
  applied_at timestamptz not null default now()
);

create table if not exists supabase_migrations.seeds (
  name text primary key,
  applied_at timestamptz not null default now()
);

create table if not exists supabase_migrations.platform (
  id boolean primary key default true check (id),
  version text not null
);
`;
