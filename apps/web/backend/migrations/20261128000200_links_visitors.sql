-- What a visitor of a link may do, each call checking the link and the visitor's session
-- (see 20261128000100_links.sql). Called by the `share` function with the service role only.
-- Refusals raise with a hint the function turns into its answer: link_not_found,
-- link_revoked, link_expired, link_exhausted, link_session, link_view_only,
-- link_upload_only, link_not_upload, link_item_not_found, link_too_large.

-- Opens a link: checks its state and password (rate limited per link), counts the visit and
-- starts a session. Never raises for a visitor's mistake: answers {state: …}.
create function public.open_link(p_token text, p_password text default null)
  returns jsonb
  language plpgsql security definer set search_path = ''
  as $$
  declare
    s public.shares;
    st text;
    failures integer;
    oldest timestamptz;
    session text;
    until timestamptz;
    item jsonb;
  begin
    select * into s from public.shares where token = p_token;
    st := private.link_state(s);
    if st <> 'ok' then
      return pg_catalog.jsonb_build_object('state', st);
    end if;
    if s.has_password then
      if p_password is null or p_password = '' then
        return pg_catalog.jsonb_build_object('state', 'password_required');
      end if;
      -- One attempt at a time per link, so that parallel guesses count one by one.
      perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('link:' || s.id::text, 2));
      delete from private.link_attempts a
        where a.share_id = s.id and a.at <= now() - public.link_attempt_window();
      select count(*), min(a.at) into failures, oldest from private.link_attempts a
        where a.share_id = s.id;
      if failures >= public.link_attempt_limit() then
        return pg_catalog.jsonb_build_object('state', 'rate_limited', 'retry_after',
          greatest(1, ceil(extract(epoch from oldest + public.link_attempt_window() - now())))::integer);
      end if;
      if not exists (
        select 1 from private.link_passwords p
        where p.share_id = s.id and p.hash = extensions.crypt(p_password, p.hash)
      ) then
        insert into private.link_attempts (share_id) values (s.id);
        return pg_catalog.jsonb_build_object('state', 'wrong_password');
      end if;
    end if;
    delete from private.link_sessions ls where ls.expires_at <= now();
    session := pg_catalog.encode(extensions.gen_random_bytes(32), 'hex');
    until := least(now() + public.link_session_lifetime(), coalesce(s.expires_at, 'infinity'));
    insert into private.link_sessions (token_hash, share_id, expires_at)
      values (pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(session, 'UTF8')), 'hex'),
              s.id, until);
    update public.shares set visit_count = visit_count + 1 where id = s.id;
    if s.file_id is not null then
      select pg_catalog.jsonb_build_object('id', f.id, 'name', f.name, 'size', f.size,
               'mime_type', f.mime_type, 'updated_at', f.updated_at)
        into item from public.files f where f.id = s.file_id;
    else
      select pg_catalog.jsonb_build_object('id', d.id, 'name', d.name)
        into item from public.folders d where d.id = s.folder_id;
    end if;
    return pg_catalog.jsonb_build_object(
      'state', 'ok', 'session', session, 'session_expires_at', until,
      'kind', case when s.file_id is not null then 'file' else 'folder' end,
      'mode', s.mode, 'expires_at', s.expires_at, 'item', item,
      'max_upload_bytes', s.max_upload_bytes,
      'downloads_left', s.max_downloads - s.download_count);
  end
  $$;

-- The link of `p_token` if `p_session` is a live session of it and the link still works.
create function private.link_session(p_token text, p_session text) returns public.shares
  language plpgsql security definer set search_path = ''
  as $$
  declare
    s public.shares;
    st text;
  begin
    select * into s from public.shares where token = p_token;
    st := private.link_state(s);
    if st <> 'ok' then
      perform private.refuse('This link is not available', 'link_' || st, 'P0001');
    end if;
    if p_session is null or not exists (
      select 1 from private.link_sessions ls
      where ls.token_hash = pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(p_session, 'UTF8')), 'hex')
        and ls.share_id = s.id and ls.expires_at > now()
    ) then
      perform private.refuse('Open the link again', 'link_session', 'P0001');
    end if;
    return s;
  end
  $$;
revoke all on function private.link_session(text, text) from public;

-- A folder of a folder link (its root when p_folder_id is null): its path from the link's
-- folder, its folders and its ready files.
create function public.link_list(p_token text, p_session text, p_folder_id uuid default null)
  returns jsonb
  language plpgsql security definer set search_path = ''
  as $$
  declare
    s public.shares := private.link_session(p_token, p_session);
    d public.folders;
    chain uuid[];
  begin
    if s.mode = 'upload' then
      perform private.refuse('An upload link shows nothing', 'link_upload_only', 'P0001');
    end if;
    if s.folder_id is null then
      perform private.refuse('Not a folder link', 'link_item_not_found', 'P0001');
    end if;
    select * into d from public.folders f
      where f.id = coalesce(p_folder_id, s.folder_id) and f.trashed_at is null
        and (f.id = s.folder_id or s.folder_id = any(f.ancestors));
    if not found then
      perform private.refuse('No such folder in this link', 'link_item_not_found', 'P0001');
    end if;
    chain := d.ancestors || d.id;
    chain := chain[pg_catalog.array_position(chain, s.folder_id):];
    return pg_catalog.jsonb_build_object(
      'folder', pg_catalog.jsonb_build_object('id', d.id, 'name', d.name),
      'path', (select pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('id', a.id, 'name', a.name)
                                          order by u.n)
                 from unnest(chain) with ordinality u(id, n) join public.folders a on a.id = u.id),
      'folders', coalesce((select pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                             'id', c.id, 'name', c.name) order by lower(c.name))
                           from public.folders c
                           where c.parent_id = d.id and c.trashed_at is null), '[]'),
      'files', coalesce((select pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                           'id', f.id, 'name', f.name, 'size', f.size, 'mime_type', f.mime_type,
                           'updated_at', f.updated_at) order by lower(f.name))
                         from public.files f
                         where f.folder_id = d.id and f.status = 'ready' and f.trashed_at is null),
                        '[]'));
  end
  $$;

-- One file of the link for a preview or a download (a download counts, within the limit;
-- a view-only link gives none). Answers its name, type, size and stored object.
create function public.link_file(p_token text, p_session text, p_file_id uuid, p_purpose text)
  returns jsonb
  language plpgsql security definer set search_path = ''
  as $$
  declare
    s public.shares := private.link_session(p_token, p_session);
    f public.files;
    counted integer;
  begin
    if s.mode = 'upload' then
      perform private.refuse('An upload link shows nothing', 'link_upload_only', 'P0001');
    end if;
    if p_purpose is null or p_purpose not in ('preview', 'download') then
      perform private.refuse('Unknown purpose', 'invalid_request', '22023');
    end if;
    if p_purpose = 'download' and s.mode = 'view' then
      perform private.refuse('This link is for viewing only', 'link_view_only', 'P0001');
    end if;
    select * into f from public.files x
      where x.id = coalesce(p_file_id, s.file_id) and x.status = 'ready' and x.trashed_at is null
        and (x.id = s.file_id or s.folder_id = any(x.ancestors));
    if not found then
      perform private.refuse('No such file in this link', 'link_item_not_found', 'P0001');
    end if;
    if p_purpose = 'download' then
      update public.shares set download_count = download_count + 1
        where id = s.id and (max_downloads is null or download_count < max_downloads);
      get diagnostics counted = row_count;
      if counted = 0 then
        perform private.refuse('This link is not available', 'link_exhausted', 'P0001');
      end if;
    end if;
    return pg_catalog.jsonb_build_object('id', f.id, 'name', f.name, 'size', f.size,
      'mime_type', f.mime_type, 'object_path', f.object_path, 'updated_at', f.updated_at);
  end
  $$;

-- Everything below a folder of the link, for a zip (one download of the link): paths inside
-- the zip (empty folders too) and stored objects.
create function public.link_zip(p_token text, p_session text, p_folder_id uuid default null)
  returns jsonb
  language plpgsql security definer set search_path = ''
  as $$
  declare
    s public.shares := private.link_session(p_token, p_session);
    root public.folders;
    counted integer;
  begin
    if s.mode = 'upload' then
      perform private.refuse('An upload link shows nothing', 'link_upload_only', 'P0001');
    end if;
    if s.mode = 'view' then
      perform private.refuse('This link is for viewing only', 'link_view_only', 'P0001');
    end if;
    select * into root from public.folders f
      where s.folder_id is not null and f.id = coalesce(p_folder_id, s.folder_id)
        and f.trashed_at is null and (f.id = s.folder_id or s.folder_id = any(f.ancestors));
    if not found then
      perform private.refuse('No such folder in this link', 'link_item_not_found', 'P0001');
    end if;
    update public.shares set download_count = download_count + 1
      where id = s.id and (max_downloads is null or download_count < max_downloads);
    get diagnostics counted = row_count;
    if counted = 0 then
      perform private.refuse('This link is not available', 'link_exhausted', 'P0001');
    end if;
    return coalesce((
      with recursive tree(id, path) as (
        select root.id, root.name
        union all
        select c.id, tree.path || '/' || c.name
        from public.folders c join tree on c.parent_id = tree.id
        where c.trashed_at is null
      ), entries as (
        select 'folder' as kind, tree.path || '/' as path, 0::bigint as size,
               null::text as object_path, null::timestamptz as updated_at
          from tree
        union all
        select 'file', tree.path || '/' || f.name, f.size, f.object_path, f.updated_at
          from public.files f join tree on f.folder_id = tree.id
          where f.status = 'ready' and f.trashed_at is null
      )
      select pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('kind', e.kind, 'path', e.path,
               'size', e.size, 'object_path', e.object_path,
               'updated_at', coalesce(e.updated_at, now())) order by e.path)
      from entries e), '[]');
  end
  $$;

-- Starts (or, with the key of an unfinished one of the same size, resumes) an upload through
-- an upload link: a file of the link's owner in the link's folder, within the owner's quota
-- (files_before_write) and the link's size cap (all its uploads together).
create function public.link_begin_upload(
  p_token text, p_session text, p_name text, p_size bigint,
  p_mime_type text default 'application/octet-stream', p_upload_key text default null
)
  returns jsonb
  language plpgsql security definer set search_path = ''
  as $$
  declare
    s public.shares := private.link_session(p_token, p_session);
    f public.files;
    used bigint;
    key text;
  begin
    if s.mode <> 'upload' then
      perform private.refuse('Not an upload link', 'link_not_upload', 'P0001');
    end if;
    if p_size is null or p_size < 0 then
      perform private.refuse('Invalid size', 'invalid_request', '22023');
    end if;
    if p_upload_key is not null then
      select x.* into f from private.link_uploads u join public.files x on x.id = u.file_id
        where u.upload_key = p_upload_key and u.share_id = s.id and x.status = 'uploading'
          and x.size = p_size and x.trashed_at is null;
      if found then
        return pg_catalog.jsonb_build_object('upload_key', p_upload_key,
          'object_path', f.object_path, 'size', f.size);
      end if;
    end if;
    if not public.is_valid_name(p_name) then
      perform private.refuse('Invalid name', 'invalid_name', '23514');
    end if;
    perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('link:' || s.id::text, 3));
    if s.max_upload_bytes is not null then
      select coalesce(sum(x.size), 0) into used
        from private.link_uploads u join public.files x on x.id = u.file_id
        where u.share_id = s.id;
      if used + p_size > s.max_upload_bytes then
        perform private.refuse('This file is larger than the link accepts', 'link_too_large', 'P0001');
      end if;
    end if;
    perform pg_catalog.pg_advisory_xact_lock(
      pg_catalog.hashtextextended(s.owner_id::text || ':' || s.folder_id::text, 1));
    insert into public.files (owner_id, folder_id, name, size, mime_type, created_by)
      values (s.owner_id, s.folder_id,
              private.free_name_in(s.owner_id, 'file', s.folder_id, p_name), p_size,
              coalesce(nullif(p_mime_type, ''), 'application/octet-stream'), null)
      returning * into f;
    key := pg_catalog.encode(extensions.gen_random_bytes(24), 'hex');
    insert into private.link_uploads (file_id, share_id, upload_key) values (f.id, s.id, key);
    return pg_catalog.jsonb_build_object('upload_key', key, 'object_path', f.object_path,
      'size', f.size);
  end
  $$;

-- Finishes an upload of the link once its object is stored with the size it announced.
create function public.link_finish_upload(p_token text, p_session text, p_upload_key text)
  returns jsonb
  language plpgsql security definer set search_path = ''
  as $$
  declare
    s public.shares := private.link_session(p_token, p_session);
    f public.files;
    stored bigint;
  begin
    if s.mode <> 'upload' then
      perform private.refuse('Not an upload link', 'link_not_upload', 'P0001');
    end if;
    select x.* into f from private.link_uploads u join public.files x on x.id = u.file_id
      where u.upload_key = p_upload_key and u.share_id = s.id for update of x;
    if not found then
      perform private.refuse('No such upload', 'link_item_not_found', 'P0001');
    end if;
    if f.status = 'uploading' then
      select (o.metadata ->> 'size')::bigint into stored from storage.objects o
        where o.bucket_id = 'files' and o.name = f.object_path;
      if stored is null then
        perform private.refuse('The upload of this file has not finished', 'upload_incomplete', '23514');
      end if;
      if stored <> f.size then
        perform private.refuse('The file is not the size it announced', 'link_too_large', 'P0001');
      end if;
      update public.files set status = 'ready' where id = f.id;
      update public.shares set upload_count = upload_count + 1 where id = s.id;
    end if;
    return pg_catalog.jsonb_build_object('size', f.size);
  end
  $$;

revoke execute on function public.open_link(text, text) from public, anon, authenticated;
revoke execute on function public.link_list(text, text, uuid) from public, anon, authenticated;
revoke execute on function public.link_file(text, text, uuid, text) from public, anon, authenticated;
revoke execute on function public.link_zip(text, text, uuid) from public, anon, authenticated;
revoke execute on function public.link_begin_upload(text, text, text, bigint, text, text)
  from public, anon, authenticated;
revoke execute on function public.link_finish_upload(text, text, text) from public, anon, authenticated;
grant execute on function public.open_link(text, text) to service_role;
grant execute on function public.link_list(text, text, uuid) to service_role;
grant execute on function public.link_file(text, text, uuid, text) to service_role;
grant execute on function public.link_zip(text, text, uuid) to service_role;
grant execute on function public.link_begin_upload(text, text, text, bigint, text, text) to service_role;
grant execute on function public.link_finish_upload(text, text, text) to service_role;

-- The old entry point answers for plain file links only (no password, not view-only).
create or replace function public.resolve_share(share_token text)
  returns table (
    state text, file_id uuid, name text, size bigint, mime_type text, object_path text,
    expires_at timestamptz
  )
  language plpgsql security definer set search_path = ''
  as $$
  declare
    s public.shares;
    f public.files;
  begin
    select * into s from public.shares where token = share_token;
    state := private.link_state(s);
    if state = 'ok' and (s.file_id is null or s.mode <> 'download' or s.has_password) then
      state := 'not_found';
    end if;
    if state = 'ok' then
      select * into f from public.files where id = s.file_id;
      update public.shares set download_count = download_count + 1 where id = s.id;
    end if;
    return query select state, f.id, f.name, f.size, f.mime_type, f.object_path, s.expires_at;
  end
  $$;
