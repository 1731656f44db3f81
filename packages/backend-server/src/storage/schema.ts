/**
 * The `storage` schema as the hosted backend has it: buckets and objects with their hosted
 * columns, row level security enabled and no policy (apps write policies in their
 * migrations), the path helpers RLS policies use, and grants to the API roles.
 *
 * One addition of ours: `storage.retired_versions`, filled by a trigger whenever an
 * object row is deleted or its bytes are replaced, so the server removes exactly the files
 * no row references any more — whoever changed the row (a storage request or app SQL).
 *
 * Idempotent: re-applied on an existing database when it changes.
 */
export const STORAGE_SQL = /* sql */ `
create schema if not exists storage;
grant usage on schema storage to anon, authenticated, service_role;

create table if not exists storage.buckets (
  id text primary key,
  name text not null,
  owner uuid,
  owner_id text,
  public boolean not null default false,
  avif_autodetection boolean default false,
  file_size_limit bigint,
  allowed_mime_types text[],
  type text not null default 'STANDARD' check (type in ('STANDARD', 'ANALYTICS')),
  created_at timestamptz default now(),
  updated_at timestamptz default now()
);
create unique index if not exists bname on storage.buckets (name);

create table if not exists storage.objects (
  id uuid primary key default gen_random_uuid(),
  bucket_id text references storage.buckets (id),
  name text,
  owner uuid,
  owner_id text,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  last_accessed_at timestamptz default now(),
  metadata jsonb,
  user_metadata jsonb,
  version text,
  path_tokens text[] generated always as (string_to_array(name, '/')) stored
);
create unique index if not exists bucketid_objname on storage.objects (bucket_id, name);
create index if not exists name_prefix_search on storage.objects (name text_pattern_ops);

alter table storage.buckets enable row level security;
alter table storage.objects enable row level security;
grant all on storage.buckets, storage.objects to anon, authenticated, service_role;

create or replace function storage.foldername(name text) returns text[]
  language sql immutable
  as $f$
    select (string_to_array(name, '/'))[1:coalesce(array_length(string_to_array(name, '/'), 1), 1) - 1]
  $f$;

create or replace function storage.filename(name text) returns text
  language sql immutable
  as $f$
    select (string_to_array(name, '/'))[array_length(string_to_array(name, '/'), 1)]
  $f$;

create or replace function storage.extension(name text) returns text
  language sql immutable
  as $f$
    select case
      when storage.filename(name) not like '%.%' then ''
      else reverse(split_part(reverse(storage.filename(name)), '.', 1))
    end
  $f$;

grant execute on function storage.foldername(text), storage.filename(text), storage.extension(text)
  to anon, authenticated, service_role;

create table if not exists storage.retired_versions (
  version text not null,
  retired_at timestamptz not null default now()
);

create or replace function storage.retire_version() returns trigger
  language plpgsql security definer set search_path = ''
  as $f$
  begin
    if tg_op = 'DELETE' then
      if old.version is not null then
        insert into storage.retired_versions (version) values (old.version);
      end if;
      return old;
    end if;
    if old.version is not null and old.version is distinct from new.version then
      insert into storage.retired_versions (version) values (old.version);
    end if;
    return new;
  end
  $f$;

create or replace trigger retire_version
  after update or delete on storage.objects
  for each row execute function storage.retire_version();
`;
