-- Sharing with people, part 8: who did it, by name, in the activity (see ../SHARING.md).
--
-- `item_activity` answered `activity` rows with the actor's id only, and a client cannot read
-- other people's profiles. Same signature, now with `actor_name` (the actor's display name)
-- and `item_name` (the item's name now), and for a move the names of both places as the
-- caller sees them (`from_name`, `to_name`: null for a place the caller cannot see, or for
-- the owner's root). Who may read what is unchanged: the rows are those row level security
-- lets the caller read, and a name is given only with an entry the caller may read.

-- The display name of who did an activity entry, for a caller who may read the entry (can
-- see its item, within the retention); null otherwise.
create function private.activity_actor_name(p_entry bigint) returns text
  language sql stable security definer set search_path = ''
  as $$
    select private.display_name(a.actor_id)
      from public.activity a, private.item(a.item_kind, a.item_id) i
      where a.id = p_entry and a.at > now() - public.activity_retention()
        and private.role_on(i.owner_id, i.path) is not null
  $$;
revoke all on function private.activity_actor_name(bigint) from public;
grant execute on function private.activity_actor_name(bigint) to authenticated;

drop function public.item_activity(text, uuid, integer);
create function public.item_activity(p_kind text, p_id uuid, p_limit integer default 100)
  returns table (id bigint, item_kind text, item_id uuid, owner_id uuid, actor_id uuid,
                 action text, details jsonb, at timestamptz, actor_name text, item_name text,
                 from_name text, to_name text)
  language sql stable
  as $$
    select a.id, a.item_kind, a.item_id, a.owner_id, a.actor_id, a.action, a.details, a.at,
           private.activity_actor_name(a.id),
           coalesce((select f.name from public.folders f
                      where a.item_kind = 'folder' and f.id = a.item_id),
                    (select f.name from public.files f
                      where a.item_kind = 'file' and f.id = a.item_id)),
           case when a.action = 'moved' then (select f.name from public.folders f
             where f.id = (a.details ->> 'from')::uuid) end,
           case when a.action = 'moved' then (select f.name from public.folders f
             where f.id = (a.details ->> 'to')::uuid) end
    from public.activity a
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
