-- Links to a folder go with it when its ownership is transferred (transfer_ownership moves
-- the links of files itself): the new owner lists and revokes them, and what an upload link
-- takes lands in the new owner's files and quota.
create function private.folder_links_follow_owner() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  begin
    update public.shares s set owner_id = new.owner_id
      where s.folder_id = new.id and s.owner_id is distinct from new.owner_id;
    return null;
  end
  $$;
revoke all on function private.folder_links_follow_owner() from public;
create trigger folders_links_follow_owner
  after update of owner_id on public.folders
  for each row when (old.owner_id is distinct from new.owner_id)
  execute function private.folder_links_follow_owner();
