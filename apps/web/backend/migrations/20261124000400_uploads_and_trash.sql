-- Incomplete uploads and folder uploads, with the Trash (20261124000100_trash.sql):
-- * begin_upload: the Trash's rules (an unfinished upload in the Trash is never resumed; names
--   of Trash entries are free) and the incomplete-upload record (expired uploads go first; a
--   new incomplete file gets its `uploads` row);
-- * a folder upload never reuses a folder that is in the Trash.
create or replace function public.begin_upload(
  p_folder_id uuid, p_name text, p_size bigint, p_mime_type text default 'application/octet-stream'
)
  returns public.files
  language plpgsql
  as $$
  declare
    existing public.files;
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
        and f.trashed_at is null
      limit 1;
    if found then
      return existing;
    end if;
    insert into public.files (folder_id, name, size, mime_type)
      values (p_folder_id, public.free_name('file', p_folder_id, p_name), p_size,
              coalesce(nullif(p_mime_type, ''), 'application/octet-stream'))
      returning * into created;
    insert into public.uploads (file_id, owner_id) values (created.id, created.owner_id);
    return created;
  end
  $$;

create or replace function public.ensure_folder_path(p_parent_id uuid, p_names text[])
  returns uuid
  language plpgsql
  as $$
  declare
    current_id uuid := p_parent_id;
    folder_name text;
    found_id uuid;
  begin
    foreach folder_name in array coalesce(p_names, '{}') loop
      if not public.is_valid_name(folder_name) then
        raise exception 'Invalid name' using errcode = '23514', hint = 'invalid_name';
      end if;
      perform pg_advisory_xact_lock(
        hashtextextended(auth.uid()::text || ':' || coalesce(current_id::text, ''), 2));
      found_id := null;
      select f.id into found_id from public.folders f
       where f.owner_id = auth.uid() and f.parent_id is not distinct from current_id
         and lower(f.name) = lower(folder_name) and f.trashed_at is null;
      if found_id is null then
        insert into public.folders (parent_id, name) values (current_id, folder_name)
          returning id into found_id;
      end if;
      current_id := found_id;
    end loop;
    return current_id;
  end
  $$;
