-- Sharing with people, part 2: who has access (see ../SHARING.md).
--
-- `grants` (created in 20261127000300_sharing_paths.sql): one row per item and person, with
-- a role — 'viewer' (see, preview, download) or 'editor' (also upload, create, rename, move
-- within the shared tree, trash, restore). Only the owner manages access: shares, changes a
-- role, removes someone, transfers ownership. Editors do not. Anyone with access may leave.
-- Clients never write the table: the rpcs below do, as the definer, after their checks.
--
-- Access to a folder covers everything below it; a grant deeper down may give more (an Editor
-- of a sub-folder of a folder they view), never less.

create policy "grants: owner and grantee read" on public.grants
  for select to authenticated
  using (owner_id = (select auth.uid()) or grantee_id = (select auth.uid()));
create policy "grants: two-step verification" on public.grants as restrictive
  for all to authenticated
  using ((select private.two_step_passed())) with check ((select private.two_step_passed()));

-- Mails about sharing, for a mail-sending function to deliver (the database cannot send mail).
-- No client reads or writes it; the service role does.
create table public.mail_outbox (
  id uuid primary key default gen_random_uuid(),
  kind text not null check (kind in ('shared', 'invited', 'ownership')),
  to_email text not null,
  to_user uuid references auth.users (id) on delete cascade,
  item_kind text not null check (item_kind in ('file', 'folder')),
  item_id uuid not null,
  item_name text not null,
  role text,
  sender_id uuid references auth.users (id) on delete set null,
  sender_name text not null default '',
  created_at timestamptz not null default now(),
  sent_at timestamptz
);
create index mail_outbox_unsent on public.mail_outbox (created_at) where sent_at is null;
alter table public.mail_outbox enable row level security;
revoke all on public.mail_outbox from anon, authenticated;

-- Read access to items shared with the caller (and everything below shared folders).
create policy "folders: shared with me" on public.folders
  for select to authenticated
  using ((ancestors || id) && (select private.shared_ids()));
create policy "files: shared with me" on public.files
  for select to authenticated
  using ((ancestors || id) && (select private.shared_ids()));

-- Stored objects of files shared with the caller: readable (download, preview, signed URLs).
create function private.reads_shared_object(p_name text) returns boolean
  language sql stable security definer set search_path = ''
  as $$
    select exists (
      select 1 from public.files f
      where f.object_path = p_name and (f.ancestors || f.id) && private.shared_ids()
    )
  $$;
revoke all on function private.reads_shared_object(text) from public;
grant execute on function private.reads_shared_object(text) to authenticated;
create policy "files bucket: shared readers" on storage.objects
  for select to authenticated
  using (bucket_id = 'files' and private.reads_shared_object(name));

-- Opening a file shared with the caller is not recorded (`file_opens` holds one row per file,
-- for its owner's Recent) and is not an error; anything else is as before (someone else's
-- file that the caller cannot see is refused by row level security).
create or replace function public.record_open(p_file_id uuid)
  returns void
  language plpgsql
  as $$
  begin
    if exists (select 1 from public.files f where f.id = p_file_id and f.owner_id <> auth.uid()) then
      return;
    end if;
    insert into public.file_opens (file_id) values (p_file_id)
    on conflict (file_id) do update set opened_at = now();
  end
  $$;

-- An item, whoever asks (the rpcs check the caller's right to it themselves).
create function private.item(p_kind text, p_id uuid)
  returns table (kind text, id uuid, owner_id uuid, path uuid[], name text, ready boolean,
                 trashed_at timestamptz, deleting_since timestamptz)
  language sql stable security definer set search_path = ''
  as $$
    select 'folder', f.id, f.owner_id, f.ancestors || f.id, f.name, true, f.trashed_at,
           f.deleting_since
      from public.folders f where p_kind = 'folder' and f.id = p_id
    union all
    select 'file', f.id, f.owner_id, f.ancestors || f.id, f.name, f.status = 'ready',
           f.trashed_at, f.deleting_since
      from public.files f where p_kind = 'file' and f.id = p_id
  $$;
revoke all on function private.item(text, uuid) from public;

-- The caller's role on an item at `path` owned by `owner`: 'owner', 'editor', 'viewer' or
-- null (no access, or a session that has not passed 2-step verification).
create function private.role_on(p_owner uuid, p_path uuid[]) returns text
  language sql stable security definer set search_path = ''
  as $$
    select case
      when auth.uid() is null or not private.two_step_passed() then null
      when p_owner = auth.uid() then 'owner'
      when exists (select 1 from public.grants g
                   where g.grantee_id = auth.uid() and g.item_id = any(p_path) and g.role = 'editor')
        then 'editor'
      when exists (select 1 from public.grants g
                   where g.grantee_id = auth.uid() and g.item_id = any(p_path))
        then 'viewer'
    end
  $$;
revoke all on function private.role_on(uuid, uuid[]) from public;
grant execute on function private.role_on(uuid, uuid[]) to authenticated;

-- The account with this verified address, if any. Never exposed to clients: only share_with
-- uses it, and what it answers is whether a grant is pending.
create function private.verified_user(p_email text) returns uuid
  language sql stable security definer set search_path = ''
  as $$
    select u.id from auth.users u
    where lower(u.email) = lower(p_email) and u.email_confirmed_at is not null
      and u.deleted_at is null and not u.is_anonymous
    order by u.created_at
    limit 1
  $$;
revoke all on function private.verified_user(text) from public;

create function private.display_name(p_user uuid) returns text
  language sql stable security definer set search_path = ''
  as $$ select p.display_name from public.profiles p where p.id = p_user $$;
revoke all on function private.display_name(uuid) from public;

-- Shares an item with a person by email, as 'viewer' or 'editor' (the owner only). An address
-- with no verified account gets a pending invitation, which becomes access when an account
-- with that address is verified. Sharing again with the same person changes the role.
-- Errors: 42501 not_owner (also for an item that does not exist), 22023 invalid_request /
-- invalid_email / share_self, 23503 item_deleted.
create function public.share_with(p_kind text, p_id uuid, p_email text, p_role text default 'viewer')
  returns table (grant_id uuid, email text, role text, pending boolean)
  language plpgsql volatile security definer set search_path = ''
  as $$
  declare
    it record;
    addr text := lower(btrim(coalesce(p_email, '')));
    person uuid;
    g public.grants;
    is_new boolean;
  begin
    if p_kind is null or p_kind not in ('file', 'folder') or p_role is null
      or p_role not in ('viewer', 'editor') then
      raise exception 'Expected a file or folder and the role viewer or editor'
        using errcode = '22023', hint = 'invalid_request';
    end if;
    if char_length(addr) > 320 or addr !~ '^[^@[:space:]]+@[^@[:space:]]+\.[^@[:space:]]+$' then
      raise exception 'Not an email address' using errcode = '22023', hint = 'invalid_email';
    end if;
    select * into it from private.item(p_kind, p_id);
    if not found or private.role_on(it.owner_id, it.path) is distinct from 'owner' then
      raise exception 'Only the owner can share this item' using errcode = '42501', hint = 'not_owner';
    end if;
    if it.deleting_since is not null then
      raise exception 'This item is being deleted forever' using errcode = '23503', hint = 'item_deleted';
    end if;
    if not it.ready then
      raise exception 'The upload of this file has not finished'
        using errcode = '23514', hint = 'upload_incomplete';
    end if;
    person := private.verified_user(addr);
    if person = auth.uid() or lower((select u.email from auth.users u where u.id = auth.uid())) = addr then
      raise exception 'This is your own item' using errcode = '22023', hint = 'share_self';
    end if;
    perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended(p_id::text, 7));
    if person is not null then
      select * into g from public.grants x where x.item_id = p_id and x.grantee_id = person;
    else
      select * into g from public.grants x where x.item_id = p_id and x.grantee_id is null
        and x.email = addr;
    end if;
    is_new := g.id is null;
    if is_new then
      insert into public.grants (folder_id, file_id, owner_id, grantee_id, email, role, granted_by)
      values (case when p_kind = 'folder' then p_id end, case when p_kind = 'file' then p_id end,
              it.owner_id, person, addr, p_role, auth.uid())
      returning * into g;
      insert into public.mail_outbox (kind, to_email, to_user, item_kind, item_id, item_name, role,
                                      sender_id, sender_name)
      values (case when person is null then 'invited' else 'shared' end, addr, person, p_kind,
              p_id, it.name, p_role, auth.uid(), coalesce(private.display_name(auth.uid()), ''));
    elsif g.role <> p_role then
      update public.grants x set role = p_role, updated_at = now() where x.id = g.id
        returning * into g;
    end if;
    return query select g.id, g.email, g.role, g.grantee_id is null;
  end
  $$;

-- Changes the role of a grant (the item's owner only). 42501 not_owner otherwise.
create function public.set_share_role(p_grant uuid, p_role text)
  returns void
  language plpgsql volatile security definer set search_path = ''
  as $$
  begin
    if p_role is null or p_role not in ('viewer', 'editor') then
      raise exception 'The role is viewer or editor' using errcode = '22023', hint = 'invalid_request';
    end if;
    update public.grants g set role = p_role, updated_at = now()
      where g.id = p_grant and g.owner_id = auth.uid() and private.two_step_passed()
        and g.role <> p_role;
    if not found and not exists (
      select 1 from public.grants g
      where g.id = p_grant and g.owner_id = auth.uid() and private.two_step_passed()
    ) then
      raise exception 'Only the owner manages access' using errcode = '42501', hint = 'not_owner';
    end if;
  end
  $$;

-- Removes a grant: the item's owner removes anyone; a person may remove their own access.
create function public.unshare(p_grant uuid)
  returns void
  language plpgsql volatile security definer set search_path = ''
  as $$
  begin
    delete from public.grants g
      where g.id = p_grant and private.two_step_passed()
        and (g.owner_id = auth.uid() or g.grantee_id = auth.uid());
    if not found then
      raise exception 'Only the owner manages access' using errcode = '42501', hint = 'not_owner';
    end if;
  end
  $$;

-- Who has access to an item: its owner, and every grant on it or on a folder above it
-- (`via_kind`/`via_id`: where the grant is; `inherited` when that is a folder above).
-- Readable by the owner and by everyone with access; pending invitations are listed to the
-- owner only. 42501 no_access for anyone else (also for an item that does not exist).
create function public.list_access(p_kind text, p_id uuid)
  returns table (grant_id uuid, user_id uuid, display_name text, email text, role text,
                 pending boolean, via_kind text, via_id uuid, inherited boolean,
                 granted_by uuid, granted_by_name text, created_at timestamptz)
  language plpgsql stable security definer set search_path = ''
  as $$
  declare
    it record;
    mine text;
  begin
    select * into it from private.item(p_kind, p_id);
    mine := case when found then private.role_on(it.owner_id, it.path) end;
    if mine is null then
      raise exception 'No access to this item' using errcode = '42501', hint = 'no_access';
    end if;
    return query
      select null::uuid, it.owner_id, coalesce(private.display_name(it.owner_id), ''),
             (select u.email::text from auth.users u where u.id = it.owner_id), 'owner'::text,
             false, null::text, null::uuid, false, null::uuid, null::text, null::timestamptz
      union all
      select g.id, g.grantee_id,
             case when g.grantee_id is null then '' else coalesce(private.display_name(g.grantee_id), '') end,
             coalesce((select u.email::text from auth.users u where u.id = g.grantee_id), g.email),
             g.role, g.grantee_id is null,
             case when g.folder_id is not null then 'folder' else 'file' end, g.item_id,
             g.item_id <> p_id, g.granted_by, private.display_name(g.granted_by), g.created_at
        from public.grants g
       where g.item_id = any(it.path) and (g.grantee_id is not null or mine = 'owner');
  end
  $$;

-- "Shared with me": the items shared with the caller directly (not what is below them), not
-- in the Trash, with their owner and the caller's role on them.
create function public.shared_with_me()
  returns table (kind text, id uuid, name text, mime_type text, size bigint,
                 updated_at timestamptz, owner_id uuid, owner_name text, owner_email text,
                 role text, granted_by uuid, granted_by_name text, shared_at timestamptz)
  language sql stable security definer set search_path = ''
  as $$
    select 'folder'::text, f.id, f.name, null::text, null::bigint, f.created_at, f.owner_id,
           coalesce(private.display_name(f.owner_id), ''), u.email::text,
           private.role_on(f.owner_id, f.ancestors || f.id), g.granted_by,
           private.display_name(g.granted_by), g.created_at
      from public.grants g
      join public.folders f on f.id = g.folder_id
      left join auth.users u on u.id = f.owner_id
     where g.grantee_id = auth.uid() and private.two_step_passed()
       and f.trashed_at is null and f.deleting_since is null
    union all
    select 'file', f.id, f.name, f.mime_type, f.size, f.updated_at, f.owner_id,
           coalesce(private.display_name(f.owner_id), ''), u.email::text,
           private.role_on(f.owner_id, f.ancestors || f.id), g.granted_by,
           private.display_name(g.granted_by), g.created_at
      from public.grants g
      join public.files f on f.id = g.file_id
      left join auth.users u on u.id = f.owner_id
     where g.grantee_id = auth.uid() and private.two_step_passed()
       and f.trashed_at is null and f.deleting_since is null and f.status = 'ready'
     order by 13 desc, 3
  $$;

-- The caller's role on an item: 'owner', 'editor', 'viewer', or null.
create function public.my_role(p_kind text, p_id uuid)
  returns text
  language sql stable security definer set search_path = ''
  as $$ select private.role_on(i.owner_id, i.path) from private.item(p_kind, p_id) i $$;

revoke execute on function public.share_with(text, uuid, text, text) from public, anon;
revoke execute on function public.set_share_role(uuid, text) from public, anon;
revoke execute on function public.unshare(uuid) from public, anon;
revoke execute on function public.list_access(text, uuid) from public, anon;
revoke execute on function public.shared_with_me() from public, anon;
revoke execute on function public.my_role(text, uuid) from public, anon;
grant execute on function public.share_with(text, uuid, text, text) to authenticated;
grant execute on function public.set_share_role(uuid, text) to authenticated;
grant execute on function public.unshare(uuid) to authenticated;
grant execute on function public.list_access(text, uuid) to authenticated;
grant execute on function public.shared_with_me() to authenticated;
grant execute on function public.my_role(text, uuid) to authenticated;

-- A pending invitation becomes access when an account with that address is verified: at
-- sign-up when it is verified at once, or when its address is confirmed (or changed) later.
-- Where that person has a grant on the item already, the stronger role stays.
create function private.accept_invitations() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  declare
    addr text := lower(new.email);
  begin
    if addr is null or new.email_confirmed_at is null or new.is_anonymous then
      return null;
    end if;
    update public.grants g set role = 'editor', updated_at = now()
      from public.grants p
     where p.grantee_id is null and p.email = addr and p.role = 'editor'
       and g.item_id = p.item_id and g.grantee_id = new.id and g.role = 'viewer';
    delete from public.grants p
     where p.grantee_id is null and p.email = addr
       and (p.owner_id = new.id
         or exists (select 1 from public.grants g where g.item_id = p.item_id and g.grantee_id = new.id));
    update public.grants p set grantee_id = new.id, updated_at = now()
     where p.grantee_id is null and p.email = addr;
    return null;
  end
  $$;
revoke all on function private.accept_invitations() from public;
create trigger on_auth_user_verified_accept_invitations
  after insert on auth.users
  for each row when (new.email_confirmed_at is not null)
  execute function private.accept_invitations();
create trigger on_auth_user_confirmed_accept_invitations
  after update of email_confirmed_at, email on auth.users
  for each row when (new.email_confirmed_at is not null
    and (old.email_confirmed_at is null or old.email is distinct from new.email))
  execute function private.accept_invitations();
