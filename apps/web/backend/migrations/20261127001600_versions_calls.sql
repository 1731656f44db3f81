-- Versions, part 2: the calls and the storage policies (see 20261127001500_versions.sql).
-- Every call checks its caller itself (`private.role_on`: owner, editor, viewer or none).

-- Starts (or resumes) a new version of a ready file: owner or Editor, within the owner's
-- quota. The same uploader picking the same size again gets the same unfinished version.
create function public.begin_version(p_file_id uuid, p_size bigint, p_mime_type text default 'application/octet-stream')
  returns table (id uuid, file_id uuid, object_path text, size bigint, mime_type text, status text)
  language plpgsql security definer set search_path = ''
  as $$
  declare
    f public.files;
    v public.file_versions;
    role text;
  begin
    select * into f from public.files where files.id = p_file_id for share;
    role := case when found then private.role_on(f.owner_id, f.ancestors || f.id) end;
    if role is null then
      perform private.refuse('No such file', 'not_found', 'P0002');
    elsif role not in ('owner', 'editor') then
      perform private.refuse('Only the owner and Editors add versions', 'not_editor');
    elsif f.deleting_since is not null or f.trashed_at is not null then
      perform private.refuse('This item is in the Trash', 'item_deleted', '23503');
    elsif f.status <> 'ready' then
      perform private.refuse('The upload of this file has not finished', 'upload_incomplete', '23514');
    elsif p_size is null or p_size < 0 or p_size > 5368709120 then
      perform private.refuse('Files can be at most 5 GB', 'file_too_large', '23514');
    end if;
    select * into v from public.file_versions x
      where x.file_id = f.id and x.status = 'uploading' and x.uploaded_by = auth.uid()
        and x.size = p_size and x.deleting_since is null
        and x.created_at >= now() - public.upload_expiry()
      order by x.created_at desc limit 1;
    if not found then
      perform private.check_quota(f.owner_id, p_size);
      v.id := gen_random_uuid();
      insert into public.file_versions (id, file_id, object_path, size, mime_type, uploaded_by)
        values (v.id, f.id, f.owner_id::text || '/' || f.id::text || '/' || v.id::text || '/' || f.name,
                p_size, coalesce(nullif(p_mime_type, ''), 'application/octet-stream'), auth.uid())
        returning * into v;
    end if;
    return query select v.id, v.file_id, v.object_path, v.size, v.mime_type, v.status;
  end
  $$;

-- Makes `p_version` the file's current version, in the caller's transaction.
create function private.switch_version(p_file uuid, p_version uuid) returns public.files
  language plpgsql security definer set search_path = ''
  as $$
  declare
    f public.files;
  begin
    perform pg_catalog.set_config('drive.version_switch', p_version::text, true);
    update public.files set current_version_id = p_version where id = p_file returning * into f;
    perform pg_catalog.set_config('drive.version_switch', '', true);
    return f;
  end
  $$;
revoke all on function private.switch_version(uuid, uuid) from public;

-- Finishes a new version (its uploader, once the object is stored): the file switches to it
-- in this one transaction, and the owner's quota must hold it next to the older versions.
create function public.finish_version(p_version uuid)
  returns public.files
  language plpgsql security definer set search_path = ''
  as $$
  declare
    vf record;
    f public.files;
  begin
    select * into vf from private.version_file(p_version);
    if vf.role is null or (vf.version).uploaded_by is distinct from auth.uid() then
      perform private.refuse('No such version', 'version_not_found', 'P0002');
    elsif vf.role not in ('owner', 'editor') then
      perform private.refuse('Only the owner and Editors add versions', 'not_editor');
    end if;
    select * into f from public.files where id = (vf.file).id for update;
    perform 1 from public.file_versions where id = p_version for update;
    if (select status from public.file_versions where id = p_version) = 'ready' then
      return f; -- finished already (a retry)
    end if;
    if f.deleting_since is not null or (vf.version).deleting_since is not null then
      perform private.refuse('This item is being deleted forever', 'item_deleted', '23503');
    elsif not private.object_stored((vf.version).object_path) then
      perform private.refuse('The upload of this file has not finished', 'upload_incomplete', '23514');
    end if;
    perform private.check_quota(f.owner_id, (vf.version).size);
    update public.file_versions set status = 'ready', created_at = now() where id = p_version;
    f := private.switch_version(f.id, p_version);
    insert into public.activity (item_kind, item_id, owner_id, actor_id, action, details)
      values ('file', f.id, f.owner_id, auth.uid(), 'version_uploaded',
              pg_catalog.jsonb_build_object('name', f.name, 'size', f.size, 'parent', f.folder_id));
    return f;
  end
  $$;

-- Restores an older version as a new one (owner or Editor): the new version shares the old
-- one's object, so nothing is copied and the quota is unchanged.
create function public.restore_version(p_version uuid)
  returns public.files
  language plpgsql security definer set search_path = ''
  as $$
  declare
    vf record;
    f public.files;
    created uuid;
  begin
    select * into vf from private.version_file(p_version);
    if vf.role is null or (vf.version).status <> 'ready' or (vf.version).deleting_since is not null then
      perform private.refuse('No such version', 'version_not_found', 'P0002');
    elsif vf.role not in ('owner', 'editor') then
      perform private.refuse('Only the owner and Editors restore versions', 'not_editor');
    end if;
    select * into f from public.files where id = (vf.file).id for update;
    if f.deleting_since is not null or f.trashed_at is not null then
      perform private.refuse('This item is in the Trash', 'item_deleted', '23503');
    elsif f.current_version_id = p_version then
      perform private.refuse('This is the current version', 'version_current', '23514');
    end if;
    insert into public.file_versions (file_id, object_path, size, mime_type, uploaded_by, status, restored_from)
      values (f.id, (vf.version).object_path, (vf.version).size, (vf.version).mime_type, auth.uid(),
              'ready', p_version)
      returning id into created;
    f := private.switch_version(f.id, created);
    insert into public.activity (item_kind, item_id, owner_id, actor_id, action, details)
      values ('file', f.id, f.owner_id, auth.uid(), 'version_restored',
              pg_catalog.jsonb_build_object('name', f.name, 'from', (vf.version).created_at));
    return f;
  end
  $$;

-- The versions of a file, newest first, for anyone who can read it (an empty list otherwise).
create function public.list_versions(p_file_id uuid)
  returns table (id uuid, size bigint, mime_type text, uploaded_by uuid, uploader_name text,
                 created_at timestamptz, is_current boolean, restored_from uuid, object_path text)
  language sql stable security definer set search_path = ''
  as $$
    select v.id, v.size, v.mime_type, v.uploaded_by, private.display_name(v.uploaded_by),
           v.created_at, v.id = f.current_version_id, v.restored_from, v.object_path
      from public.files f join public.file_versions v on v.file_id = f.id
     where f.id = p_file_id and v.status = 'ready' and v.deleting_since is null
       and private.role_on(f.owner_id, f.ancestors || f.id) is not null
     order by v.created_at desc, v.id
  $$;

-- Deleting a version, step 1 (owner or Editor, not the current one): marks it and returns its
-- object when no other version or file holds it (`functions/trash` removes it, then calls
-- `finish_version_deletes`).
create function public.begin_delete_version(p_version uuid)
  returns table (object_path text)
  language plpgsql security definer set search_path = ''
  as $$
  declare
    vf record;
  begin
    select * into vf from private.version_file(p_version);
    if vf.role is null or (vf.version).status <> 'ready' then
      perform private.refuse('No such version', 'version_not_found', 'P0002');
    elsif vf.role not in ('owner', 'editor') then
      perform private.refuse('Only the owner and Editors delete versions', 'not_editor');
    end if;
    perform 1 from public.files where id = (vf.file).id for update;
    if (select current_version_id from public.files where id = (vf.file).id) = p_version then
      perform private.refuse('The current version cannot be deleted', 'version_current', '23514');
    end if;
    update public.file_versions set deleting_since = coalesce(deleting_since, now()) where id = p_version;
    return query select (vf.version).object_path where not private.object_held((vf.version).object_path);
  end
  $$;

-- Retention, step 1: marks the versions past the owner's setting (older than `keep_days`, or
-- beyond the newest `keep_versions` of their file, never the current one) and replacements
-- unfinished past the upload expiry; returns the objects no one else holds, with those of
-- earlier marks not finished. The service role prunes everyone's; a user their own files'.
create function public.begin_prune_versions()
  returns table (object_path text)
  language plpgsql security definer set search_path = ''
  as $$
  declare
    everyone boolean := coalesce(auth.role() = 'service_role', false);
  begin
    if not everyone and (auth.uid() is null or not private.two_step_passed()) then
      perform private.refuse('Sign in first', 'not_signed_in');
    end if;
    with ranked as (
      select v.id, v.status, v.created_at, f.current_version_id = v.id as current,
             pg_catalog.row_number() over (partition by v.file_id order by v.created_at desc, v.id) as n,
             coalesce(s.keep_days, 30) as keep_days, coalesce(s.keep_versions, 100) as keep_versions
        from public.file_versions v join public.files f on f.id = v.file_id
        left join public.version_settings s on s.owner_id = f.owner_id
       where v.deleting_since is null and (everyone or f.owner_id = auth.uid())
    )
    update public.file_versions v set deleting_since = now()
      from ranked r
     where v.id = r.id and not r.current
       and case when r.status = 'ready'
                then r.created_at < now() - pg_catalog.make_interval(days => r.keep_days)
                     or r.n > r.keep_versions
                else r.created_at < now() - public.upload_expiry() end;
    return query
      select distinct v.object_path
        from public.file_versions v join public.files f on f.id = v.file_id
       where v.deleting_since is not null and (everyone or f.owner_id = auth.uid())
         and not private.object_held(v.object_path);
  end
  $$;

-- Step 3 of both: deletes the marked versions whose object is gone (or held by another
-- version or file) that the caller may change; returns how many.
create function public.finish_version_deletes()
  returns integer
  language plpgsql security definer set search_path = ''
  as $$
  declare
    n integer;
  begin
    delete from public.file_versions v
      using public.files f
     where f.id = v.file_id and v.deleting_since is not null
       and (coalesce(auth.role() = 'service_role', false)
            or private.role_on(f.owner_id, f.ancestors || f.id) in ('owner', 'editor'))
       and (not private.object_stored(v.object_path) or private.object_held(v.object_path));
    get diagnostics n = row_count;
    return n;
  end
  $$;

-- Objects of the older versions of files being deleted forever (`functions/trash` removes
-- them with the files' own). Row level security decides which files the caller reaches.
create function public.deleting_version_objects(p_files uuid[] default '{}', p_folders uuid[] default '{}')
  returns table (object_path text)
  language sql stable
  as $$
    select distinct v.object_path from public.files f join public.file_versions v on v.file_id = f.id
     where f.deleting_since is not null and v.object_path <> f.object_path
       and (f.id = any(coalesce(p_files, '{}')) or f.trashed_via = any(coalesce(p_folders, '{}')))
  $$;

revoke execute on function public.begin_version(uuid, bigint, text), public.finish_version(uuid),
  public.restore_version(uuid), public.list_versions(uuid), public.begin_delete_version(uuid),
  public.begin_prune_versions(), public.finish_version_deletes(),
  public.deleting_version_objects(uuid[], uuid[]) from public, anon;
grant execute on function public.begin_version(uuid, bigint, text), public.finish_version(uuid),
  public.restore_version(uuid), public.list_versions(uuid), public.begin_delete_version(uuid),
  public.begin_prune_versions(), public.finish_version_deletes(),
  public.deleting_version_objects(uuid[], uuid[]) to authenticated, service_role;

-- Storage: a new version's object is stored by its uploader while it is unfinished and the
-- uploader may still edit the file (the version row locked while the object commits).
create function private.accepts_version_object(p_name text) returns boolean
  language plpgsql volatile security definer set search_path = ''
  as $$
  begin
    perform 1 from public.file_versions v join public.files f on f.id = v.file_id
      where v.object_path = p_name and v.status = 'uploading' and v.uploaded_by = auth.uid()
        and v.deleting_since is null and f.deleting_since is null
        and private.role_on(f.owner_id, f.ancestors || f.id) in ('owner', 'editor')
      for share of v;
    return found;
  end
  $$;
-- Older versions' objects are readable while the caller can read the file (one being deleted
-- too, until it is gone: the storage API reads what it deletes).
create function private.reads_version_object(p_name text) returns boolean
  language sql stable security definer set search_path = ''
  as $$
    select exists (
      select 1 from public.file_versions v join public.files f on f.id = v.file_id
       where v.object_path = p_name and v.status = 'ready'
         and private.role_on(f.owner_id, f.ancestors || f.id) is not null)
  $$;
-- A deleted version's object is removed by who may edit the file, once nothing holds it.
create function private.removes_version_object(p_name text) returns boolean
  language sql stable security definer set search_path = ''
  as $$
    select exists (
      select 1 from public.file_versions v join public.files f on f.id = v.file_id
       where v.object_path = p_name and v.deleting_since is not null
         and private.role_on(f.owner_id, f.ancestors || f.id) in ('owner', 'editor'))
      and not private.object_held(p_name)
  $$;
revoke all on function private.accepts_version_object(text), private.reads_version_object(text),
  private.removes_version_object(text) from public;
grant execute on function private.accepts_version_object(text), private.reads_version_object(text),
  private.removes_version_object(text) to authenticated;

create policy "files bucket: uploader stores a new version" on storage.objects
  for insert to authenticated
  with check (bucket_id = 'files' and private.accepts_version_object(name));
create policy "files bucket: uploader replaces a new version while uploading" on storage.objects
  for update to authenticated
  using (bucket_id = 'files' and private.accepts_version_object(name))
  with check (bucket_id = 'files' and private.accepts_version_object(name));
create policy "files bucket: readers of a version" on storage.objects
  for select to authenticated
  using (bucket_id = 'files' and private.reads_version_object(name));
create policy "files bucket: editor removes a deleted version" on storage.objects
  for delete to authenticated
  using (bucket_id = 'files' and private.removes_version_object(name));
