-- A small owned table for the hook tests: each user sees and writes only their notes.
create table public.notes (
  id bigint generated always as identity primary key,
  owner_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  body text not null,
  created_at timestamptz not null default now()
);
alter table public.notes enable row level security;
create policy "notes: owner" on public.notes
  for all to authenticated using (owner_id = auth.uid()) with check (owner_id = auth.uid());
alter publication supabase_realtime add table public.notes;
