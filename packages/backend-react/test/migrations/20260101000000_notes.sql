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

-- A private bucket for the upload hook tests: each user writes under their own id.
insert into storage.buckets (id, name, public) values ('attachments', 'attachments', false)
on conflict (id) do nothing;
create policy "attachments: owner" on storage.objects
  for all to authenticated
  using (bucket_id = 'attachments' and (storage.foldername(name))[1] = auth.uid()::text)
  with check (bucket_id = 'attachments' and (storage.foldername(name))[1] = auth.uid()::text);
