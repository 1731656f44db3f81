-- Drive: profiles, folders, files and shares. Every row belongs to one owner and row level
-- security makes it visible and writable by that owner only; nothing is readable by anon.

-- Names of files and folders: 1–255 characters, no '/', not '.' or '..'.
-- (Postgres text cannot hold NUL, so that rule holds by construction.)
create function public.is_valid_name(name text) returns boolean
  language sql immutable
  as $$
    select name is not null
      and char_length(name) between 1 and 255
      and position('/' in name) = 0
      and name not in ('.', '..')
  $$;

-- Profiles ---------------------------------------------------------------------------------
create table public.profiles (
  id uuid primary key references auth.users (id) on delete cascade,
  display_name text not null default '' check (char_length(display_name) <= 80),
  created_at timestamptz not null default now()
);
alter table public.profiles enable row level security;
create policy "profiles: owner reads" on public.profiles
  for select to authenticated using (id = auth.uid());
create policy "profiles: owner updates" on public.profiles
  for update to authenticated using (id = auth.uid()) with check (id = auth.uid());
revoke all on public.profiles from anon;

-- A profile for every new user, named from the sign-up metadata.
create function public.handle_new_user() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  begin
    insert into public.profiles (id, display_name)
    values (new.id, left(coalesce(new.raw_user_meta_data ->> 'display_name', ''), 80));
    return new;
  end
  $$;
create trigger on_auth_user_created
  after insert on auth.users
  for each row execute function public.handle_new_user();

-- Folders ----------------------------------------------------------------------------------
create table public.folders (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  parent_id uuid references public.folders (id) on delete cascade,
  name text not null check (public.is_valid_name(name)),
  created_at timestamptz not null default now()
);
create unique index folders_name_unique
  on public.folders (owner_id, parent_id, lower(name)) nulls not distinct;
create index folders_parent on public.folders (owner_id, parent_id);
alter table public.folders enable row level security;
create policy "folders: owner reads" on public.folders
  for select to authenticated using (owner_id = auth.uid());
create policy "folders: owner creates" on public.folders
  for insert to authenticated with check (
    owner_id = auth.uid()
    and (parent_id is null
      or exists (select 1 from public.folders p where p.id = folders.parent_id and p.owner_id = auth.uid()))
  );
create policy "folders: owner updates" on public.folders
  for update to authenticated using (owner_id = auth.uid()) with check (
    owner_id = auth.uid()
    and (parent_id is null
      or exists (select 1 from public.folders p where p.id = folders.parent_id and p.owner_id = auth.uid()))
  );
create policy "folders: owner deletes" on public.folders
  for delete to authenticated using (owner_id = auth.uid());
revoke all on public.folders from anon;

-- A folder cannot move into itself or one of its descendants.
create function public.folders_no_cycle() returns trigger
  language plpgsql
  as $$
  begin
    if new.parent_id is not null and exists (
      with recursive up(id, parent_id) as (
        select f.id, f.parent_id from public.folders f where f.id = new.parent_id
        union all
        select f.id, f.parent_id from public.folders f join up on f.id = up.parent_id
      )
      select 1 from up where up.id = new.id
    ) then
      raise exception 'A folder cannot be moved into itself'
        using errcode = '23514', hint = 'folder_cycle';
    end if;
    return new;
  end
  $$;
create trigger folders_no_cycle
  before update of parent_id on public.folders
  for each row execute function public.folders_no_cycle();

-- Files ------------------------------------------------------------------------------------
create table public.files (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  folder_id uuid references public.folders (id) on delete cascade,
  name text not null check (public.is_valid_name(name)),
  size bigint not null check (size >= 0 and size <= 5368709120),
  mime_type text not null default 'application/octet-stream' check (char_length(mime_type) <= 255),
  object_path text not null unique,
  status text not null default 'uploading' check (status in ('uploading', 'ready')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index files_name_unique
  on public.files (owner_id, folder_id, lower(name)) nulls not distinct;
create index files_folder on public.files (owner_id, folder_id);
create index files_name_search on public.files using gin (to_tsvector('simple', name));
alter table public.files enable row level security;
create policy "files: owner reads" on public.files
  for select to authenticated using (owner_id = auth.uid());
create policy "files: owner creates" on public.files
  for insert to authenticated with check (
    owner_id = auth.uid()
    and (folder_id is null
      or exists (select 1 from public.folders p where p.id = folder_id and p.owner_id = auth.uid()))
  );
create policy "files: owner updates" on public.files
  for update to authenticated using (owner_id = auth.uid()) with check (
    owner_id = auth.uid()
    and (folder_id is null
      or exists (select 1 from public.folders p where p.id = folder_id and p.owner_id = auth.uid()))
  );
create policy "files: owner deletes" on public.files
  for delete to authenticated using (owner_id = auth.uid());
revoke all on public.files from anon;

-- The per-user quota, in one place.
create function public.quota_bytes() returns bigint
  language sql immutable
  as $$ select 10737418240::bigint $$;

-- Server-side rules of a file row: its object path is derived (never chosen by the client),
-- it may only become 'ready' once its object exists, and the owner's quota holds.
create function public.files_before_write() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  declare
    used bigint;
  begin
    if tg_op = 'INSERT' then
      new.object_path := new.owner_id::text || '/' || new.id::text || '/' || new.name;
      new.status := 'uploading';
    else
      new.object_path := old.object_path;
      new.owner_id := old.owner_id;
      new.size := old.size;
      new.updated_at := now();
      if new.status = 'ready' and old.status = 'uploading' and not exists (
        select 1 from storage.objects o where o.bucket_id = 'files' and o.name = old.object_path
      ) then
        raise exception 'The upload of this file has not finished'
          using errcode = '23514', hint = 'upload_incomplete';
      end if;
      if new.status = 'uploading' and old.status = 'ready' then
        new.status := 'ready';
      end if;
    end if;
    if tg_op = 'INSERT' then
      -- One quota decision at a time per owner.
      perform pg_advisory_xact_lock(hashtextextended(new.owner_id::text, 0));
      select coalesce(sum(f.size), 0) into used from public.files f where f.owner_id = new.owner_id;
      if used + new.size > public.quota_bytes() then
        raise exception 'Storage quota exceeded'
          using errcode = 'P0001', hint = 'quota_exceeded',
                detail = format('used %s of %s bytes; this file needs %s', used, public.quota_bytes(), new.size);
      end if;
    end if;
    return new;
  end
  $$;
create trigger files_before_write
  before insert or update on public.files
  for each row execute function public.files_before_write();

-- Shares -----------------------------------------------------------------------------------
create table public.shares (
  id uuid primary key default gen_random_uuid(),
  file_id uuid not null references public.files (id) on delete cascade,
  owner_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  -- 244 random bits (two v4 UUIDs), hex.
  token text not null unique
    default replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', ''),
  expires_at timestamptz not null,
  revoked_at timestamptz,
  created_at timestamptz not null default now(),
  download_count integer not null default 0,
  check (expires_at > created_at and expires_at <= created_at + interval '7 days 1 minute')
);
create index shares_file on public.shares (file_id);
alter table public.shares enable row level security;
create policy "shares: owner reads" on public.shares
  for select to authenticated using (owner_id = auth.uid());
create policy "shares: owner creates" on public.shares
  for insert to authenticated with check (
    owner_id = auth.uid()
    and exists (
      select 1 from public.files f
      where f.id = file_id and f.owner_id = auth.uid() and f.status = 'ready'
    )
  );
create policy "shares: owner revokes" on public.shares
  for update to authenticated using (owner_id = auth.uid()) with check (owner_id = auth.uid());
create policy "shares: owner deletes" on public.shares
  for delete to authenticated using (owner_id = auth.uid());
revoke all on public.shares from anon;

-- rpc -------------------------------------------------------------------------------------
create function public.storage_usage()
  returns table (used_bytes bigint, file_count integer, quota_bytes bigint)
  language sql stable
  as $$
    select coalesce(sum(f.size), 0)::bigint, count(*)::integer, public.quota_bytes()
    from public.files f
    where f.owner_id = auth.uid()
  $$;

create function public.search_files(q text)
  returns setof public.files
  language sql stable
  as $$
    select f.* from public.files f
    where f.owner_id = auth.uid()
      and (
        to_tsvector('simple', f.name) @@ websearch_to_tsquery('simple', q)
        or f.name ilike '%' || replace(replace(replace(q, '\', '\\'), '%', '\%'), '_', '\_') || '%'
      )
    order by f.name
  $$;

-- Starts (or resumes) an upload: the row of an unfinished upload of the same name and size in
-- that folder is returned again, so picking the same file after a reload resumes it;
-- otherwise a new row is created, named "name (n).ext" when the name is taken.
create function public.begin_upload(
  p_folder_id uuid, p_name text, p_size bigint, p_mime_type text default 'application/octet-stream'
)
  returns public.files
  language plpgsql
  as $$
  declare
    existing public.files;
    candidate text := p_name;
    stem text;
    ext text;
    n integer := 0;
    created public.files;
  begin
    if not public.is_valid_name(p_name) then
      raise exception 'Invalid name' using errcode = '23514', hint = 'invalid_name';
    end if;
    perform pg_advisory_xact_lock(hashtextextended(auth.uid()::text || ':' || coalesce(p_folder_id::text, ''), 1));
    select * into existing from public.files f
      where f.owner_id = auth.uid() and f.folder_id is not distinct from p_folder_id
        and lower(f.name) = lower(p_name) and f.size = p_size and f.status = 'uploading'
      limit 1;
    if found then
      return existing;
    end if;
    -- "report.final.pdf" → stem "report.final", ext ".pdf"; ".bashrc" has no extension.
    if p_name ~ '^.+\.[^.]+$' then
      stem := regexp_replace(p_name, '\.[^.]+$', '');
      ext := substring(p_name from '(\.[^.]+)$');
    else
      stem := p_name;
      ext := '';
    end if;
    while exists (
      select 1 from public.files f
      where f.owner_id = auth.uid() and f.folder_id is not distinct from p_folder_id
        and lower(f.name) = lower(candidate)
    ) loop
      n := n + 1;
      candidate := left(stem, 255 - char_length(ext) - char_length(format(' (%s)', n)))
        || format(' (%s)', n) || ext;
    end loop;
    insert into public.files (folder_id, name, size, mime_type)
      values (p_folder_id, candidate, p_size, coalesce(nullif(p_mime_type, ''), 'application/octet-stream'))
      returning * into created;
    return created;
  end
  $$;

-- Used by the `share` function with the service role only: never callable by visitors.
create function public.resolve_share(share_token text)
  returns table (
    state text, file_id uuid, name text, size bigint, mime_type text, object_path text,
    expires_at timestamptz
  )
  language plpgsql security definer set search_path = ''
  as $$
  declare
    s public.shares;
    f public.files;
  begin
    select * into s from public.shares where token = share_token;
    if not found then
      return query select 'not_found'::text, null::uuid, null::text, null::bigint, null::text,
        null::text, null::timestamptz;
      return;
    end if;
    select * into f from public.files where id = s.file_id;
    if s.revoked_at is not null then
      state := 'revoked';
    elsif s.expires_at <= now() then
      state := 'expired';
    elsif f.status <> 'ready' then
      state := 'not_found';
    else
      state := 'ok';
      update public.shares set download_count = download_count + 1 where id = s.id;
    end if;
    return query select state, f.id, f.name, f.size, f.mime_type, f.object_path, s.expires_at;
  end
  $$;
revoke execute on function public.resolve_share(text) from public, anon, authenticated;
grant execute on function public.resolve_share(text) to service_role;

-- Storage: one private bucket; only the owner (first path segment) reads or writes, and an
-- object may only be created for a file row of the same owner that is still uploading
-- (which is where the quota was checked).
insert into storage.buckets (id, name, public, file_size_limit)
values ('files', 'files', false, 5368709120)
on conflict (id) do nothing;

create policy "files bucket: owner reads" on storage.objects
  for select to authenticated
  using (bucket_id = 'files' and (storage.foldername(name))[1] = auth.uid()::text);
create policy "files bucket: create for an uploading file" on storage.objects
  for insert to authenticated
  with check (
    bucket_id = 'files'
    and (storage.foldername(name))[1] = auth.uid()::text
    and exists (
      select 1 from public.files f
      where f.object_path = objects.name and f.owner_id = auth.uid() and f.status = 'uploading'
    )
  );
create policy "files bucket: owner replaces while uploading" on storage.objects
  for update to authenticated
  using (bucket_id = 'files' and (storage.foldername(name))[1] = auth.uid()::text)
  with check (
    bucket_id = 'files'
    and exists (
      select 1 from public.files f
      where f.object_path = objects.name and f.owner_id = auth.uid() and f.status = 'uploading'
    )
  );
create policy "files bucket: owner deletes" on storage.objects
  for delete to authenticated
  using (bucket_id = 'files' and (storage.foldername(name))[1] = auth.uid()::text);

-- Live updates in other tabs and devices.
alter publication supabase_realtime add table public.files, public.folders;
