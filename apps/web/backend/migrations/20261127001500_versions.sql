-- Versions of a file (see ../../README.md, "Versions").
--
-- * Every finished upload of a file is a row of `file_versions`; `files.current_version_id`
--   names the one readers get, and `files.object_path` / `size` / `mime_type` are that
--   version's (so downloads, previews, share links and zips are unchanged).
-- * A replacement goes to an object of its own (`<owner>/<file>/<version>/<name>`): readers
--   keep the old content until `finish_version` switches the file to it, in one transaction.
-- * A restore is a new version whose object is the restored one's (nothing is copied and
--   history is never rewritten); an object counts once against the quota however many
--   versions share it, and is removed when the last of them goes.
-- * Deleting a version, and the retention's pruning, mark rows first, then the objects are
--   removed through the storage API (`functions/trash`), then the rows go — as the Trash does.
-- * Who may do what is decided here: readers of the file list, preview and download its
--   versions; the owner and Editors replace, restore and delete (never the current one).

create table public.file_versions (
  id uuid primary key default gen_random_uuid(),
  file_id uuid not null references public.files (id) on delete cascade,
  object_path text not null,
  size bigint not null check (size >= 0 and size <= 5368709120),
  mime_type text not null default 'application/octet-stream' check (char_length(mime_type) <= 255),
  uploaded_by uuid references auth.users (id) on delete set null,
  status text not null default 'uploading' check (status in ('uploading', 'ready')),
  restored_from uuid,
  created_at timestamptz not null default now(),
  deleting_since timestamptz
);
create index file_versions_file on public.file_versions (file_id, created_at desc);
create index file_versions_object on public.file_versions (object_path);
alter table public.file_versions enable row level security;
revoke all on public.file_versions from anon, authenticated;
grant select on public.file_versions to authenticated;
-- Readable by exactly the people who can read the file (its own policies decide).
create policy "file_versions: readers of the file" on public.file_versions
  for select to authenticated
  using (exists (select 1 from public.files f where f.id = file_versions.file_id));
create policy "file_versions: two-step verification" on public.file_versions as restrictive
  for all to authenticated
  using ((select private.two_step_passed())) with check ((select private.two_step_passed()));

alter table public.files add column current_version_id uuid;

-- Retention, per owner, for the versions of their files (the current one is always kept).
create table public.version_settings (
  owner_id uuid primary key default auth.uid() references auth.users (id) on delete cascade,
  keep_days integer not null default 30 check (keep_days between 1 and 3650),
  keep_versions integer not null default 100 check (keep_versions between 1 and 1000),
  updated_at timestamptz not null default now()
);
alter table public.version_settings enable row level security;
revoke all on public.version_settings from anon;
create policy "version_settings: owner" on public.version_settings
  for all to authenticated
  using (owner_id = (select auth.uid())) with check (owner_id = (select auth.uid()));
create policy "version_settings: two-step verification" on public.version_settings as restrictive
  for all to authenticated
  using ((select private.two_step_passed())) with check ((select private.two_step_passed()));

alter table public.activity drop constraint activity_action_check;
alter table public.activity add constraint activity_action_check check (action in (
  'created', 'uploaded', 'renamed', 'moved', 'trashed', 'restored', 'shared', 'unshared',
  'version_uploaded', 'version_restored'));

-- The first version of every file already stored.
insert into public.file_versions (id, file_id, object_path, size, mime_type, uploaded_by, status, created_at)
select gen_random_uuid(), f.id, f.object_path, f.size, f.mime_type, coalesce(f.created_by, f.owner_id),
       'ready', f.updated_at
  from public.files f where f.status = 'ready';
alter table public.files disable trigger user;
update public.files f set current_version_id = v.id
  from public.file_versions v where v.file_id = f.id;
alter table public.files enable trigger user;

-- A file that becomes ready gets its first version; the current version changes only through
-- `finish_version` / `restore_version` (which say so for their transaction), and then the
-- file takes that version's object, size and type. Runs after the other BEFORE triggers.
create function private.files_versions() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  declare
    v public.file_versions;
  begin
    if old.status = 'uploading' and new.status = 'ready' and new.current_version_id is null then
      insert into public.file_versions (file_id, object_path, size, mime_type, uploaded_by, status)
        values (new.id, new.object_path, new.size, new.mime_type,
                coalesce(new.created_by, new.owner_id), 'ready')
        returning id into new.current_version_id;
      return new;
    end if;
    if new.current_version_id is not distinct from old.current_version_id then
      return new;
    end if;
    if pg_catalog.current_setting('drive.version_switch', true) is distinct from new.current_version_id::text then
      new.current_version_id := old.current_version_id;
      return new;
    end if;
    select * into v from public.file_versions
      where id = new.current_version_id and file_id = new.id and status = 'ready';
    if not found then
      raise exception 'No such version' using errcode = '23503', hint = 'version_not_found';
    end if;
    new.object_path := v.object_path;
    new.size := v.size;
    new.mime_type := v.mime_type;
    new.updated_at := now();
    return new;
  end
  $$;
revoke all on function private.files_versions() from public;
create trigger files_versions
  before update on public.files
  for each row execute function private.files_versions();

-- Bytes that count against an owner's quota: as before (files: ready in full, unfinished for
-- what they hold), plus each stored object of an older version once, plus the finished
-- bytes… of nothing else: a replacement under way counts when it finishes (checked then).
create or replace function public.used_bytes(owner uuid, except_file uuid default null) returns bigint
  language sql stable security definer set search_path = ''
  as $$
    select (select coalesce(sum(case when f.status = 'ready' then f.size
                             else least(f.size, coalesce(u.bytes_uploaded, 0)) end), 0)
              from public.files f
              left join public.uploads u on u.file_id = f.id
             where f.owner_id = owner
               and f.id is distinct from except_file
               and (f.status = 'ready'
                    or coalesce(u.started_at, f.created_at) >= now() - public.upload_expiry()))
         + (select coalesce(sum(o.size), 0) from (
              select distinct on (v.object_path) v.size
                from public.file_versions v join public.files f on f.id = v.file_id
               where f.owner_id = owner and v.status = 'ready' and v.object_path <> f.object_path
                 and not exists (select 1 from public.files g where g.object_path = v.object_path)
               order by v.object_path) o)::bigint
  $$;
revoke execute on function public.used_bytes(uuid, uuid) from public, anon, authenticated;

-- An object is held while a file row or a version that are staying hold it.
create or replace function private.object_held(p_path text) returns boolean
  language sql stable security definer set search_path = ''
  as $$
    select exists (select 1 from public.files f where f.object_path = p_path and f.deleting_since is null)
        or exists (select 1 from public.file_versions v join public.files f on f.id = v.file_id
                    where v.object_path = p_path and v.deleting_since is null and f.deleting_since is null)
  $$;

-- The file of a version, with the caller's role on it (null: no access).
create function private.version_file(p_version uuid)
  returns table (version public.file_versions, file public.files, role text)
  language sql stable security definer set search_path = ''
  as $$
    select v, f, private.role_on(f.owner_id, f.ancestors || f.id)
      from public.file_versions v join public.files f on f.id = v.file_id
     where v.id = p_version
  $$;
revoke all on function private.version_file(uuid) from public;

create function private.refuse(p_message text, p_hint text, p_code text default '42501') returns void
  language plpgsql
  as $$ begin raise exception '%', p_message using errcode = p_code, hint = p_hint; end $$;
revoke all on function private.refuse(text, text, text) from public;

-- Quota of `p_owner` for `p_more` more bytes (one decision at a time per owner).
create function private.check_quota(p_owner uuid, p_more bigint) returns void
  language plpgsql security definer set search_path = ''
  as $$
  declare
    used bigint;
  begin
    perform pg_advisory_xact_lock(pg_catalog.hashtextextended(p_owner::text, 0));
    used := public.used_bytes(p_owner);
    if used + p_more > public.quota_bytes() then
      if auth.uid() is distinct from p_owner and auth.uid() is not null then
        raise exception 'The owner''s storage is full'
          using errcode = 'P0001', hint = 'quota_exceeded',
                detail = 'owner_quota: the owner of this folder has no room for this file';
      end if;
      raise exception 'Storage quota exceeded'
        using errcode = 'P0001', hint = 'quota_exceeded',
              detail = pg_catalog.format('used %s of %s bytes; this file needs %s', used, public.quota_bytes(), p_more);
    end if;
  end
  $$;
revoke all on function private.check_quota(uuid, bigint) from public;
