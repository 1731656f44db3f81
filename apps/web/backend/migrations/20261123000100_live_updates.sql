-- Live updates: every change to a user's files and folders is announced, from the database,
-- on the private realtime topic `drive:<user id>` (Broadcast from the database), which only
-- that user may join.
--
-- Why not postgres_changes (what Drive used before): a DELETE carries only the primary key
-- of the row (the table's replica identity) and the backend cannot check row level security
-- on a row that is gone. So a subscription filtered on `owner_id=eq.<user>` never matches a
-- delete, and deletes never reached the user's other devices; without the filter every
-- user's deletes would reach everyone. This is how the hosted realtime behaves too; its
-- recommended way to give each user their own feed is this one: triggers that call
-- realtime.send() into a private topic, authorised by RLS on realtime.messages.
alter publication supabase_realtime drop table public.files, public.folders;

-- One message per statement and owner (a folder deleted with 10,000 files below it sends one
-- message per folder, not one per row):
--   event 'change', payload {table, op, count, ids (at most 100, else null), parents}
-- where `parents` are the folders whose content changed (old and new parent; null: the root).
create function public.drive_broadcast_changes() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  declare
    parent_column text := case tg_table_name when 'files' then 'folder_id' else 'parent_id' end;
    changed jsonb;
    r record;
  begin
    if tg_op = 'INSERT' then
      select pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
          'id', n.id, 'owner', n.owner_id, 'parent', pg_catalog.to_jsonb(n) -> parent_column))
        into changed from new_rows n;
    elsif tg_op = 'UPDATE' then
      select pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
          'id', n.id, 'owner', n.owner_id, 'parent', pg_catalog.to_jsonb(n) -> parent_column,
          'old_parent', pg_catalog.to_jsonb(o) -> parent_column))
        into changed from new_rows n join old_rows o on o.id = n.id;
    else
      select pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
          'id', o.id, 'owner', o.owner_id, 'parent', pg_catalog.to_jsonb(o) -> parent_column))
        into changed from old_rows o;
    end if;
    for r in
      select c.value ->> 'owner' as owner,
             pg_catalog.count(*) as n,
             pg_catalog.jsonb_agg(c.value -> 'id') as ids,
             (select pg_catalog.jsonb_agg(distinct p.value)
                from pg_catalog.jsonb_array_elements(
                  pg_catalog.jsonb_agg(c.value -> 'parent')
                  || pg_catalog.jsonb_agg(coalesce(c.value -> 'old_parent', c.value -> 'parent'))) p
             ) as parents
        from pg_catalog.jsonb_array_elements(coalesce(changed, '[]'::jsonb)) c
       group by c.value ->> 'owner'
    loop
      perform realtime.send(
        pg_catalog.jsonb_build_object(
          'table', tg_table_name, 'op', tg_op, 'count', r.n,
          'ids', case when r.n <= 100 then r.ids end, 'parents', r.parents),
        'change', 'drive:' || r.owner, true);
    end loop;
    return null;
  end
  $$;

create trigger files_broadcast_insert after insert on public.files
  referencing new table as new_rows
  for each statement execute function public.drive_broadcast_changes();
create trigger files_broadcast_update after update on public.files
  referencing old table as old_rows new table as new_rows
  for each statement execute function public.drive_broadcast_changes();
create trigger files_broadcast_delete after delete on public.files
  referencing old table as old_rows
  for each statement execute function public.drive_broadcast_changes();
create trigger folders_broadcast_insert after insert on public.folders
  referencing new table as new_rows
  for each statement execute function public.drive_broadcast_changes();
create trigger folders_broadcast_update after update on public.folders
  referencing old table as old_rows new table as new_rows
  for each statement execute function public.drive_broadcast_changes();
create trigger folders_broadcast_delete after delete on public.folders
  referencing old table as old_rows
  for each statement execute function public.drive_broadcast_changes();

-- Only the user may join `drive:<their id>` and hear its messages.
create policy "drive changes: owner receives" on realtime.messages
  for select to authenticated
  using (
    realtime.messages.extension = 'broadcast'
    and (select realtime.topic()) = 'drive:' || (select auth.uid())::text
  );
