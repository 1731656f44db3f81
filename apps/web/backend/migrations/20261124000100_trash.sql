-- Trash. Deleting a file or folder moves it to the Trash (`trashed_at` is set: an UPDATE that
-- every device sees live); the Trash lists what was deleted with its original place, and
-- restores it — a folder with everything that went with it. Deleting from the Trash removes
-- the rows and (through the storage API, see functions/trash) the stored objects, which frees
-- the quota: `storage_usage()` keeps counting what is in the Trash until then. After 30 days
-- the `trash` function empties it (see apps/web/README.md, "Trash").
--
-- `trashed_at`: when the item went to the Trash (null: not in the Trash).
-- `trashed_via`: null for an item deleted by itself (a "root" of the Trash, listed there);
--   else the trashed folder whose deletion took it along (it comes back with that folder).
-- Row level security is unchanged: every row stays visible and writable by its owner only.

alter table public.folders
  add column trashed_at timestamptz,
  add column trashed_via uuid references public.folders (id) on delete cascade;
alter table public.files
  add column trashed_at timestamptz,
  add column trashed_via uuid references public.folders (id) on delete cascade;

-- Names stay unique among the items in place and inside trashed folders (those come back as
-- they were); the roots of the Trash step out, and get a free name when restored.
drop index public.folders_name_unique;
create unique index folders_name_unique
  on public.folders (owner_id, parent_id, lower(name)) nulls not distinct
  where trashed_at is null or trashed_via is not null;
drop index public.files_name_unique;
create unique index files_name_unique
  on public.files (owner_id, folder_id, lower(name)) nulls not distinct
  where trashed_at is null or trashed_via is not null;
create index folders_trash on public.folders (owner_id, trashed_at) where trashed_at is not null;
create index files_trash on public.files (owner_id, trashed_at) where trashed_at is not null;
create index folders_trashed_via on public.folders (trashed_via) where trashed_via is not null;
create index files_trashed_via on public.files (trashed_via) where trashed_via is not null;

-- An item that lands in a trashed folder (a move or an upload from a device that had not yet
-- seen the deletion) goes to the Trash with it, so a trashed folder never hides live items.
create function public.inherit_trash() returns trigger
  language plpgsql
  as $$
  declare
    parent public.folders;
  begin
    if new.trashed_at is not null then
      return new;
    end if;
    if tg_table_name = 'files' then
      select * into parent from public.folders where id = new.folder_id;
    else
      select * into parent from public.folders where id = new.parent_id;
    end if;
    if found and parent.trashed_at is not null then
      new.trashed_at := parent.trashed_at;
      new.trashed_via := coalesce(parent.trashed_via, parent.id);
    end if;
    return new;
  end
  $$;
create trigger folders_inherit_trash
  before insert or update of parent_id on public.folders
  for each row execute function public.inherit_trash();
create trigger files_inherit_trash
  before insert or update of folder_id on public.files
  for each row execute function public.inherit_trash();

-- Going to the Trash, coming back or getting a star is not a change of the file: its
-- "Modified" date stays. (Runs after files_before_write, which stamps updated_at.)
create function public.files_keep_modified() returns trigger
  language plpgsql
  as $$
  begin
    if new.name = old.name
      and new.folder_id is not distinct from old.folder_id
      and new.status = old.status
      and new.mime_type = old.mime_type
      and new.size = old.size
    then
      new.updated_at := old.updated_at;
    end if;
    return new;
  end
  $$;
create trigger files_keep_modified
  before update on public.files
  for each row execute function public.files_keep_modified();

-- A free name for an item in a folder: `name`, else "name (1).ext", "name (2).ext", …
-- (the same rule as uploads). Among the caller's rows only (row level security).
create function public.free_name(p_kind text, p_parent uuid, p_name text, p_except uuid default null)
  returns text
  language plpgsql stable
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
      stem := regexp_replace(p_name, '\.[^.]+$', '');
      ext := substring(p_name from '(\.[^.]+)$');
    end if;
    loop
      if p_kind = 'folder' then
        exit when not exists (
          select 1 from public.folders f
          where f.owner_id = auth.uid() and f.parent_id is not distinct from p_parent
            and lower(f.name) = lower(candidate) and f.id is distinct from p_except
            and (f.trashed_at is null or f.trashed_via is not null)
        );
      else
        exit when not exists (
          select 1 from public.files f
          where f.owner_id = auth.uid() and f.folder_id is not distinct from p_parent
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

-- The top items of a selection: those not inside a selected folder.
create function public.top_folders(p_folders uuid[])
  returns uuid[]
  language sql stable
  as $$
    select coalesce(array_agg(s.id), '{}') from unnest(p_folders) as s(id)
    where not exists (
      with recursive up(id) as (
        select f.parent_id from public.folders f where f.id = s.id
        union all
        select f.parent_id from public.folders f join up on f.id = up.id
      )
      select 1 from up where up.id = any(p_folders)
    )
  $$;

-- Moves files and folders to the Trash (folders with everything in them). Returns how many
-- items were moved (items already in the Trash are skipped).
create function public.trash_items(p_files uuid[] default '{}', p_folders uuid[] default '{}')
  returns integer
  language plpgsql
  as $$
  declare
    roots uuid[] := public.top_folders(coalesce(p_folders, '{}'));
    stamp timestamptz := now();
    moved integer := 0;
    c integer;
    sub_ids uuid[];
    sub_roots uuid[];
  begin
    update public.folders set trashed_at = stamp, trashed_via = null
      where id = any(roots) and trashed_at is null;
    get diagnostics c = row_count;
    moved := moved + c;
    -- Everything below those roots that is not in the Trash already (a sub-folder deleted
    -- earlier stays a Trash entry of its own, with its content).
    with recursive below(id, root) as (
      select f.id, f.id from public.folders f
      where f.id = any(roots) and f.trashed_at = stamp and f.trashed_via is null
      union all
      select c.id, below.root from public.folders c join below on c.parent_id = below.id
      where c.trashed_at is null
    )
    select coalesce(array_agg(below.id), '{}'), coalesce(array_agg(below.root), '{}')
      into sub_ids, sub_roots from below;
    update public.folders f set trashed_at = stamp, trashed_via = b.root
      from unnest(sub_ids, sub_roots) as b(id, root)
      where f.id = b.id and f.id <> b.root;
    update public.files f set trashed_at = stamp, trashed_via = b.root
      from unnest(sub_ids, sub_roots) as b(id, root)
      where f.folder_id = b.id and f.trashed_at is null;
    update public.files set trashed_at = stamp, trashed_via = null
      where id = any(coalesce(p_files, '{}')) and trashed_at is null;
    get diagnostics c = row_count;
    return moved + c;
  end
  $$;

-- Restores Trash entries to their original place, folders with what went with them. When
-- the original folder is gone or in the Trash itself, the item comes back to "My files";
-- when its name is taken there, it gets a free one. Returns where each item went.
create function public.restore_items(p_files uuid[] default '{}', p_folders uuid[] default '{}')
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
      where f.id = any(coalesce(p_folders, '{}')) and f.trashed_at is not null and f.trashed_via is null
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
      where f.id = any(coalesce(p_files, '{}')) and f.trashed_at is not null and f.trashed_via is null
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

-- The entries of the Trash (what was deleted by itself), trashed before `p_older_than` ago.
-- Under row level security: the caller's own; the service role (the scheduled purge) sees all.
create function public.trash_roots(p_older_than interval default '0 seconds')
  returns table (kind text, id uuid)
  language sql stable
  as $$
    select 'folder', f.id from public.folders f
      where f.trashed_at is not null and f.trashed_via is null and f.trashed_at <= now() - p_older_than
    union all
    select 'file', f.id from public.files f
      where f.trashed_at is not null and f.trashed_via is null and f.trashed_at <= now() - p_older_than
  $$;

-- The stored objects that deleting these Trash entries forever removes: trashed files, and
-- every file under trashed folders.
create function public.trash_objects(p_files uuid[] default '{}', p_folders uuid[] default '{}')
  returns table (owner_id uuid, object_path text)
  language sql stable
  as $$
    with recursive below(id) as (
      select f.id from public.folders f
      where f.id = any(coalesce(p_folders, '{}')) and f.trashed_at is not null
      union all
      select c.id from public.folders c join below on c.parent_id = below.id
    )
    select f.owner_id, f.object_path from public.files f
      where f.folder_id in (select id from below)
    union
    select f.owner_id, f.object_path from public.files f
      where f.id = any(coalesce(p_files, '{}')) and f.trashed_at is not null
  $$;

-- Deletes Trash entries forever (folders with everything below them, by cascade). Only items
-- in the Trash: anything else is left alone. Call after removing `trash_objects` from storage.
create function public.delete_trashed(p_files uuid[] default '{}', p_folders uuid[] default '{}')
  returns integer
  language plpgsql
  as $$
  declare
    n integer := 0;
    c integer;
  begin
    delete from public.folders where id = any(coalesce(p_folders, '{}')) and trashed_at is not null;
    get diagnostics c = row_count;
    n := n + c;
    delete from public.files where id = any(coalesce(p_files, '{}')) and trashed_at is not null;
    get diagnostics c = row_count;
    return n + c;
  end
  $$;

revoke execute on function public.trash_items(uuid[], uuid[]) from public, anon;
revoke execute on function public.restore_items(uuid[], uuid[]) from public, anon;
revoke execute on function public.trash_roots(interval) from public, anon;
revoke execute on function public.trash_objects(uuid[], uuid[]) from public, anon;
revoke execute on function public.delete_trashed(uuid[], uuid[]) from public, anon;
revoke execute on function public.free_name(text, uuid, text, uuid) from public, anon;
revoke execute on function public.top_folders(uuid[]) from public, anon;
grant execute on function public.trash_items(uuid[], uuid[]) to authenticated, service_role;
grant execute on function public.restore_items(uuid[], uuid[]) to authenticated, service_role;
grant execute on function public.trash_roots(interval) to authenticated, service_role;
grant execute on function public.trash_objects(uuid[], uuid[]) to authenticated, service_role;
grant execute on function public.delete_trashed(uuid[], uuid[]) to authenticated, service_role;
grant execute on function public.free_name(text, uuid, text, uuid) to authenticated, service_role;
grant execute on function public.top_folders(uuid[]) to authenticated, service_role;

-- What is in the Trash is not found by search, not shared, and not resumed as an upload.
create or replace function public.search_files(q text)
  returns setof public.files
  language sql stable
  as $$
    select f.* from public.files f
    where f.owner_id = auth.uid() and f.trashed_at is null
      and (
        to_tsvector('simple', f.name) @@ websearch_to_tsquery('simple', q)
        or f.name ilike '%' || replace(replace(replace(q, '\', '\\'), '%', '\%'), '_', '\_') || '%'
      )
    order by f.name
  $$;

create or replace function public.resolve_share(share_token text)
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
    elsif f.status <> 'ready' or f.trashed_at is not null then
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

-- Uploads: an unfinished upload in the Trash is never resumed, and names in the Trash do not
-- push a new upload to "name (1).ext". (Same function as in the first migration otherwise.)
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
    return created;
  end
  $$;
