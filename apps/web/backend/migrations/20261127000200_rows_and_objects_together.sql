-- A file's row and its stored object come and go together, whatever a client sends.
--
-- Until now the owner's policies let a plain REST `DELETE` remove folders and files directly:
-- the rows went (a folder with everything below it, by cascade) and their stored objects
-- stayed behind, reachable by no one and never freed. The other way round, a storage API
-- `DELETE` of a ready file's object left a row whose download fails. And an unfinished upload
-- that expired was deleted even when all its bytes had arrived (only Drive's last step, marking
-- it ready, was lost), leaving its object behind too.
--
-- Now:
-- * a folder is deleted only on its way out of the Trash (marked by `begin_delete_forever`,
--   whose caller has removed the stored objects first), and a file too, or as an unfinished
--   upload that has no stored object (Cancel); any other `DELETE` deletes nothing, as row
--   level security does for rows a policy leaves out: the Trash is the way;
-- * an object of the files bucket is removed only when no file row that is staying holds it;
-- * an expired upload whose object is stored is finished instead of deleted, or, when the
--   quota no longer holds it, put in the Trash (whose purge removes the object through the
--   storage API).

-- True when the files bucket stores an object at `p_path` (whatever the caller may read).
create function private.object_stored(p_path text) returns boolean
  language sql stable security definer set search_path = ''
  as $$
    select exists (select 1 from storage.objects o where o.bucket_id = 'files' and o.name = p_path)
  $$;
revoke all on function private.object_stored(text) from public;
grant execute on function private.object_stored(text) to authenticated;

-- True when a file row that is not being deleted forever holds the object at `p_path`.
create function private.object_held(p_path text) returns boolean
  language sql stable security definer set search_path = ''
  as $$
    select exists (select 1 from public.files f where f.object_path = p_path and f.deleting_since is null)
  $$;
revoke all on function private.object_held(text) from public;
grant execute on function private.object_held(text) to authenticated;

drop policy "folders: owner deletes" on public.folders;
create policy "folders: owner deletes what is deleted forever" on public.folders
  for delete to authenticated
  using (owner_id = auth.uid() and deleting_since is not null);

drop policy "files: owner deletes" on public.files;
create policy "files: owner deletes what is deleted forever, or an upload with no object" on public.files
  for delete to authenticated
  using (
    owner_id = auth.uid()
    and (deleting_since is not null
      or (status = 'uploading' and not private.object_stored(object_path)))
  );

drop policy "files bucket: owner deletes" on storage.objects;
create policy "files bucket: owner deletes what no file holds" on storage.objects
  for delete to authenticated
  using (
    bucket_id = 'files'
    and (storage.foldername(name))[1] = auth.uid()::text
    and not private.object_held(name)
  );

-- Expired unfinished uploads: those whose object is stored are finished (or, over the quota,
-- put in the Trash); the others are deleted, as before. Returns how many were deleted.
create or replace function public.expire_uploads() returns integer
  language plpgsql security definer set search_path = ''
  as $$
  declare
    removed integer;
    done uuid;
  begin
    for done in
      select f.id from public.files f
       where f.status = 'uploading' and f.deleting_since is null
         and coalesce((select u.started_at from public.uploads u where u.file_id = f.id), f.created_at)
             < now() - public.upload_expiry()
         and private.object_stored(f.object_path)
       for update skip locked
    loop
      begin
        update public.files set status = 'ready' where id = done;
      exception when sqlstate 'P0001' then
        -- The quota no longer holds it (files_before_write): to the Trash, which frees it.
        update public.files set trashed_at = now() where id = done;
      end;
    end loop;
    delete from public.files f
     where f.status = 'uploading'
       and coalesce((select u.started_at from public.uploads u where u.file_id = f.id), f.created_at)
           < now() - public.upload_expiry()
       and not private.object_stored(f.object_path);
    get diagnostics removed = row_count;
    return removed;
  end
  $$;
