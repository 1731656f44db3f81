-- Starred and Recent views.
--
-- A star is a column of the item (`starred_at`, null: not starred), so a star given on one
-- device reaches the others with the live updates of files and folders, and it goes with the
-- row when the row is deleted. Giving a star does not change a file's "Modified" date (see
-- files_keep_modified).
--
-- Recent: files by the latest of their last change and the last time their owner opened
-- them (preview or download), recorded in `file_opens` (owner-only, like every table).

alter table public.folders add column starred_at timestamptz;
alter table public.files add column starred_at timestamptz;
create index folders_starred on public.folders (owner_id, starred_at) where starred_at is not null;
create index files_starred on public.files (owner_id, starred_at) where starred_at is not null;
create index files_recent on public.files (owner_id, updated_at desc);

create table public.file_opens (
  file_id uuid primary key references public.files (id) on delete cascade,
  owner_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  opened_at timestamptz not null default now()
);
create index file_opens_owner on public.file_opens (owner_id, opened_at desc);
alter table public.file_opens enable row level security;
create policy "file_opens: owner reads" on public.file_opens
  for select to authenticated using (owner_id = auth.uid());
create policy "file_opens: owner records" on public.file_opens
  for insert to authenticated with check (
    owner_id = auth.uid()
    and exists (select 1 from public.files f where f.id = file_id and f.owner_id = auth.uid())
  );
create policy "file_opens: owner updates" on public.file_opens
  for update to authenticated using (owner_id = auth.uid()) with check (owner_id = auth.uid());
create policy "file_opens: owner deletes" on public.file_opens
  for delete to authenticated using (owner_id = auth.uid());
revoke all on public.file_opens from anon;

-- Records that the caller opened a file (their own: row level security).
create function public.record_open(p_file_id uuid)
  returns void
  language sql
  as $$
    insert into public.file_opens (file_id) values (p_file_id)
    on conflict (file_id) do update set opened_at = now()
  $$;
revoke execute on function public.record_open(uuid) from public, anon;
grant execute on function public.record_open(uuid) to authenticated;

-- The caller's recently changed or opened files (not in the Trash), newest first.
create function public.recent_files(p_limit integer default 50)
  returns setof public.files
  language sql stable
  as $$
    select f.* from public.files f
    left join public.file_opens o on o.file_id = f.id
    where f.owner_id = auth.uid() and f.trashed_at is null and f.status = 'ready'
    order by greatest(f.updated_at, o.opened_at) desc, f.id
    limit least(greatest(coalesce(p_limit, 50), 1), 200)
  $$;
revoke execute on function public.recent_files(integer) from public, anon;
grant execute on function public.recent_files(integer) to authenticated;
