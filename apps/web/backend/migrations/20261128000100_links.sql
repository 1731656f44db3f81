-- Links worth sending (see ../SHARING.md, "Links for anyone"): links to files and folders,
-- with an optional password, an expiry from one hour to never, an optional download limit,
-- "view only" (preview, no download), and upload links ("file requests") into one folder.
--
-- A visitor never reaches a row: the `share` function calls the functions below with the
-- service role, and every rule is checked here. Passwords, password attempts and visitor
-- sessions live in `private` (not reachable through the API); a visitor exchanges the
-- password for a session token (an hour), sent back in a header, never in the URL.

create extension if not exists pgcrypto with schema extensions;

alter table public.shares
  alter column file_id drop not null,
  alter column expires_at drop not null,
  add column folder_id uuid references public.folders (id) on delete cascade,
  -- 'download': preview and download; 'view': preview only; 'upload': a file request.
  add column mode text not null default 'download' check (mode in ('download', 'view', 'upload')),
  add column has_password boolean not null default false,
  add column max_downloads integer check (max_downloads > 0),
  add column max_upload_bytes bigint check (max_upload_bytes > 0),
  add column visit_count integer not null default 0,
  add column upload_count integer not null default 0;
alter table public.shares drop constraint if exists shares_check;
alter table public.shares
  add constraint shares_one_item check (num_nonnulls(file_id, folder_id) = 1),
  add constraint shares_upload_to_folder check (mode <> 'upload' or folder_id is not null),
  add constraint shares_expiry check (expires_at is null or expires_at > created_at);
create index shares_folder on public.shares (folder_id);

-- The owner creates plain links by REST too (file or folder of theirs); everything else
-- (mode, password, limits) only through `create_link`. The owner may only revoke.
drop policy "shares: owner creates" on public.shares;
create policy "shares: owner creates" on public.shares
  for insert to authenticated with check (
    owner_id = (select auth.uid())
    and (
      exists (select 1 from public.files f
              where f.id = file_id and f.owner_id = (select auth.uid()) and f.status = 'ready')
      or exists (select 1 from public.folders d
                 where d.id = folder_id and d.owner_id = (select auth.uid()))
    )
  );
revoke insert, update on public.shares from authenticated;
grant insert (file_id, folder_id, expires_at) on public.shares to authenticated;
grant update (revoked_at) on public.shares to authenticated;

create table private.link_passwords (
  share_id uuid primary key references public.shares (id) on delete cascade,
  hash text not null
);
create table private.link_attempts (
  share_id uuid not null references public.shares (id) on delete cascade,
  at timestamptz not null default now()
);
create index link_attempts_share on private.link_attempts (share_id, at);
create table private.link_sessions (
  token_hash text primary key,
  share_id uuid not null references public.shares (id) on delete cascade,
  expires_at timestamptz not null
);
create index link_sessions_share on private.link_sessions (share_id);
-- Files uploaded through an upload link, with the key their uploader resumes or finishes by.
create table private.link_uploads (
  file_id uuid primary key references public.files (id) on delete cascade,
  share_id uuid not null references public.shares (id) on delete cascade,
  upload_key text not null unique
);
create index link_uploads_share on private.link_uploads (share_id);
revoke all on private.link_passwords, private.link_attempts, private.link_sessions,
  private.link_uploads from public, anon, authenticated;

-- How many wrong passwords a link takes in `link_attempt_window()` before it refuses them all.
create function public.link_attempt_limit() returns integer
  language sql immutable as $$ select 5 $$;
create function public.link_attempt_window() returns interval
  language sql immutable as $$ select interval '15 minutes' $$;
create function public.link_session_lifetime() returns interval
  language sql immutable as $$ select interval '1 hour' $$;

-- Creates a link for the caller's own file or folder.
create function public.create_link(
  p_file_id uuid default null,
  p_folder_id uuid default null,
  p_mode text default 'download',
  p_expires_in interval default interval '1 day',
  p_password text default null,
  p_max_downloads integer default null,
  p_max_upload_bytes bigint default null
)
  returns public.shares
  language plpgsql security definer set search_path = ''
  as $$
  declare
    created public.shares;
  begin
    if auth.uid() is null then
      perform private.refuse('Sign in to create links', 'not_signed_in');
    end if;
    if not private.two_step_passed() then
      perform private.refuse('Two-step verification required', 'aal2_required');
    end if;
    if num_nonnulls(p_file_id, p_folder_id) <> 1 then
      perform private.refuse('A link is to one file or one folder', 'invalid_link', '22023');
    end if;
    if p_file_id is not null and not exists (
      select 1 from public.files f where f.id = p_file_id and f.owner_id = auth.uid()
        and f.status = 'ready' and f.trashed_at is null
    ) or p_folder_id is not null and not exists (
      select 1 from public.folders d where d.id = p_folder_id and d.owner_id = auth.uid()
        and d.trashed_at is null
    ) then
      perform private.refuse('Only the owner creates links to an item', 'not_owner');
    end if;
    if p_mode is null or p_mode not in ('download', 'view', 'upload') then
      perform private.refuse('Unknown link mode', 'invalid_link', '22023');
    end if;
    if p_mode = 'upload' and p_folder_id is null then
      perform private.refuse('Upload links are to folders', 'invalid_link', '22023');
    end if;
    if p_expires_in is not null and p_expires_in < interval '1 hour' then
      perform private.refuse('A link lasts at least an hour', 'invalid_expiry', '22023');
    end if;
    if p_password is not null and char_length(p_password) not between 4 and 200 then
      perform private.refuse('A link password has 4 to 200 characters', 'invalid_password', '22023');
    end if;
    insert into public.shares (file_id, folder_id, owner_id, mode, expires_at, has_password,
                               max_downloads, max_upload_bytes)
      values (p_file_id, p_folder_id, auth.uid(), p_mode, now() + p_expires_in,
              p_password is not null, p_max_downloads, p_max_upload_bytes)
      returning * into created;
    if p_password is not null then
      insert into private.link_passwords (share_id, hash)
        values (created.id, extensions.crypt(p_password, extensions.gen_salt('bf', 8)));
    end if;
    return created;
  end
  $$;
revoke execute on function public.create_link(uuid, uuid, text, interval, text, integer, bigint)
  from public, anon;
grant execute on function public.create_link(uuid, uuid, text, interval, text, integer, bigint)
  to authenticated;

-- The state of a link for a visitor: ok, not_found, revoked, expired, exhausted.
create function private.link_state(s public.shares) returns text
  language plpgsql stable security definer set search_path = ''
  as $$
  begin
    if s.id is null then return 'not_found'; end if;
    if s.revoked_at is not null then return 'revoked'; end if;
    if s.expires_at is not null and s.expires_at <= now() then return 'expired'; end if;
    if s.file_id is not null and not exists (
      select 1 from public.files f where f.id = s.file_id and f.status = 'ready'
        and f.trashed_at is null and f.deleting_since is null
    ) or s.folder_id is not null and not exists (
      select 1 from public.folders d where d.id = s.folder_id and d.trashed_at is null
        and d.deleting_since is null
    ) then
      return 'not_found';
    end if;
    if s.max_downloads is not null and s.download_count >= s.max_downloads then
      return 'exhausted';
    end if;
    return 'ok';
  end
  $$;
revoke all on function private.link_state(public.shares) from public;
