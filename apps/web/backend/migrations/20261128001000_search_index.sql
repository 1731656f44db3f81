-- Search, part 1: the text of files, indexed after upload (see ../../README.md, "Search").
--
-- `file_texts` holds one row per file whose content can be searched (plain text, Markdown,
-- code, CSV, PDF, docx/xlsx/pptx): the text `functions/search-index` extracted from the stored
-- object, and its `tsvector`. It is also the queue of that work: a file that becomes ready (an
-- upload finished, a new version switched in) gets its row marked `pending`, in the same
-- transaction and without waiting for anything; the function claims due rows (a lease with a
-- back-off, as `claim_mail` does) and stores the text, or the reason it could not. An upload
-- never waits for the extraction, and a failed one is tried again later, at most 5 times.
--
-- Readers: whoever can read the file (the policy asks `files` itself, whose row level
-- security is the owner's and sharing's). Writers: the service role, through the functions
-- below.

create table public.file_texts (
  file_id uuid primary key references public.files (id) on delete cascade,
  -- The object (version) this row is about: the text is of it once `state` is 'done'.
  object_path text not null,
  state text not null default 'pending' check (state in ('pending', 'done', 'failed')),
  body text,
  tsv tsvector,
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_error text,
  indexed_at timestamptz
);
create index file_texts_tsv on public.file_texts using gin (tsv);
create index file_texts_due on public.file_texts (next_attempt_at) where state <> 'done';
alter table public.file_texts enable row level security;
revoke all on public.file_texts from anon, authenticated;
grant select on public.file_texts to authenticated;
create policy "file_texts: readers of the file" on public.file_texts
  for select to authenticated
  using (exists (select 1 from public.files f where f.id = file_texts.file_id));

-- What kind of file this is, from its type and, when the type says nothing, its extension:
-- 'pdf', 'document', 'spreadsheet', 'presentation', 'text', 'image', 'video', 'audio' or
-- 'other'. Search's type filter and the extraction both read it.
create function private.file_type(p_name text, p_mime text) returns text
  language sql immutable
  as $$
    select case
      when m = 'application/pdf' or e = 'pdf' then 'pdf'
      when m like 'image/%' then 'image'
      when m like 'video/%' then 'video'
      when m like 'audio/%' then 'audio'
      when m in ('text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
                 'application/vnd.ms-excel', 'application/vnd.oasis.opendocument.spreadsheet')
        or e in ('csv', 'tsv', 'xlsx', 'xls', 'ods') then 'spreadsheet'
      when m in ('application/vnd.openxmlformats-officedocument.presentationml.presentation',
                 'application/vnd.ms-powerpoint')
        or e in ('pptx', 'ppt', 'odp', 'key') then 'presentation'
      when m in ('application/vnd.openxmlformats-officedocument.wordprocessingml.document',
                 'application/msword', 'application/rtf')
        or e in ('docx', 'doc', 'odt', 'rtf', 'pages') then 'document'
      when m like 'text/%' or m in ('application/json', 'application/xml', 'application/javascript',
                                    'application/x-sh', 'application/sql', 'application/yaml')
        or e in ('txt', 'md', 'markdown', 'json', 'xml', 'yaml', 'yml', 'toml', 'ini', 'log',
                 'html', 'htm', 'css', 'js', 'mjs', 'cjs', 'jsx', 'ts', 'tsx', 'py', 'rb', 'go',
                 'rs', 'java', 'kt', 'c', 'h', 'cc', 'cpp', 'hpp', 'cs', 'php', 'sh', 'sql',
                 'swift', 'scala', 'lua', 'r', 'pl', 'tex') then 'text'
      when e in ('png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'svg', 'heic', 'bmp', 'tif', 'tiff')
        then 'image'
      when e in ('mp4', 'mov', 'webm', 'mkv', 'avi') then 'video'
      when e in ('mp3', 'wav', 'ogg', 'flac', 'm4a', 'aac') then 'audio'
      else 'other'
    end
    from (select lower(coalesce(p_mime, '')) as m,
                 case when p_name like '%.%'
                   then lower(pg_catalog.regexp_replace(p_name, '^.*\.', '')) else '' end as e) x
  $$;

-- Each file's kind, kept with the row: search filters on it without working it out again for
-- every candidate (a common word has thousands).
grant execute on function private.file_type(text, text) to public;
alter table public.files
  add column search_type text generated always as (private.file_type(name, mime_type)) stored;

-- Whether the content of such a file is extracted: text, CSV, PDF and Office Open XML (the
-- zipped XML of docx/xlsx/pptx; the older binary formats are not read), up to 64 MiB.
create function private.text_extractable(p_name text, p_mime text, p_size bigint) returns boolean
  language sql immutable
  as $$
    select coalesce(p_size, 0) <= 67108864 and (
      private.file_type(p_name, p_mime) in ('text', 'pdf')
      or lower(p_name) ~ '\.(csv|tsv|docx|xlsx|pptx)$'
      or lower(coalesce(p_mime, '')) in (
        'text/csv',
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        'application/vnd.openxmlformats-officedocument.presentationml.presentation'))
  $$;

-- A file that becomes ready, or whose current object changes (a new version), is queued.
-- (Not `update of object_path`: a version switch changes it in a before trigger.)
create function private.queue_file_text() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  begin
    if new.status = 'ready' and (tg_op = 'INSERT' or old.status is distinct from 'ready'
                                 or old.object_path is distinct from new.object_path)
       and private.text_extractable(new.name, new.mime_type, new.size) then
      insert into public.file_texts (file_id, object_path)
        values (new.id, new.object_path)
      on conflict (file_id) do update
        set object_path = excluded.object_path, state = 'pending', attempts = 0,
            next_attempt_at = now(), last_error = null;
    end if;
    return null;
  end
  $$;
create trigger files_queue_text
  after insert or update on public.files
  for each row execute function private.queue_file_text();

-- What is there already.
insert into public.file_texts (file_id, object_path)
  select f.id, f.object_path from public.files f
   where f.status = 'ready' and private.text_extractable(f.name, f.mime_type, f.size);

-- Claims up to p_limit due rows, oldest first: of files one person uploaded or owns (p_user,
-- the signed-in caller of the function) or of everyone (null: the scheduled sweep). A claim
-- is a lease: the row is not due again before its back-off (1 minute, doubling), so a call
-- that died half-way is taken up by a later one. Service role only.
create function public.claim_file_texts(p_user uuid, p_limit integer default 10)
  returns table (file_id uuid, object_path text, name text, mime_type text, size bigint,
                 attempts integer)
  language sql volatile security definer set search_path = ''
  as $$
    with due as (
      select t.file_id from public.file_texts t
        join public.files f on f.id = t.file_id
       where t.state <> 'done' and t.next_attempt_at <= now() and t.attempts < 5
         and f.status = 'ready' and f.deleting_since is null
         and (p_user is null or f.owner_id = p_user or f.created_by = p_user)
       order by t.next_attempt_at
       limit least(greatest(coalesce(p_limit, 10), 1), 100)
       for update of t skip locked
    )
    update public.file_texts t
       set attempts = t.attempts + 1,
           next_attempt_at = now() + interval '1 minute' * power(2, t.attempts)
      from due, public.files f
     where t.file_id = due.file_id and f.id = t.file_id
    returning t.file_id, t.object_path, f.name, f.mime_type, f.size, t.attempts
  $$;
revoke execute on function public.claim_file_texts(uuid, integer) from public, anon, authenticated;
grant execute on function public.claim_file_texts(uuid, integer) to service_role;

-- Stores the text of a claimed object (p_error null) or why it could not be read. Text past
-- 300,000 characters is left out (a tsvector holds at most 1 MB). Nothing changes when the
-- file has moved on to another object since the claim (its new row is pending). Service role.
create function public.save_file_text(p_file uuid, p_object_path text, p_body text,
                                      p_error text default null)
  returns boolean
  language plpgsql volatile security definer set search_path = ''
  as $$
  declare
    v_body text := left(coalesce(p_body, ''), 300000);
  begin
    if p_error is null then
      update public.file_texts t
         set state = 'done', body = v_body,
             tsv = pg_catalog.to_tsvector('simple'::regconfig, v_body),
             last_error = null, indexed_at = now()
       where t.file_id = p_file and t.object_path = p_object_path;
    else
      update public.file_texts t
         set state = 'failed', last_error = left(p_error, 500)
       where t.file_id = p_file and t.object_path = p_object_path;
    end if;
    return found;
  end
  $$;
revoke execute on function public.save_file_text(uuid, text, text, text) from public, anon, authenticated;
grant execute on function public.save_file_text(uuid, text, text, text) to service_role;
