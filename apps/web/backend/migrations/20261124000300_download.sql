-- Downloading several items as one zip: what goes into it, with the path of each entry inside
-- the zip (folders with everything in them, empty folders too). The caller's own items only
-- (row level security); nothing in the Trash, no unfinished upload.
create function public.download_entries(p_files uuid[] default '{}', p_folders uuid[] default '{}')
  returns table (kind text, path text, size bigint, object_path text, updated_at timestamptz)
  language sql stable
  as $$
    with recursive tree(id, path, created_at) as (
      select f.id, f.name, f.created_at from public.folders f
      where f.id = any(coalesce(p_folders, '{}')) and f.trashed_at is null
      union all
      select c.id, tree.path || '/' || c.name, c.created_at
      from public.folders c join tree on c.parent_id = tree.id
      where c.trashed_at is null
    )
    select 'folder', tree.path || '/', 0::bigint, null::text, tree.created_at from tree
    union all
    select 'file', tree.path || '/' || f.name, f.size, f.object_path, f.updated_at
      from public.files f join tree on f.folder_id = tree.id
      where f.status = 'ready' and f.trashed_at is null
    union all
    select 'file', f.name, f.size, f.object_path, f.updated_at from public.files f
      where f.id = any(coalesce(p_files, '{}')) and f.status = 'ready' and f.trashed_at is null
    order by 2
  $$;
revoke execute on function public.download_entries(uuid[], uuid[]) from public, anon;
grant execute on function public.download_entries(uuid[], uuid[]) to authenticated;
