-- Sharing with people, part 1: where every item is (see ../SHARING.md).
--
-- Access to a shared folder covers everything below it, including what is added or moved in
-- later, and nothing that is moved out. To decide that without walking the tree on every
-- read, each folder and file keeps its materialised path: `ancestors`, the ids of the folders
-- above it (the outermost first). `ancestors || id` is the item and everything it is inside;
-- row level security compares it with the caller's granted item ids (an array computed once
-- per statement). Triggers keep it right: on insert, on a move, and for everything below a
-- folder that moves.
--
-- An item lives in its folder's owner's tree: a folder or file created inside a folder is
-- owned by that folder's owner, whoever creates it (`created_by` says who did). Nothing moves
-- between two owners' trees.

alter table public.folders
  add column ancestors uuid[] not null default '{}',
  add column created_by uuid references auth.users (id) on delete set null;
alter table public.files
  add column ancestors uuid[] not null default '{}',
  add column created_by uuid references auth.users (id) on delete set null;

-- The paths of what exists already (no trigger is involved: nothing else changes).
alter table public.folders disable trigger user;
alter table public.files disable trigger user;
with recursive tree(id, path) as (
  select f.id, '{}'::uuid[] from public.folders f where f.parent_id is null
  union all
  select c.id, tree.path || tree.id from public.folders c join tree on c.parent_id = tree.id
)
update public.folders f set ancestors = tree.path, created_by = f.owner_id
  from tree where f.id = tree.id;
update public.files f set ancestors = p.ancestors || p.id
  from public.folders p where f.folder_id = p.id;
update public.files set created_by = owner_id;
alter table public.folders enable trigger user;
alter table public.files enable trigger user;

create index folders_ancestors on public.folders using gin (ancestors);
create index files_ancestors on public.files using gin (ancestors);

-- The owner and the path (`ancestors || id`) of a folder, whoever asks: the triggers below
-- need them for folders the caller may not see, and row level security then decides.
create function private.folder_place(p_id uuid, out owner_id uuid, out path uuid[])
  language sql stable security definer set search_path = ''
  as $$ select f.owner_id, f.ancestors || f.id from public.folders f where f.id = p_id $$;
revoke all on function private.folder_place(uuid) from public;
grant execute on function private.folder_place(uuid) to authenticated;

-- Grants (see 20261127000400_sharing_grants.sql for the rest): here, because the functions
-- below read it.
create table public.grants (
  id uuid primary key default gen_random_uuid(),
  folder_id uuid references public.folders (id) on delete cascade,
  file_id uuid references public.files (id) on delete cascade,
  item_id uuid generated always as (coalesce(folder_id, file_id)) stored,
  -- The item's owner (kept in step by a transfer of ownership).
  owner_id uuid not null references auth.users (id) on delete cascade,
  -- The person; null while the invitation waits for an account with a verified `email`.
  grantee_id uuid references auth.users (id) on delete cascade,
  -- The address the item was shared with (lower case).
  email text not null check (char_length(email) between 3 and 320 and email = lower(email)),
  role text not null check (role in ('viewer', 'editor')),
  granted_by uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (num_nonnulls(folder_id, file_id) = 1)
);
create unique index grants_item_grantee on public.grants (item_id, grantee_id)
  where grantee_id is not null;
create unique index grants_item_invitation on public.grants (item_id, email)
  where grantee_id is null;
create index grants_grantee on public.grants (grantee_id, role) where grantee_id is not null;
create index grants_invitation on public.grants (email) where grantee_id is null;
create index grants_owner on public.grants (owner_id);
create index grants_folder on public.grants (folder_id) where folder_id is not null;
create index grants_file on public.grants (file_id) where file_id is not null;
alter table public.grants enable row level security;
revoke all on public.grants from anon, authenticated;
grant select on public.grants to authenticated;

-- The ids of the items (files and folders) shared with the caller, in any role / as Editor.
-- Policies call them as `(select …)`: once per statement, not once per row.
create function private.shared_ids() returns uuid[]
  language sql stable security definer set search_path = ''
  as $$
    select coalesce(pg_catalog.array_agg(g.item_id), '{}') from public.grants g
    where g.grantee_id = auth.uid()
  $$;
create function private.editor_ids() returns uuid[]
  language sql stable security definer set search_path = ''
  as $$
    select coalesce(pg_catalog.array_agg(g.item_id), '{}') from public.grants g
    where g.grantee_id = auth.uid() and g.role = 'editor'
  $$;

revoke all on function private.shared_ids() from public;
revoke all on function private.editor_ids() from public;
grant execute on function private.shared_ids() to authenticated;
grant execute on function private.editor_ids() to authenticated;

-- Places an item on insert and on a move: its path from its folder, and on insert its
-- folder's owner as its owner. A client never sets `ancestors`, `owner_id` or `created_by`
-- itself (only the path of what is below a moved folder changes from a trigger, below).
create function public.place_item() returns trigger
  language plpgsql
  as $$
  declare
    parent uuid;
    old_parent uuid;
    place record;
  begin
    if tg_table_name = 'files' then
      parent := new.folder_id;
    else
      parent := new.parent_id;
    end if;
    if tg_op = 'UPDATE' then
      if tg_table_name = 'files' then
        old_parent := old.folder_id;
      else
        old_parent := old.parent_id;
      end if;
      if current_user in ('anon', 'authenticated') then
        new.owner_id := old.owner_id;
        new.created_by := old.created_by;
      end if;
      if parent is not distinct from old_parent then
        if pg_trigger_depth() <= 1 then
          new.ancestors := old.ancestors;
        end if;
        return new;
      end if;
    else
      new.created_by := coalesce(auth.uid(), new.owner_id);
    end if;
    if parent is null then
      new.ancestors := '{}';
      return new;
    end if;
    select * into place from private.folder_place(parent);
    if not found then
      return new; -- the foreign key refuses it
    end if;
    new.ancestors := place.path;
    if tg_op = 'INSERT' then
      new.owner_id := place.owner_id;
    elsif place.owner_id is distinct from new.owner_id
      and place.path && (select private.shared_ids()) then
      -- (A folder the caller cannot see at all is refused by row level security instead.)
      raise exception 'An item cannot move into a folder of someone else'
        using errcode = '42501', hint = 'other_owner';
    end if;
    return new;
  end
  $$;
create trigger folders_ancestors
  before insert or update on public.folders
  for each row execute function public.place_item();
create trigger files_ancestors
  before insert or update on public.files
  for each row execute function public.place_item();

-- A folder that moves takes the path of everything below it along (whoever moved it: the
-- paths must always be right, so this runs as the definer).
create function private.move_descendants() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  begin
    update public.folders d
      set ancestors = new.ancestors || new.id
        || d.ancestors[pg_catalog.array_position(d.ancestors, new.id) + 1:]
      where d.ancestors @> array[new.id];
    update public.files d
      set ancestors = new.ancestors || new.id
        || d.ancestors[pg_catalog.array_position(d.ancestors, new.id) + 1:]
      where d.ancestors @> array[new.id];
    return null;
  end
  $$;
revoke all on function private.move_descendants() from public;
create trigger folders_move_descendants
  after update of parent_id on public.folders
  for each row when (old.parent_id is distinct from new.parent_id)
  execute function private.move_descendants();

-- A row that is being deleted forever still takes a new path when a folder above it moves.
create or replace function public.refuse_change_while_deleting() returns trigger
  language plpgsql
  as $$
  begin
    if old.deleting_since is not null
      and (pg_catalog.to_jsonb(new) - 'ancestors') is distinct from (pg_catalog.to_jsonb(old) - 'ancestors')
    then
      raise exception 'This item is being deleted forever'
        using errcode = '23503', hint = 'item_deleted';
    end if;
    return new;
  end
  $$;
