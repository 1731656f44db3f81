-- The header's "On N devices" is presence on the realtime channel `devices:<user id>`. The
-- app joins it as a private channel, so the backend admits a client only when these policies
-- on realtime.messages allow it: the user, and no one else, may see who is there (SELECT)
-- and track a device (INSERT). Broadcast is not used on that channel and is not granted.
--
-- The live-updates channel (`drive-live:<user id>:…`) stays public: it carries only
-- postgres_changes, which the backend checks row by row against the subscriber's own token
-- (row level security on files and folders), so joining someone else's name yields nothing.
create policy "devices: owner sees presence" on realtime.messages
  for select to authenticated
  using (
    realtime.messages.extension = 'presence'
    and (select realtime.topic()) = 'devices:' || (select auth.uid())::text
  );
create policy "devices: owner tracks presence" on realtime.messages
  for insert to authenticated
  with check (
    realtime.messages.extension = 'presence'
    and (select realtime.topic()) = 'devices:' || (select auth.uid())::text
  );
