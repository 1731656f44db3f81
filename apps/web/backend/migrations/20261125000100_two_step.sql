-- 2-step verification. Once a user has a verified second factor (an authenticator app), their
-- files, folders, shares, recent opens and stored objects are readable and writable only by a
-- session that passed it: `aal2` in the access token. Users without one are not affected.
-- Restrictive policies: they narrow the owner policies, never widen them, so they hold for
-- REST, storage and the live updates (realtime checks the same select policies).

create schema if not exists private;
grant usage on schema private to authenticated;

-- True when the caller's session may see their files: it passed 2-step verification, or
-- the caller has not turned it on. Security definer: it reads auth.mfa_factors, which the
-- API roles cannot.
create function private.two_step_passed() returns boolean
  language sql stable security definer set search_path = ''
  as $$
    select coalesce(auth.jwt() ->> 'aal', '') = 'aal2'
      or not exists (
        select 1 from auth.mfa_factors f
        where f.user_id = auth.uid() and f.status = 'verified'
      )
  $$;
revoke all on function private.two_step_passed() from public;
grant execute on function private.two_step_passed() to authenticated;

-- The owner policies of folders looked up the parent folder with a subquery on folders. With
-- a sub-select in the policies below, Postgres would see that as a policy recursing into its
-- own table, so the parent check goes through a function instead (same rule as before).
create function private.owns_folder(p_id uuid) returns boolean
  language sql stable security definer set search_path = ''
  as $$
    select exists (select 1 from public.folders where id = p_id and owner_id = auth.uid())
  $$;
revoke all on function private.owns_folder(uuid) from public;
grant execute on function private.owns_folder(uuid) to authenticated;
drop policy "folders: owner creates" on public.folders;
create policy "folders: owner creates" on public.folders
  for insert to authenticated
  with check (owner_id = auth.uid() and (parent_id is null or private.owns_folder(parent_id)));
drop policy "folders: owner updates" on public.folders;
create policy "folders: owner updates" on public.folders
  for update to authenticated using (owner_id = auth.uid())
  with check (owner_id = auth.uid() and (parent_id is null or private.owns_folder(parent_id)));

-- `(select …)` evaluates it once per statement, not once per row.
create policy "files: two-step verification" on public.files as restrictive
  for all to authenticated
  using ((select private.two_step_passed())) with check ((select private.two_step_passed()));
create policy "folders: two-step verification" on public.folders as restrictive
  for all to authenticated
  using ((select private.two_step_passed())) with check ((select private.two_step_passed()));
create policy "shares: two-step verification" on public.shares as restrictive
  for all to authenticated
  using ((select private.two_step_passed())) with check ((select private.two_step_passed()));
create policy "file_opens: two-step verification" on public.file_opens as restrictive
  for all to authenticated
  using ((select private.two_step_passed())) with check ((select private.two_step_passed()));
create policy "files bucket: two-step verification" on storage.objects as restrictive
  for all to authenticated
  using (bucket_id <> 'files' or (select private.two_step_passed()))
  with check (bucket_id <> 'files' or (select private.two_step_passed()));
