-- Presence of a user's devices on the private channel `devices:<user id>`: only that user
-- may see who is there (SELECT) and track itself (INSERT).
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
