-- Sharing with people, part 6: transferring ownership (see ../SHARING.md).
--
-- The owner of a file or folder hands it (with everything below it) to a person who is an
-- Editor of it. It moves to the new owner's "My files" (under a free name), counts against
-- the new owner's quota from then on, keeps its other grants and public links, and the old
-- owner becomes an Editor of it. The stored objects stay where they are (the storage API
-- alone moves objects), so access to an object follows its file row, not its path: the
-- owner of the row reads it and deletes it forever, and the path's first segment (the old
-- owner) no longer gives access to an object held by someone else's file.

-- The owner of the file row holding an object reads it; once it is being deleted forever,
-- removes it (the Trash function does, with the owner's token).
create function private.owns_object(p_name text, p_deleting boolean) returns boolean
  language sql stable security definer set search_path = ''
  as $$
    select exists (
      select 1 from public.files f
      where f.object_path = p_name and f.owner_id = auth.uid()
        and (not p_deleting or f.deleting_since is not null)
    )
  $$;
revoke all on function private.owns_object(text, boolean) from public;
grant execute on function private.owns_object(text, boolean) to authenticated;

-- May the caller read this object as far as its file row is concerned: no row holds it (an
-- upload's leftovers, the owner's to clean), or the row is the caller's or shared with them.
create function private.object_readable(p_name text) returns boolean
  language sql stable security definer set search_path = ''
  as $$
    select not exists (
      select 1 from public.files f
      where f.object_path = p_name and f.owner_id <> auth.uid()
        and not (f.ancestors || f.id) && private.shared_ids()
    )
  $$;
revoke all on function private.object_readable(text) from public;
grant execute on function private.object_readable(text) to authenticated;

create policy "files bucket: the file's owner reads" on storage.objects
  for select to authenticated
  using (bucket_id = 'files' and private.owns_object(name, false));
create policy "files bucket: the file's owner deletes what is deleted forever" on storage.objects
  for delete to authenticated
  using (bucket_id = 'files' and private.owns_object(name, true));
create policy "files bucket: objects of others' files" on storage.objects as restrictive
  for select to authenticated
  using (bucket_id <> 'files' or private.object_readable(name));

-- Hands an item to `p_to`, an Editor of it (directly or through a folder above). The caller
-- must own it. Errors: 42501 not_owner; 22023 not_editor (p_to is not an Editor of it);
-- 23503 item_deleted; P0001 quota_exceeded (the new owner has no room for it).
create function public.transfer_ownership(p_kind text, p_id uuid, p_to uuid)
  returns table (kind text, id uuid, name text, owner_id uuid)
  language plpgsql volatile security definer set search_path = ''
  as $$
  declare
    it record;
    me uuid := auth.uid();
    moved_bytes bigint;
    used bigint;
    free text;
    item_ids uuid[];
  begin
    select * into it from private.item(p_kind, p_id);
    if not found or private.role_on(it.owner_id, it.path) is distinct from 'owner' then
      raise exception 'Only the owner can transfer this item' using errcode = '42501', hint = 'not_owner';
    end if;
    if it.trashed_at is not null or it.deleting_since is not null then
      raise exception 'This item is in the Trash' using errcode = '23503', hint = 'item_deleted';
    end if;
    if not exists (select 1 from public.grants g
                   where g.grantee_id = p_to and g.item_id = any(it.path) and g.role = 'editor') then
      raise exception 'The new owner must be an Editor of this item'
        using errcode = '22023', hint = 'not_editor';
    end if;
    -- Lock the item and both owners' quota decisions (in a fixed order).
    if p_kind = 'folder' then
      perform 1 from public.folders f where f.id = p_id for update;
    else
      perform 1 from public.files f where f.id = p_id for update;
    end if;
    perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended(least(me, p_to)::text, 0));
    perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended(greatest(me, p_to)::text, 0));
    select coalesce(pg_catalog.array_agg(f.id), '{}'), coalesce(sum(f.size), 0)
      into item_ids, moved_bytes
      from public.files f
     where (p_kind = 'file' and f.id = p_id) or (p_kind = 'folder' and f.ancestors @> array[p_id]);
    used := public.used_bytes(p_to);
    if used + moved_bytes > public.quota_bytes() then
      raise exception 'The new owner''s storage is full'
        using errcode = 'P0001', hint = 'quota_exceeded',
              detail = 'owner_quota: the new owner has no room for this item';
    end if;

    free := private.free_name_in(p_to, p_kind, null, it.name, p_id);
    if p_kind = 'folder' then
      update public.folders f set owner_id = p_to, parent_id = null, name = free where f.id = p_id;
      update public.folders f set owner_id = p_to where f.ancestors @> array[p_id];
      update public.files f set owner_id = p_to where f.ancestors @> array[p_id];
    else
      update public.files f set owner_id = p_to, folder_id = null, name = free where f.id = p_id;
    end if;
    update public.shares s set owner_id = p_to where s.file_id = any(item_ids);
    delete from public.file_opens o where o.file_id = any(item_ids);
    update public.grants g set owner_id = p_to
      where g.item_id = p_id
         or g.folder_id in (select f.id from public.folders f where f.ancestors @> array[p_id])
         or g.file_id = any(item_ids);
    -- The new owner needs no grant below what they own; the old owner becomes an Editor.
    delete from public.grants g where g.owner_id = p_to and g.grantee_id = p_to;
    insert into public.grants (folder_id, file_id, owner_id, grantee_id, email, role, granted_by)
    select case when p_kind = 'folder' then p_id end, case when p_kind = 'file' then p_id end,
           p_to, me, lower(u.email), 'editor', me
      from auth.users u where u.id = me
    on conflict (item_id, grantee_id) where grantee_id is not null
      do update set role = 'editor', updated_at = now();
    insert into public.mail_outbox (kind, to_email, to_user, item_kind, item_id, item_name, role,
                                    sender_id, sender_name)
    select 'ownership', lower(u.email), p_to, p_kind, p_id, free, 'owner', me,
           coalesce(private.display_name(me), '')
      from auth.users u where u.id = p_to;
    return query select p_kind, p_id, free, p_to;
  end
  $$;
revoke execute on function public.transfer_ownership(text, uuid, uuid) from public, anon;
grant execute on function public.transfer_ownership(text, uuid, uuid) to authenticated;
