-- Each user's note changes, broadcast from the database to the private topic
-- `notes:<user id>`, which only that user may read (Broadcast from the database).
create function public.notes_feed() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  begin
    perform realtime.broadcast_changes(
      'notes:' || coalesce(new.owner_id, old.owner_id)::text, tg_op, tg_op, tg_table_name,
      tg_table_schema, new, old);
    return null;
  end
  $$;
create trigger notes_feed after insert or update or delete on public.notes
  for each row execute function public.notes_feed();
create policy "notes feed: owner receives" on realtime.messages
  for select to authenticated
  using (
    realtime.messages.extension = 'broadcast'
    and (select realtime.topic()) = 'notes:' || (select auth.uid())::text
  );
