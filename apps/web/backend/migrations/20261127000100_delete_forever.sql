-- Deleting from the Trash forever, without losing or orphaning anything.
--
-- Semantics (as Google Drive): deleting a Trash entry forever takes what went to the Trash
-- with it (`trashed_via` = the entry), and nothing else. An item deleted by itself earlier is
-- an entry of its own: it stays in the Trash, restorable, until it is deleted itself. Its
-- original folder is then gone, so it steps out of it now (to "My files", where a restore
-- brings it), instead of disappearing in the folder's cascade.
--
-- The `trash` function deletes in three steps, because stored objects can only be removed
-- through the storage API:
--   1. `begin_delete_forever` marks the entries and all that goes with them (`deleting_since`)
--      and returns their stored objects;
--   2. the function removes those objects through the storage API;
--   3. `delete_trashed` deletes the marked rows.
-- From step 1 on, a marked row no longer changes: it cannot be restored, moved, renamed or
-- finished as an upload; nothing can be created or moved into a marked folder; no object can
-- be stored for a marked file. So whatever runs at the same time (a restore, a move or an
-- upload from another device), no row is left without its object, no object without its row,
-- and no item inside a folder that no longer exists. Step 1 takes the rows' locks first, so a
-- restore or a move that is under way finishes before (and is then seen), or waits and is
-- refused. If step 2 fails, the entries stay marked in the Trash and the next call finishes.

alter table public.folders add column deleting_since timestamptz;
alter table public.files add column deleting_since timestamptz;
create index folders_deleting on public.folders (owner_id) where deleting_since is not null;
create index files_deleting on public.files (owner_id) where deleting_since is not null;

-- A row on its way out does not change any more.
create function public.refuse_change_while_deleting() returns trigger
  language plpgsql
  as $$
  begin
    if old.deleting_since is not null then
      raise exception 'This item is being deleted forever'
        using errcode = '23503', hint = 'item_deleted';
    end if;
    return new;
  end
  $$;
create trigger folders_refuse_change_while_deleting
  before update on public.folders
  for each row execute function public.refuse_change_while_deleting();
create trigger files_refuse_change_while_deleting
  before update on public.files
  for each row execute function public.refuse_change_while_deleting();

-- What lands in a trashed folder goes to the Trash with it (as before); nothing lands in a
-- folder that is being deleted forever. The parent is locked (shared) until the end of the
-- transaction, so trashing or deleting that folder waits for this insert or move and sees it.
create or replace function public.inherit_trash() returns trigger
  language plpgsql
  as $$
  declare
    parent public.folders;
    target uuid;
  begin
    if new.trashed_at is not null then
      return new;
    end if;
    if tg_table_name = 'files' then
      target := new.folder_id;
    else
      target := new.parent_id;
    end if;
    if target is null then
      return new;
    end if;
    select * into parent from public.folders f where f.id = target for share;
    if found and parent.deleting_since is not null then
      raise exception 'The folder was deleted forever'
        using errcode = '23503', hint = 'folder_deleted';
    end if;
    if found and parent.trashed_at is not null then
      new.trashed_at := parent.trashed_at;
      new.trashed_via := coalesce(parent.trashed_via, parent.id);
    end if;
    return new;
  end
  $$;

-- A folder moved into a trashed folder takes its content to the Trash with it, as
-- `trash_items` would: a trashed folder never hides live items.
create function public.trash_moved_content() returns trigger
  language plpgsql
  as $$
  declare
    sub_ids uuid[];
  begin
    if old.trashed_at is not null or new.trashed_at is null or new.trashed_via is null then
      return null;
    end if;
    with recursive below(id) as (
      select new.id
      union all
      select c.id from public.folders c join below on c.parent_id = below.id
      where c.trashed_at is null
    )
    select coalesce(array_agg(below.id), '{}') into sub_ids from below;
    update public.folders f set trashed_at = new.trashed_at, trashed_via = new.trashed_via
      where f.id = any(sub_ids) and f.id <> new.id and f.trashed_at is null;
    update public.files f set trashed_at = new.trashed_at, trashed_via = new.trashed_via
      where f.folder_id = any(sub_ids) and f.trashed_at is null;
    return null;
  end
  $$;
create trigger folders_trash_moved_content
  after update of parent_id on public.folders
  for each row execute function public.trash_moved_content();

-- Stepping out of a folder that is deleted forever is not a change of the file either.
create or replace function public.files_keep_modified() returns trigger
  language plpgsql
  as $$
  begin
    if new.name = old.name
      and (new.folder_id is not distinct from old.folder_id
           or (old.trashed_at is not null and new.trashed_at is not null))
      and new.status = old.status
      and new.mime_type = old.mime_type
      and new.size = old.size
    then
      new.updated_at := old.updated_at;
    end if;
    return new;
  end
  $$;

-- Restores only what is not being deleted forever, and locks each entry first (a deletion
-- that starts meanwhile waits for the restore, then leaves the restored item alone).
create or replace function public.restore_items(p_files uuid[] default '{}', p_folders uuid[] default '{}')
  returns table (kind text, id uuid, name text, parent_id uuid, renamed boolean, relocated boolean)
  language plpgsql
  as $$
  declare
    r record;
    dest uuid;
    free text;
  begin
    for r in
      select f.id, f.name, f.parent_id from public.folders f
      where f.id = any(coalesce(p_folders, '{}')) and f.trashed_at is not null
        and f.trashed_via is null and f.deleting_since is null
      order by f.id
      for update
    loop
      dest := (select p.id from public.folders p where p.id = r.parent_id and p.trashed_at is null);
      perform pg_advisory_xact_lock(hashtextextended(auth.uid()::text || ':' || coalesce(dest::text, ''), 1));
      free := public.free_name('folder', dest, r.name, r.id);
      update public.folders f set parent_id = dest, name = free, trashed_at = null, trashed_via = null
        where f.id = r.id;
      update public.folders f set trashed_at = null, trashed_via = null where f.trashed_via = r.id;
      update public.files f set trashed_at = null, trashed_via = null where f.trashed_via = r.id;
      kind := 'folder'; id := r.id; name := free; parent_id := dest;
      renamed := free <> r.name; relocated := dest is distinct from r.parent_id;
      return next;
    end loop;
    for r in
      select f.id, f.name, f.folder_id as parent_id from public.files f
      where f.id = any(coalesce(p_files, '{}')) and f.trashed_at is not null
        and f.trashed_via is null and f.deleting_since is null
      order by f.id
      for update
    loop
      dest := (select p.id from public.folders p where p.id = r.parent_id and p.trashed_at is null);
      perform pg_advisory_xact_lock(hashtextextended(auth.uid()::text || ':' || coalesce(dest::text, ''), 1));
      free := public.free_name('file', dest, r.name, r.id);
      update public.files f set folder_id = dest, name = free, trashed_at = null, trashed_via = null
        where f.id = r.id;
      kind := 'file'; id := r.id; name := free; parent_id := dest;
      renamed := free <> r.name; relocated := dest is distinct from r.parent_id;
      return next;
    end loop;
  end
  $$;

-- Step 1: marks Trash entries (only entries: items deleted by themselves) and everything that
-- goes with them, moves the separate entries found inside them out to "My files", and returns
-- the stored objects to remove. Entries marked by an earlier, unfinished call are included.
-- Under row level security: the caller's own; the service role (the scheduled purge) all.
create function public.begin_delete_forever(p_files uuid[] default '{}', p_folders uuid[] default '{}')
  returns table (owner_id uuid, object_path text)
  language plpgsql
  as $$
  declare
    stamp timestamptz := now();
    c1 integer;
    c2 integer;
  begin
    -- The entries first, locked (a restore under way finishes first, and then is not an entry).
    update public.folders f set deleting_since = stamp
      where f.id = any(coalesce(p_folders, '{}')) and f.trashed_at is not null
        and f.trashed_via is null and f.deleting_since is null;
    update public.files f set deleting_since = stamp
      where f.id = any(coalesce(p_files, '{}')) and f.trashed_at is not null
        and f.trashed_via is null and f.deleting_since is null;
    -- Then what is inside, level by level until nothing is left (each statement sees what
    -- moved in before it; later moves wait for the lock, then are refused).
    loop
      -- Entries of their own inside: out of the folder, still in the Trash.
      update public.folders c set parent_id = null
        from public.folders p
        where c.parent_id = p.id and c.owner_id = p.owner_id and p.deleting_since is not null
          and c.deleting_since is null and c.trashed_at is not null and c.trashed_via is null;
      update public.files c set folder_id = null
        from public.folders p
        where c.folder_id = p.id and c.owner_id = p.owner_id and p.deleting_since is not null
          and c.deleting_since is null and c.trashed_at is not null and c.trashed_via is null;
      -- The rest goes with the entry (entries of their own step out on the next turn).
      update public.folders c
        set deleting_since = stamp,
            trashed_at = coalesce(c.trashed_at, p.trashed_at),
            trashed_via = coalesce(c.trashed_via, p.trashed_via, p.id)
        from public.folders p
        where c.parent_id = p.id and c.owner_id = p.owner_id and p.deleting_since is not null
          and c.deleting_since is null and (c.trashed_at is null or c.trashed_via is not null);
      get diagnostics c1 = row_count;
      update public.files c
        set deleting_since = stamp,
            trashed_at = coalesce(c.trashed_at, p.trashed_at),
            trashed_via = coalesce(c.trashed_via, p.trashed_via, p.id)
        from public.folders p
        where c.folder_id = p.id and c.owner_id = p.owner_id and p.deleting_since is not null
          and c.deleting_since is null and (c.trashed_at is null or c.trashed_via is not null);
      get diagnostics c2 = row_count;
      exit when c1 + c2 = 0;
    end loop;
    return query
      select f.owner_id, f.object_path from public.files f
      where f.deleting_since is not null
        and (f.id = any(coalesce(p_files, '{}')) or f.trashed_via = any(coalesce(p_folders, '{}')));
  end
  $$;

-- Step 3: deletes the marked entries (folders with everything below them, by cascade: all of
-- it is marked). Anything not marked is left alone. Returns how many entries went.
create or replace function public.delete_trashed(p_files uuid[] default '{}', p_folders uuid[] default '{}')
  returns integer
  language plpgsql
  as $$
  declare
    n integer := 0;
    c integer;
  begin
    delete from public.folders f
      where f.id = any(coalesce(p_folders, '{}')) and f.deleting_since is not null
        and f.trashed_via is null;
    get diagnostics c = row_count;
    n := n + c;
    delete from public.files f
      where f.id = any(coalesce(p_files, '{}')) and f.deleting_since is not null
        and f.trashed_via is null;
    get diagnostics c = row_count;
    return n + c;
  end
  $$;

-- Replaced by begin_delete_forever (it listed objects without marking anything).
drop function public.trash_objects(uuid[], uuid[]);

revoke execute on function public.begin_delete_forever(uuid[], uuid[]) from public, anon;
grant execute on function public.begin_delete_forever(uuid[], uuid[]) to authenticated, service_role;

-- Storage: an object is stored only for a file of the caller that is still uploading and not
-- being deleted. The file row is locked (shared) while the object's row commits, so a
-- deletion that starts meanwhile waits for it and then removes that object too.
create function public.accepts_object(p_name text) returns boolean
  language plpgsql volatile
  as $$
  begin
    perform 1 from public.files f
      where f.object_path = p_name and f.owner_id = auth.uid() and f.status = 'uploading'
        and f.deleting_since is null
      for share;
    return found;
  end
  $$;
revoke execute on function public.accepts_object(text) from public, anon;
grant execute on function public.accepts_object(text) to authenticated, service_role;

drop policy "files bucket: create for an uploading file" on storage.objects;
create policy "files bucket: create for an uploading file" on storage.objects
  for insert to authenticated
  with check (
    bucket_id = 'files'
    and (storage.foldername(name))[1] = auth.uid()::text
    and public.accepts_object(name)
  );
drop policy "files bucket: owner replaces while uploading" on storage.objects;
create policy "files bucket: owner replaces while uploading" on storage.objects
  for update to authenticated
  using (bucket_id = 'files' and (storage.foldername(name))[1] = auth.uid()::text)
  with check (bucket_id = 'files' and public.accepts_object(name));
