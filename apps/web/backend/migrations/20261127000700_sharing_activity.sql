-- Sharing with people, part 5: activity (see ../SHARING.md).
--
-- What happened to an item and who did it: created (a folder), uploaded (a file became
-- ready), renamed, moved, trashed, restored, shared and unshared (a grant given, its role
-- changed, or removed). Written by triggers only — no client writes it — and readable by
-- exactly the people who can see the item now (row level security on folders and files
-- decides); an item deleted forever takes its activity out of everyone's sight. Kept 90 days:
-- older entries are never shown, and `purge_activity()` deletes them (the scheduled Trash
-- purge calls it, and pg_cron daily where the platform has it).

create table public.activity (
  id bigint generated always as identity primary key,
  item_kind text not null check (item_kind in ('file', 'folder')),
  item_id uuid not null,
  owner_id uuid not null,
  actor_id uuid references auth.users (id) on delete set null,
  action text not null check (action in (
    'created', 'uploaded', 'renamed', 'moved', 'trashed', 'restored', 'shared', 'unshared')),
  details jsonb not null default '{}',
  at timestamptz not null default now()
);
create index activity_item on public.activity (item_id, at desc);
create index activity_at on public.activity (at);
alter table public.activity enable row level security;
revoke all on public.activity from anon, authenticated;
grant select on public.activity to authenticated;

-- How long activity is kept.
create function public.activity_retention() returns interval
  language sql immutable
  as $$ select interval '90 days' $$;

create policy "activity: people who can see the item" on public.activity
  for select to authenticated
  using (
    at > now() - public.activity_retention()
    and case item_kind
      when 'folder' then exists (select 1 from public.folders f where f.id = activity.item_id)
      else exists (select 1 from public.files f where f.id = activity.item_id)
    end
  );
create policy "activity: two-step verification" on public.activity as restrictive
  for all to authenticated
  using ((select private.two_step_passed())) with check ((select private.two_step_passed()));

create function private.record_item_activity() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  declare
    kind text := case tg_table_name when 'files' then 'file' else 'folder' end;
    parent uuid;
    old_parent uuid;
    entries jsonb := '[]';
  begin
    if tg_table_name = 'files' then
      parent := new.folder_id;
    else
      parent := new.parent_id;
    end if;
    if tg_op = 'INSERT' then
      if kind = 'folder' then
        entries := pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object(
          'action', 'created', 'details', pg_catalog.jsonb_build_object('name', new.name, 'parent', parent)));
      end if;
    else
      if tg_table_name = 'files' then
        old_parent := old.folder_id;
      else
        old_parent := old.parent_id;
      end if;
      if tg_table_name = 'files' then
        if old.status = 'uploading' and new.status = 'ready' then
          entries := entries || pg_catalog.jsonb_build_object('action', 'uploaded', 'details',
            pg_catalog.jsonb_build_object('name', new.name, 'size', new.size, 'parent', parent));
        end if;
      end if;
      if old.trashed_at is null and new.trashed_at is not null then
        if new.trashed_via is null then
          entries := entries || pg_catalog.jsonb_build_object('action', 'trashed', 'details',
            pg_catalog.jsonb_build_object('name', new.name, 'parent', old_parent));
        end if;
      elsif old.trashed_at is not null and new.trashed_at is null then
        if old.trashed_via is null then
          entries := entries || pg_catalog.jsonb_build_object('action', 'restored', 'details',
            pg_catalog.jsonb_build_object('name', new.name, 'parent', parent));
        end if;
      elsif new.trashed_at is null and parent is distinct from old_parent then
        entries := entries || pg_catalog.jsonb_build_object('action', 'moved', 'details',
          pg_catalog.jsonb_build_object('from', old_parent, 'to', parent));
      end if;
      if new.name <> old.name and new.trashed_at is null and old.trashed_at is null then
        entries := entries || pg_catalog.jsonb_build_object('action', 'renamed', 'details',
          pg_catalog.jsonb_build_object('from', old.name, 'to', new.name));
      end if;
    end if;
    insert into public.activity (item_kind, item_id, owner_id, actor_id, action, details)
    select kind, new.id, new.owner_id, auth.uid(), e.value ->> 'action', e.value -> 'details'
      from pg_catalog.jsonb_array_elements(entries) e;
    return null;
  end
  $$;
revoke all on function private.record_item_activity() from public;
create trigger folders_activity
  after insert or update of name, parent_id, trashed_at on public.folders
  for each row execute function private.record_item_activity();
create trigger files_activity
  after update of name, folder_id, trashed_at, status on public.files
  for each row execute function private.record_item_activity();

create function private.record_grant_activity() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  declare
    g public.grants := case when tg_op = 'DELETE' then old else new end;
    details jsonb := pg_catalog.jsonb_build_object(
      'email', g.email, 'user', g.grantee_id, 'role', g.role, 'pending', g.grantee_id is null);
  begin
    if tg_op = 'UPDATE' then
      if old.role = new.role then
        return null; -- an invitation accepted: no news for the item
      end if;
      details := details || pg_catalog.jsonb_build_object('previous_role', old.role);
    end if;
    insert into public.activity (item_kind, item_id, owner_id, actor_id, action, details)
    values (case when g.folder_id is not null then 'folder' else 'file' end, g.item_id, g.owner_id,
            auth.uid(), case when tg_op = 'DELETE' then 'unshared' else 'shared' end, details);
    return null;
  end
  $$;
revoke all on function private.record_grant_activity() from public;
create trigger grants_activity
  after insert or update of role or delete on public.grants
  for each row execute function private.record_grant_activity();

-- The activity of an item and, for a folder, of everything below it, newest first (what the
-- caller may see: row level security).
create function public.item_activity(p_kind text, p_id uuid, p_limit integer default 100)
  returns setof public.activity
  language sql stable
  as $$
    select a.* from public.activity a
    where (p_kind = 'file' and a.item_id = p_id and a.item_kind = 'file')
       or (p_kind = 'folder' and (
             a.item_id in (select f.id from public.folders f
                           where f.id = p_id or f.ancestors @> array[p_id])
          or a.item_id in (select f.id from public.files f where f.ancestors @> array[p_id])))
    order by a.at desc, a.id desc
    limit least(greatest(coalesce(p_limit, 100), 1), 500)
  $$;
revoke execute on function public.item_activity(text, uuid, integer) from public, anon;
grant execute on function public.item_activity(text, uuid, integer) to authenticated;

-- Deletes activity older than 90 days (everyone's); returns how many entries went.
create function public.purge_activity() returns integer
  language plpgsql security definer set search_path = ''
  as $$
  declare
    removed integer;
  begin
    delete from public.activity where at <= now() - public.activity_retention();
    get diagnostics removed = row_count;
    return removed;
  end
  $$;
revoke execute on function public.purge_activity() from public, anon, authenticated;
grant execute on function public.purge_activity() to service_role;

-- The scheduled Trash purge (functions/trash, `{"action": "purge"}` with the service role)
-- lists the old Trash entries first: that call purges old activity too. Otherwise as before.
create or replace function public.trash_roots(p_older_than interval default '0 seconds')
  returns table (kind text, id uuid)
  language plpgsql volatile
  as $$
  begin
    if auth.uid() is null and auth.role() = 'service_role' and p_older_than > interval '0 seconds' then
      perform public.purge_activity();
    end if;
    return query
      select 'folder'::text, f.id from public.folders f
        where f.trashed_at is not null and f.trashed_via is null and f.trashed_at <= now() - p_older_than
          and (f.owner_id = auth.uid() or auth.uid() is null)
      union all
      select 'file'::text, f.id from public.files f
        where f.trashed_at is not null and f.trashed_via is null and f.trashed_at <= now() - p_older_than
          and (f.owner_id = auth.uid() or auth.uid() is null);
  end
  $$;

do $$
begin
  if exists (select 1 from pg_available_extensions where name = 'pg_cron') then
    create extension if not exists pg_cron;
    perform cron.schedule('drive-purge-activity', '17 3 * * *', 'select public.purge_activity()');
  end if;
exception when others then
  raise notice 'old activity is purged with the Trash purge only: %', sqlerrm;
end
$$;
