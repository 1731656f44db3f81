-- Sharing with people, part 9: who moved a Trash entry there, by name (see ../SHARING.md).
--
-- An Editor's deletion goes to the owner's Trash with `trashed_by` = the Editor; the owner's
-- Trash says who it was, and the Editor's own Trash view lists what they trashed ("Trashed by
-- you", rows they can still see through their access) until it is restored or purged.
-- `trash_roots` is unchanged: it is what the caller's "Empty Trash" deletes, the caller's own
-- entries only (an Editor deletes nothing forever).

-- The names of who trashed these items, for those the caller can see (owner or with access)
-- and that are in the Trash; the same names the items' activity shows (`trashed`).
create function public.trashed_by_names(p_files uuid[] default '{}', p_folders uuid[] default '{}')
  returns table (kind text, id uuid, trashed_by uuid, name text)
  language sql stable security definer set search_path = ''
  as $$
    select 'folder', f.id, f.trashed_by, coalesce(private.display_name(f.trashed_by), '')
      from public.folders f
      where f.id = any(coalesce(p_folders, '{}')) and f.trashed_at is not null
        and f.trashed_by is not null
        and private.role_on(f.owner_id, f.ancestors || f.id) is not null
    union all
    select 'file', f.id, f.trashed_by, coalesce(private.display_name(f.trashed_by), '')
      from public.files f
      where f.id = any(coalesce(p_files, '{}')) and f.trashed_at is not null
        and f.trashed_by is not null
        and private.role_on(f.owner_id, f.ancestors || f.id) is not null
  $$;
revoke execute on function public.trashed_by_names(uuid[], uuid[]) from public, anon;
grant execute on function public.trashed_by_names(uuid[], uuid[]) to authenticated;
