-- Wrong passwords of a link count per visitor address (see 20261128000200_links_visitors.sql):
-- before, five wrong passwords in 15 minutes locked the link's password for everyone, so
-- anyone could lock its real recipients out. Now `open_link` takes the visitor's address
-- (`p_client`, given by the `share` function: the address the server resolved for the
-- request, through its trusted proxies only — never a header the visitor sets) and refuses an
-- address after `link_attempt_limit()` (5) wrong ones in the window; the link as a whole
-- refuses everyone only after `link_attempt_link_limit()` (100) wrong ones from all addresses
-- together, so that guessing from many addresses stays bounded. An unknown address (null)
-- counts as one address of its own.

alter table private.link_attempts add column client text not null default '';
create index link_attempts_client on private.link_attempts (share_id, client, at);

-- How many wrong passwords a link takes in `link_attempt_window()` from all addresses.
create function public.link_attempt_link_limit() returns integer
  language sql immutable as $$ select 100 $$;

drop function public.open_link(text, text);
create function public.open_link(p_token text, p_password text default null, p_client text default null)
  returns jsonb
  language plpgsql security definer set search_path = ''
  as $$
  declare
    s public.shares;
    st text;
    caller text := left(coalesce(p_client, ''), 100);
    mine integer;
    mine_oldest timestamptz;
    everyone integer;
    everyone_oldest timestamptz;
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
      select count(*) filter (where a.client = caller),
             min(a.at) filter (where a.client = caller),
             count(*), min(a.at)
        into mine, mine_oldest, everyone, everyone_oldest
        from private.link_attempts a where a.share_id = s.id;
      if mine >= public.link_attempt_limit() then
        return pg_catalog.jsonb_build_object('state', 'rate_limited', 'retry_after',
          greatest(1, ceil(extract(epoch from mine_oldest + public.link_attempt_window() - now())))::integer);
      end if;
      if everyone >= public.link_attempt_link_limit() then
        return pg_catalog.jsonb_build_object('state', 'rate_limited', 'retry_after',
          greatest(1, ceil(extract(epoch from everyone_oldest + public.link_attempt_window() - now())))::integer);
      end if;
      if not exists (
        select 1 from private.link_passwords p
        where p.share_id = s.id and p.hash = extensions.crypt(p_password, p.hash)
      ) then
        insert into private.link_attempts (share_id, client) values (s.id, caller);
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
revoke execute on function public.open_link(text, text, text) from public, anon, authenticated;
grant execute on function public.open_link(text, text, text) to service_role;
