-- Sharing with people, part 4: live updates and presence (see ../SHARING.md).
--
-- Topics stay per person: every change is still announced on the private topic
-- `drive:<user id>` (20261123000100_live_updates.sql), which only that person may join — now
-- to the owner (the same message as before) and to each person with access to a changed item
-- before or after the change (an item moved out of a shared folder is announced to the people
-- who just lost it). What a person with access hears is cut to what they may know: the ids of
-- the items they can see (or could, before the change), and of the changed items' folders only
-- those they can see. So no one joins another topic to follow a shared folder, and leaving a
-- share needs no unsubscribe.
--
-- Access itself: event 'access' on `drive:<user id>` to the person and to the owner when a
-- grant is given, changed or removed: {op: 'granted' | 'role' | 'revoked', kind, id, role}.
-- The person whose access was removed learns it at once (their views of the item go).
--
-- Presence on a shared item: the private topic `shared:<folder or file id>`, which the owner
-- and the people with access may join (see who else is there, and be seen).

create function private.uuids(p_json jsonb) returns uuid[]
  language sql immutable
  as $$
    select coalesce(pg_catalog.array_agg(e::uuid), '{}')
      from pg_catalog.jsonb_array_elements_text(coalesce(p_json, '[]'::jsonb)) as e
  $$;
revoke all on function private.uuids(jsonb) from public;

create or replace function public.drive_broadcast_changes() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  declare
    parent_column text := case tg_table_name when 'files' then 'folder_id' else 'parent_id' end;
    changed jsonb;
    r record;
    everything uuid[];
    heard integer;
    ids jsonb;
    new_parents jsonb;
    old_parents jsonb;
  begin
    if tg_op = 'INSERT' then
      select pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
          'id', n.id, 'owner', n.owner_id, 'parent', pg_catalog.to_jsonb(n) -> parent_column,
          'anc', pg_catalog.to_jsonb(n.ancestors)))
        into changed from new_rows n;
    elsif tg_op = 'UPDATE' then
      select pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
          'id', n.id, 'owner', n.owner_id, 'parent', pg_catalog.to_jsonb(n) -> parent_column,
          'old_parent', pg_catalog.to_jsonb(o) -> parent_column,
          'anc', pg_catalog.to_jsonb(n.ancestors), 'old_anc', pg_catalog.to_jsonb(o.ancestors)))
        into changed from new_rows n join old_rows o on o.id = n.id;
    else
      select pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
          'id', o.id, 'owner', o.owner_id, 'parent', pg_catalog.to_jsonb(o) -> parent_column,
          'anc', pg_catalog.to_jsonb(o.ancestors)))
        into changed from old_rows o;
    end if;
    changed := coalesce(changed, '[]'::jsonb);
    -- The owners: as before.
    for r in
      select c.value ->> 'owner' as owner,
             pg_catalog.count(*) as n,
             pg_catalog.jsonb_agg(c.value -> 'id') as ids,
             (select pg_catalog.jsonb_agg(distinct p.value)
                from pg_catalog.jsonb_array_elements(
                  pg_catalog.jsonb_agg(c.value -> 'parent')
                  || pg_catalog.jsonb_agg(coalesce(c.value -> 'old_parent', c.value -> 'parent'))) p
             ) as parents
        from pg_catalog.jsonb_array_elements(changed) c
       group by c.value ->> 'owner'
    loop
      perform realtime.send(
        pg_catalog.jsonb_build_object(
          'table', tg_table_name, 'op', tg_op, 'count', r.n,
          'ids', case when r.n <= 100 then r.ids end, 'parents', r.parents),
        'change', 'drive:' || r.owner, true);
    end loop;
    -- The people with access to a changed item, before or after the change.
    select coalesce(pg_catalog.array_agg(distinct u), '{}') into everything
      from (
        select (c.value ->> 'id')::uuid as u from pg_catalog.jsonb_array_elements(changed) c
        union all
        select pg_catalog.unnest(private.uuids(c.value -> 'anc') || private.uuids(c.value -> 'old_anc'))
          from pg_catalog.jsonb_array_elements(changed) c
      ) s;
    for r in
      select g.grantee_id as grantee, pg_catalog.array_agg(g.item_id) as granted
        from public.grants g
       where g.grantee_id is not null and g.item_id = any(everything)
       group by g.grantee_id
    loop
      select pg_catalog.count(*)::integer,
             pg_catalog.jsonb_agg(c.value -> 'id'),
             pg_catalog.jsonb_agg(c.value -> 'parent')
               filter (where private.uuids(c.value -> 'anc') && r.granted),
             pg_catalog.jsonb_agg(c.value -> 'old_parent')
               filter (where c.value ? 'old_anc' and private.uuids(c.value -> 'old_anc') && r.granted)
        into heard, ids, new_parents, old_parents
        from pg_catalog.jsonb_array_elements(changed) c
       where c.value ->> 'owner' <> r.grantee::text
         and ((private.uuids(c.value -> 'anc') || (c.value ->> 'id')::uuid) && r.granted
           or (c.value ? 'old_anc'
               and (private.uuids(c.value -> 'old_anc') || (c.value ->> 'id')::uuid) && r.granted));
      if heard > 0 then
        perform realtime.send(
          pg_catalog.jsonb_build_object(
            'table', tg_table_name, 'op', tg_op, 'count', heard,
            'ids', case when heard <= 100 then ids end,
            'parents', coalesce((select pg_catalog.jsonb_agg(distinct p.value)
                                   from pg_catalog.jsonb_array_elements(
                                     coalesce(new_parents, '[]') || coalesce(old_parents, '[]')) p),
                                '[]'::jsonb)),
          'change', 'drive:' || r.grantee, true);
      end if;
    end loop;
    return null;
  end
  $$;

-- Access given, changed or removed: to the person and to the owner.
create function private.announce_access() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  declare
    g public.grants := case when tg_op = 'DELETE' then old else new end;
    op text;
    message jsonb;
  begin
    if tg_op = 'DELETE' then
      op := 'revoked';
    elsif tg_op = 'INSERT' or old.grantee_id is null then
      op := 'granted';
    elsif old.role <> new.role then
      op := 'role';
    else
      return null;
    end if;
    message := pg_catalog.jsonb_build_object(
      'op', op, 'grant_id', g.id,
      'kind', case when g.folder_id is not null then 'folder' else 'file' end,
      'id', g.item_id, 'role', g.role);
    if g.grantee_id is not null then
      perform realtime.send(message, 'access', 'drive:' || g.grantee_id, true);
    end if;
    perform realtime.send(message, 'access', 'drive:' || g.owner_id, true);
    return null;
  end
  $$;
revoke all on function private.announce_access() from public;
create trigger grants_announce
  after insert or update or delete on public.grants
  for each row execute function private.announce_access();

-- May the caller join the presence of `shared:<item id>`? The owner and people with access.
create function private.may_join_shared(p_topic text) returns boolean
  language plpgsql stable security definer set search_path = ''
  as $$
  declare
    item uuid;
  begin
    if p_topic is null
      or p_topic !~ '^shared:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' then
      return false;
    end if;
    item := substr(p_topic, 8)::uuid;
    return exists (
      select 1 from public.folders f
      where f.id = item and private.role_on(f.owner_id, f.ancestors || f.id) is not null
      union all
      select 1 from public.files f
      where f.id = item and private.role_on(f.owner_id, f.ancestors || f.id) is not null
    );
  end
  $$;
revoke all on function private.may_join_shared(text) from public;
grant execute on function private.may_join_shared(text) to authenticated;

create policy "shared items: people with access see presence" on realtime.messages
  for select to authenticated
  using (
    realtime.messages.extension = 'presence'
    and (select private.may_join_shared((select realtime.topic())))
  );
create policy "shared items: people with access track presence" on realtime.messages
  for insert to authenticated
  with check (
    realtime.messages.extension = 'presence'
    and (select private.may_join_shared((select realtime.topic())))
  );
