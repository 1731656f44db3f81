-- The owner's row level security policies on folders and files compare `owner_id` with
-- `(select auth.uid())`, as the sharing policies do (20261127000400_sharing_grants.sql): an
-- InitPlan evaluated once per statement. Written as `auth.uid()`, the caller's id was read
-- and parsed from the request's claims again for every row: listing a folder of 10,000 files
-- (its exact count) cost its owner about five times what it cost a person it is shared with
-- (whose rows pass the sharing policy first). Same rules, same names; only the evaluation
-- changes.

alter policy "folders: owner reads" on public.folders
  using (owner_id = (select auth.uid()));
alter policy "files: owner reads" on public.files
  using (owner_id = (select auth.uid()));

alter policy "folders: owner updates" on public.folders
  using (owner_id = (select auth.uid()))
  with check (
    owner_id = (select auth.uid())
    and (parent_id is null or private.owns_folder(parent_id))
  );
alter policy "files: owner updates" on public.files
  using (owner_id = (select auth.uid()))
  with check (
    owner_id = (select auth.uid())
    and (folder_id is null
      or exists (select 1 from public.folders p
                 where p.id = files.folder_id and p.owner_id = (select auth.uid())))
  );
