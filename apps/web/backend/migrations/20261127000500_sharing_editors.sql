-- Sharing with people, part 3: what Editors do (see ../SHARING.md).
--
-- An Editor of a folder uploads and creates in it (the new rows belong to the folder's owner,
-- and count against the owner's quota), renames, moves within what they edit, moves to the
-- Trash and restores. What goes to the Trash goes to the owner's Trash (`trashed_by` says who
-- put it there). Only the owner deletes forever, stars, shares and changes access; an Editor's
-- attempt to delete forever changes nothing (as row level security does), a star is refused.

alter table public.folders add column trashed_by uuid references auth.users (id) on delete set null;
alter table public.files add column trashed_by uuid references auth.users (id) on delete set null;

create policy "folders: editor creates in a shared folder" on public.folders
  for insert to authenticated
  with check (ancestors && (select private.editor_ids()));
create policy "folders: editor updates shared items" on public.folders
  for update to authenticated
  using ((ancestors || id) && (select private.editor_ids()))
  with check ((ancestors || id) && (select private.editor_ids()));
create policy "files: editor creates in a shared folder" on public.files
  for insert to authenticated
  with check (ancestors && (select private.editor_ids()));
create policy "files: editor updates shared items" on public.files
  for update to authenticated
  using ((ancestors || id) && (select private.editor_ids()))
  with check ((ancestors || id) && (select private.editor_ids()));
-- Cancel: the uploader deletes their own unfinished upload that has no stored object.
create policy "files: uploader cancels a shared upload with no object" on public.files
  for delete to authenticated
  using (
    created_by = (select auth.uid()) and status = 'uploading'
    and (ancestors || id) && (select private.editor_ids())
    and not private.object_stored(object_path)
  );

-- What a person who is not the owner may not change, and who put an item in the Trash.
-- (Runs for client statements; the definer functions check their callers themselves.)
create function public.shared_item_guard() returns trigger
  language plpgsql
  as $$
  declare
    parent uuid;
    old_parent uuid;
  begin
    if old.trashed_at is null and new.trashed_at is not null then
      new.trashed_by := coalesce(auth.uid(), new.owner_id);
    elsif new.trashed_at is null then
      new.trashed_by := null;
    else
      new.trashed_by := old.trashed_by;
    end if;
    if current_user not in ('anon', 'authenticated') or old.owner_id = auth.uid() then
      return new;
    end if;
    if new.deleting_since is distinct from old.deleting_since then
      return null; -- only the owner deletes forever: the row is left alone
    end if;
    if new.starred_at is distinct from old.starred_at then
      raise exception 'Only the owner stars an item' using errcode = '42501', hint = 'owner_only';
    end if;
    if tg_table_name = 'files' then
      parent := new.folder_id;
      old_parent := old.folder_id;
    else
      parent := new.parent_id;
      old_parent := old.parent_id;
    end if;
    if parent is distinct from old_parent
      and (parent is null or not new.ancestors && private.editor_ids()) then
      raise exception 'An Editor moves items only within the folders they edit'
        using errcode = '42501', hint = 'not_editor';
    end if;
    return new;
  end
  $$;
create trigger folders_shared_guard
  before update on public.folders
  for each row execute function public.shared_item_guard();
create trigger files_shared_guard
  before update on public.files
  for each row execute function public.shared_item_guard();

-- Stored objects: an Editor stores the object of an upload they started in a shared folder
-- (locked while the object's row commits, as for the owner's own uploads).
create function private.accepts_shared_object(p_name text) returns boolean
  language plpgsql volatile security definer set search_path = ''
  as $$
  begin
    perform 1 from public.files f
      where f.object_path = p_name and f.created_by = auth.uid() and f.status = 'uploading'
        and f.deleting_since is null and (f.ancestors || f.id) && private.editor_ids()
        and private.two_step_passed()
      for share;
    return found;
  end
  $$;
revoke all on function private.accepts_shared_object(text) from public;
grant execute on function private.accepts_shared_object(text) to authenticated;
create policy "files bucket: editor stores an upload in a shared folder" on storage.objects
  for insert to authenticated
  with check (bucket_id = 'files' and private.accepts_shared_object(name));
create policy "files bucket: editor replaces a shared upload" on storage.objects
  for update to authenticated
  using (bucket_id = 'files' and private.accepts_shared_object(name))
  with check (bucket_id = 'files' and private.accepts_shared_object(name));

-- Upload records belong to the uploader (`owner_id` of `uploads` is who uploads).
create function private.started_upload(p_file uuid) returns boolean
  language sql stable security definer set search_path = ''
  as $$
    select exists (select 1 from public.files f
                   where f.id = p_file and f.created_by = auth.uid() and f.status = 'uploading'
                     and (f.ancestors || f.id) && private.editor_ids())
  $$;
revoke all on function private.started_upload(uuid) from public;
grant execute on function private.started_upload(uuid) to authenticated;
create policy "uploads: uploader creates for a shared upload" on public.uploads
  for insert to authenticated
  with check (owner_id = (select auth.uid()) and private.started_upload(file_id));

create or replace function public.record_upload(
  p_file_id uuid, p_bytes bigint, p_url text default null, p_key text default null
)
  returns void
  language plpgsql security definer set search_path = ''
  as $$
  begin
    if not private.two_step_passed() then
      return;
    end if;
    insert into public.uploads as u (file_id, owner_id, upload_url, upload_key, bytes_uploaded)
    select f.id, auth.uid(), p_url, p_key, least(greatest(coalesce(p_bytes, 0), 0), f.size)
      from public.files f
     where f.id = p_file_id and f.status = 'uploading'
       and coalesce(f.created_by, f.owner_id) = auth.uid()
       and (f.owner_id = auth.uid() or (f.ancestors || f.id) && private.editor_ids())
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

-- The quota is the owner's. An upload by someone else that does not fit is refused with the
-- same hint, and a message about the owner's storage (not the owner's figures).
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
      -- (The owner no longer stays here unconditionally: place_item keeps it for clients, and
      -- a transfer of ownership changes it.)
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
    if tg_op = 'INSERT' or (new.status = 'ready' and old.status = 'uploading') then
      perform pg_advisory_xact_lock(hashtextextended(new.owner_id::text, 0));
      used := public.used_bytes(new.owner_id, new.id);
      if used + new.size > public.quota_bytes() then
        if auth.uid() is distinct from new.owner_id and auth.uid() is not null then
          raise exception 'The owner''s storage is full'
            using errcode = 'P0001', hint = 'quota_exceeded',
                  detail = 'owner_quota: the owner of this folder has no room for this file';
        end if;
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

-- A free name in a folder among all of its items (a shared folder holds items of its owner
-- that any person with access sees), or at the root of `p_owner`.
create function private.free_name_in(
  p_owner uuid, p_kind text, p_parent uuid, p_name text, p_except uuid default null
)
  returns text
  language plpgsql stable security definer set search_path = ''
  as $$
  declare
    candidate text := p_name;
    stem text;
    ext text;
    n integer := 0;
  begin
    if p_kind = 'folder' or p_name !~ '^.+\.[^.]+$' then
      stem := p_name;
      ext := '';
    else
      stem := pg_catalog.regexp_replace(p_name, '\.[^.]+$', '');
      ext := substring(p_name from '(\.[^.]+)$');
    end if;
    loop
      if p_kind = 'folder' then
        exit when not exists (
          select 1 from public.folders f
          where f.owner_id = p_owner and f.parent_id is not distinct from p_parent
            and lower(f.name) = lower(candidate) and f.id is distinct from p_except
            and (f.trashed_at is null or f.trashed_via is not null)
        );
      else
        exit when not exists (
          select 1 from public.files f
          where f.owner_id = p_owner and f.folder_id is not distinct from p_parent
            and lower(f.name) = lower(candidate) and f.id is distinct from p_except
            and (f.trashed_at is null or f.trashed_via is not null)
        );
      end if;
      n := n + 1;
      candidate := left(stem, 255 - char_length(ext) - char_length(format(' (%s)', n)))
        || format(' (%s)', n) || ext;
    end loop;
    return candidate;
  end
  $$;
revoke all on function private.free_name_in(uuid, text, uuid, text, uuid) from public;
grant execute on function private.free_name_in(uuid, text, uuid, text, uuid) to authenticated, service_role;

-- The owner of the tree a folder is in, for a caller who sees that folder (else the caller).
create function private.tree_owner(p_folder uuid) returns uuid
  language sql stable
  as $$
    select coalesce((select f.owner_id from public.folders f where f.id = p_folder), auth.uid())
  $$;
revoke all on function private.tree_owner(uuid) from public;
grant execute on function private.tree_owner(uuid) to authenticated, service_role;

-- As before for one's own folders; in a shared folder, among all of its items.
create or replace function public.free_name(p_kind text, p_parent uuid, p_name text, p_except uuid default null)
  returns text
  language sql stable
  as $$
    select private.free_name_in(
      case when p_parent is null then auth.uid() else private.tree_owner(p_parent) end,
      p_kind, p_parent, p_name, p_except)
  $$;

create or replace function public.begin_upload(
  p_folder_id uuid, p_name text, p_size bigint, p_mime_type text default 'application/octet-stream'
)
  returns public.files
  language plpgsql
  as $$
  declare
    existing public.files;
    created public.files;
    tree_owner uuid := private.tree_owner(p_folder_id);
  begin
    if not public.is_valid_name(p_name) then
      raise exception 'Invalid name' using errcode = '23514', hint = 'invalid_name';
    end if;
    perform public.expire_uploads();
    perform pg_advisory_xact_lock(hashtextextended(tree_owner::text || ':' || coalesce(p_folder_id::text, ''), 1));
    select * into existing from public.files f
      where f.owner_id = tree_owner and f.folder_id is not distinct from p_folder_id
        and lower(f.name) = lower(p_name) and f.size = p_size and f.status = 'uploading'
        and f.trashed_at is null and coalesce(f.created_by, f.owner_id) = auth.uid()
      limit 1;
    if found then
      return existing;
    end if;
    insert into public.files (folder_id, name, size, mime_type)
      values (p_folder_id, public.free_name('file', p_folder_id, p_name), p_size,
              coalesce(nullif(p_mime_type, ''), 'application/octet-stream'))
      returning * into created;
    insert into public.uploads (file_id, owner_id) values (created.id, auth.uid());
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
    tree_owner uuid := private.tree_owner(p_parent_id);
  begin
    foreach folder_name in array coalesce(p_names, '{}') loop
      if not public.is_valid_name(folder_name) then
        raise exception 'Invalid name' using errcode = '23514', hint = 'invalid_name';
      end if;
      perform pg_advisory_xact_lock(
        hashtextextended(tree_owner::text || ':' || coalesce(current_id::text, ''), 2));
      found_id := null;
      select f.id into found_id from public.folders f
       where f.owner_id = tree_owner and f.parent_id is not distinct from current_id
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

-- May the caller change this item (owner or Editor; the service role for the purge)?
create function private.may_edit(p_owner uuid, p_path uuid[]) returns boolean
  language sql stable security definer set search_path = ''
  as $$
    select coalesce(auth.role() = 'service_role', false)
      or coalesce(private.role_on(p_owner, p_path) in ('owner', 'editor'), false)
  $$;
revoke all on function private.may_edit(uuid, uuid[]) from public;
grant execute on function private.may_edit(uuid, uuid[]) to authenticated, service_role;

-- Restores Trash entries (owner or Editor) to their place when it still exists, is not in the
-- Trash and (for an Editor) the item would still be theirs to edit there (the place is, or
-- the item itself is shared with them as Editor); otherwise to the owner's root ("My
-- files"). Under a free name when the name is taken there. Same answer as before.
create or replace function public.restore_items(p_files uuid[] default '{}', p_folders uuid[] default '{}')
  returns table (kind text, id uuid, name text, parent_id uuid, renamed boolean, relocated boolean)
  language plpgsql security definer set search_path = ''
  as $$
  declare
    r record;
    dest uuid;
    free text;
  begin
    for r in
      select f.id, f.name, f.parent_id, f.owner_id from public.folders f
      where f.id = any(coalesce(p_folders, '{}')) and f.trashed_at is not null
        and f.trashed_via is null and f.deleting_since is null
        and private.may_edit(f.owner_id, f.ancestors || f.id)
      order by f.id
      for update
    loop
      dest := (select p.id from public.folders p
               where p.id = r.parent_id and p.trashed_at is null and p.owner_id = r.owner_id
                 and private.may_edit(p.owner_id, p.ancestors || p.id || r.id));
      perform pg_catalog.pg_advisory_xact_lock(
        pg_catalog.hashtextextended(r.owner_id::text || ':' || coalesce(dest::text, ''), 1));
      free := private.free_name_in(r.owner_id, 'folder', dest, r.name, r.id);
      update public.folders f set parent_id = dest, name = free, trashed_at = null, trashed_via = null
        where f.id = r.id;
      update public.folders f set trashed_at = null, trashed_via = null where f.trashed_via = r.id;
      update public.files f set trashed_at = null, trashed_via = null where f.trashed_via = r.id;
      kind := 'folder'; id := r.id; name := free; parent_id := dest;
      renamed := free <> r.name; relocated := dest is distinct from r.parent_id;
      return next;
    end loop;
    for r in
      select f.id, f.name, f.folder_id as parent_id, f.owner_id from public.files f
      where f.id = any(coalesce(p_files, '{}')) and f.trashed_at is not null
        and f.trashed_via is null and f.deleting_since is null
        and private.may_edit(f.owner_id, f.ancestors || f.id)
      order by f.id
      for update
    loop
      dest := (select p.id from public.folders p
               where p.id = r.parent_id and p.trashed_at is null and p.owner_id = r.owner_id
                 and private.may_edit(p.owner_id, p.ancestors || p.id || r.id));
      perform pg_catalog.pg_advisory_xact_lock(
        pg_catalog.hashtextextended(r.owner_id::text || ':' || coalesce(dest::text, ''), 1));
      free := private.free_name_in(r.owner_id, 'file', dest, r.name, r.id);
      update public.files f set folder_id = dest, name = free, trashed_at = null, trashed_via = null
        where f.id = r.id;
      kind := 'file'; id := r.id; name := free; parent_id := dest;
      renamed := free <> r.name; relocated := dest is distinct from r.parent_id;
      return next;
    end loop;
  end
  $$;

-- The Trash lists the caller's own entries (an Editor's deletions are in the owner's Trash);
-- the service role (the scheduled purge) sees everyone's, as before.
create or replace function public.trash_roots(p_older_than interval default '0 seconds')
  returns table (kind text, id uuid)
  language sql stable
  as $$
    select 'folder', f.id from public.folders f
      where f.trashed_at is not null and f.trashed_via is null and f.trashed_at <= now() - p_older_than
        and (f.owner_id = auth.uid() or auth.uid() is null)
    union all
    select 'file', f.id from public.files f
      where f.trashed_at is not null and f.trashed_via is null and f.trashed_at <= now() - p_older_than
        and (f.owner_id = auth.uid() or auth.uid() is null)
  $$;
