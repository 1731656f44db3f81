-- Incomplete uploads: what a file row that is still 'uploading' holds, where its resumable
-- upload is, and when it expires.
--
-- * `uploads` has one row per incomplete file: the tus upload URL and the key of the file it
--   belongs to (so the same file picked again, on any device, resumes from the server's
--   offset), and the bytes the server has, as the uploader reports them.
-- * An incomplete file counts against the quota only for the bytes it holds; a file becomes
--   'ready' only if the quota holds with its full size.
-- * Incomplete files expire with their resumable upload: 24 hours after it started (the
--   storage service forgets an unfinished tus upload after that long).
create table public.uploads (
  file_id uuid primary key references public.files (id) on delete cascade,
  owner_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  upload_url text check (char_length(upload_url) <= 2048),
  upload_key text check (char_length(upload_key) <= 2048),
  bytes_uploaded bigint not null default 0 check (bytes_uploaded >= 0),
  started_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index uploads_started on public.uploads (started_at);
create index files_incomplete on public.files (created_at) where status = 'uploading';
alter table public.uploads enable row level security;
create policy "uploads: owner reads" on public.uploads
  for select to authenticated using (owner_id = auth.uid());
revoke all on public.uploads from anon, authenticated;
grant select on public.uploads to authenticated;

-- How long an unfinished upload is kept (the storage service's tus upload expiry).
create function public.upload_expiry() returns interval
  language sql immutable
  as $$ select interval '24 hours' $$;

-- Removes every incomplete file whose upload has expired (all users); returns how many.
create function public.expire_uploads() returns integer
  language plpgsql security definer set search_path = ''
  as $$
  declare
    removed integer;
  begin
    delete from public.files f
     where f.status = 'uploading'
       and coalesce((select u.started_at from public.uploads u where u.file_id = f.id), f.created_at)
           < now() - public.upload_expiry();
    get diagnostics removed = row_count;
    return removed;
  end
  $$;
revoke execute on function public.expire_uploads() from public, anon;
grant execute on function public.expire_uploads() to authenticated;

-- Bytes that count against an owner's quota: ready files in full, incomplete ones for what
-- they hold (expired ones not at all), optionally leaving one file out.
create function public.used_bytes(owner uuid, except_file uuid default null) returns bigint
  language sql stable security definer set search_path = ''
  as $$
    select coalesce(sum(case when f.status = 'ready' then f.size
                             else least(f.size, coalesce(u.bytes_uploaded, 0)) end), 0)::bigint
      from public.files f
      left join public.uploads u on u.file_id = f.id
     where f.owner_id = owner
       and f.id is distinct from except_file
       and (f.status = 'ready'
            or coalesce(u.started_at, f.created_at) >= now() - public.upload_expiry())
  $$;
revoke execute on function public.used_bytes(uuid, uuid) from public, anon, authenticated;

create or replace function public.files_before_write() returns trigger
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
    -- One quota decision at a time per owner: a new file must fit next to what is used; a
    -- finished one must fit with its full size.
    if tg_op = 'INSERT' or (new.status = 'ready' and old.status = 'uploading') then
      perform pg_advisory_xact_lock(hashtextextended(new.owner_id::text, 0));
      used := public.used_bytes(new.owner_id, new.id);
      if used + new.size > public.quota_bytes() then
        raise exception 'Storage quota exceeded'
          using errcode = 'P0001', hint = 'quota_exceeded',
                detail = format('used %s of %s bytes; this file needs %s', used, public.quota_bytes(), new.size);
      end if;
    end if;
    if tg_op = 'UPDATE' and new.status = 'ready' and old.status = 'uploading' then
      delete from public.uploads where file_id = new.id;
    end if;
    return new;
  end
  $$;

-- Security definer: it reads the caller's own usage (auth.uid()) through used_bytes, which
-- no user may call with someone else's id.
create or replace function public.storage_usage()
  returns table (used_bytes bigint, file_count integer, quota_bytes bigint)
  language plpgsql volatile security definer set search_path = ''
  as $$
  begin
    perform public.expire_uploads();
    return query
      select public.used_bytes(auth.uid()),
             (select count(*)::integer from public.files f
               where f.owner_id = auth.uid() and f.status = 'ready'),
             public.quota_bytes();
  end
  $$;

-- Starts (or resumes) an upload, as before, and keeps its record: expired incomplete files
-- go first, and a new incomplete file gets its `uploads` row.
create or replace function public.begin_upload(
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
    perform public.expire_uploads();
    perform pg_advisory_xact_lock(hashtextextended(auth.uid()::text || ':' || coalesce(p_folder_id::text, ''), 1));
    select * into existing from public.files f
      where f.owner_id = auth.uid() and f.folder_id is not distinct from p_folder_id
        and lower(f.name) = lower(p_name) and f.size = p_size and f.status = 'uploading'
      limit 1;
    if found then
      return existing;
    end if;
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
    insert into public.uploads (file_id, owner_id) values (created.id, created.owner_id);
    return created;
  end
  $$;
-- begin_upload runs as the user: it may create the record of its own new file.
create policy "uploads: owner creates" on public.uploads
  for insert to authenticated with check (
    owner_id = auth.uid()
    and exists (select 1 from public.files f
                where f.id = file_id and f.owner_id = auth.uid() and f.status = 'uploading')
  );
grant insert on public.uploads to authenticated;

-- What the uploader reports: the bytes the server has, and (when it changes) the resumable
-- upload's URL and the key of its file; a new URL is a new upload, which expires 24 hours on.
create function public.record_upload(
  p_file_id uuid, p_bytes bigint, p_url text default null, p_key text default null
)
  returns void
  language plpgsql security definer set search_path = ''
  as $$
  begin
    insert into public.uploads as u (file_id, owner_id, upload_url, upload_key, bytes_uploaded)
    select f.id, f.owner_id, p_url, p_key, least(greatest(coalesce(p_bytes, 0), 0), f.size)
      from public.files f
     where f.id = p_file_id and f.owner_id = auth.uid() and f.status = 'uploading'
    on conflict (file_id) do update set
      bytes_uploaded = excluded.bytes_uploaded,
      upload_url = coalesce(excluded.upload_url, u.upload_url),
      upload_key = coalesce(excluded.upload_key, u.upload_key),
      started_at = case when excluded.upload_url is distinct from null
                         and excluded.upload_url is distinct from u.upload_url
                        then now() else u.started_at end,
      updated_at = now();
  end
  $$;
revoke execute on function public.record_upload(uuid, bigint, text, text) from public, anon;
grant execute on function public.record_upload(uuid, bigint, text, text) to authenticated;

-- Where the hosted platform has pg_cron, expired uploads also go every 15 minutes without
-- waiting for their owner (here they go whenever anyone starts an upload or looks at usage).
do $$
begin
  if exists (select 1 from pg_available_extensions where name = 'pg_cron') then
    create extension if not exists pg_cron;
    perform cron.schedule('drive-expire-uploads', '*/15 * * * *', 'select public.expire_uploads()');
  end if;
exception when others then
  raise notice 'expired uploads are removed on use only: %', sqlerrm;
end
$$;
