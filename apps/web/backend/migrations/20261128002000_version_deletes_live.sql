-- Deleting a version is announced like a new one (see 20261127001600_versions_calls.sql):
-- a new version changes the file row, whose trigger tells the owner and everyone with access
-- on their topic `drive:<user id>`, and records `version_uploaded`. A delete changes only
-- `file_versions`, so `begin_delete_version` now says so itself: the same `change` message
-- (table `files`, the file's id and folder) to the same people, and `version_deleted` in the
-- file's activity.

alter table public.activity drop constraint activity_action_check;
alter table public.activity add constraint activity_action_check check (action in (
  'created', 'uploaded', 'renamed', 'moved', 'trashed', 'restored', 'shared', 'unshared',
  'version_uploaded', 'version_restored', 'version_deleted'));

-- Tells the owner of `p_file` and the people with access to it that it changed.
create function private.announce_file(p_file public.files) returns void
  language plpgsql security definer set search_path = ''
  as $$
  declare
    message jsonb := pg_catalog.jsonb_build_object(
      'table', 'files', 'op', 'UPDATE', 'count', 1,
      'ids', pg_catalog.jsonb_build_array(p_file.id),
      'parents', pg_catalog.jsonb_build_array(p_file.folder_id));
  begin
    perform realtime.send(message, 'change', 'drive:' || p_file.owner_id, true);
    perform realtime.send(message, 'change', 'drive:' || g.grantee_id, true)
      from (select distinct x.grantee_id from public.grants x
             where x.grantee_id is not null and x.grantee_id <> p_file.owner_id
               and x.item_id = any(p_file.ancestors || p_file.id)) g;
  end
  $$;
revoke all on function private.announce_file(public.files) from public;

create or replace function public.begin_delete_version(p_version uuid)
  returns table (object_path text)
  language plpgsql security definer set search_path = ''
  as $$
  declare
    vf record;
    f public.files;
  begin
    select * into vf from private.version_file(p_version);
    if vf.role is null or (vf.version).status <> 'ready' then
      perform private.refuse('No such version', 'version_not_found', 'P0002');
    elsif vf.role not in ('owner', 'editor') then
      perform private.refuse('Only the owner and Editors delete versions', 'not_editor');
    end if;
    select * into f from public.files where id = (vf.file).id for update;
    if f.current_version_id = p_version then
      perform private.refuse('The current version cannot be deleted', 'version_current', '23514');
    end if;
    if (vf.version).deleting_since is null then
      update public.file_versions set deleting_since = now() where id = p_version;
      insert into public.activity (item_kind, item_id, owner_id, actor_id, action, details)
        values ('file', f.id, f.owner_id, auth.uid(), 'version_deleted',
                pg_catalog.jsonb_build_object('name', f.name, 'from', (vf.version).created_at));
      perform private.announce_file(f);
    end if;
    return query select (vf.version).object_path where not private.object_held((vf.version).object_path);
  end
  $$;
