-- Search, part 2: one search over files and folders, by name and by content.
--
-- `search_items(q, filters…, limit, offset)` answers a page of what the caller can see (their
-- own items and what is shared with them, as the policies say), outside the Trash, best first:
-- a name match before a content match (a name that is the query, or starts with it, first),
-- then full-text rank (`ts_rank`), then name. Words match as prefixes ("quar" finds
-- "quarterly"), all of them. Names are split at punctuation ("q3-report.pdf" is "q3 report
-- pdf"); content is read as Postgres' parser reads text. The `simple` configuration: no
-- stemming, any language.
--
-- Why two functions: with row level security, Postgres does not use an index for a condition
-- that is not leakproof (`@@` is not), so an invoker function over `files` would read every
-- row. `private.search_page` (definer) finds the page through the GIN indexes and checks
-- access exactly as the read policies do (owner, or the item or a folder above it shared with
-- the caller, and two-step verification passed); `search_items` (invoker) then reads those
-- rows through row level security, so it can return nothing the caller could not select.

-- The words of a name, split at punctuation.
create function private.name_tsv(p_name text) returns tsvector
  language sql immutable
  as $$
    select pg_catalog.to_tsvector('simple'::regconfig,
                                  pg_catalog.regexp_replace(p_name, '[[:punct:]]+', ' ', 'g'))
  $$;
create index files_name_tsv on public.files using gin (private.name_tsv(name));
create index folders_name_tsv on public.folders using gin (private.name_tsv(name));

-- The query's words (at most 8), lower case, without punctuation.
create function private.search_words(p_q text) returns text[]
  language sql immutable
  as $$
    select coalesce(pg_catalog.array_agg(w.lexeme order by w.lexeme), '{}')
      from (select t.lexeme from pg_catalog.unnest(private.name_tsv(left(coalesce(p_q, ''), 1000))) t
             where length(t.lexeme) <= 100 limit 8) w
  $$;

-- All the words, each as a prefix.
create function private.search_query(p_words text[]) returns tsquery
  language sql immutable
  as $$
    select case when cardinality(p_words) = 0 then null else
      pg_catalog.to_tsquery('simple'::regconfig, (
        select pg_catalog.string_agg(
                 '''' || replace(replace(w, '\', '\\'), '''', '''''') || ''':*', ' & ')
          from pg_catalog.unnest(p_words) w))
    end
  $$;

-- A few words of the text around the first match, the matches between \u0002 and \u0003
-- (characters no text has, so the client marks them without reading HTML).
create function private.search_snippet(p_body text, p_words text[], p_query tsquery) returns text
  language sql immutable
  as $$
    select pg_catalog.ts_headline('simple'::regconfig,
             substr(p_body, greatest(1, coalesce(
               (select min(p) from pg_catalog.unnest(p_words) w,
                  lateral (select strpos(lower(p_body), w) as p) x where x.p > 0), 1) - 150), 450),
             p_query,
             'StartSel=' || chr(2) || ', StopSel=' || chr(3) || ', MaxWords=24, MinWords=12, ShortWord=2')
  $$;

create function private.search_page(
  p_q text, p_type text, p_owner text, p_modified_after timestamptz,
  p_modified_before timestamptz, p_min_size bigint, p_max_size bigint,
  p_limit integer, p_offset integer
)
  returns table (kind text, id uuid, score real)
  language plpgsql stable security definer set search_path = ''
  as $$
  declare
    uid uuid := auth.uid();
    shared uuid[] := private.shared_ids();
    words text[] := private.search_words(p_q);
    tsq tsquery := private.search_query(words);
    phrase text := lower(btrim(coalesce(p_q, '')));
  begin
    if uid is null or tsq is null or not private.two_step_passed() then
      return;
    end if;
    return query
      with hits as (
        select 'file'::text as kind, f.id, true as by_name, 0::real as rank from public.files f
         where private.name_tsv(f.name) @@ tsq and coalesce(p_type, '') <> 'folder'
        union all
        select 'file', t.file_id, false, pg_catalog.ts_rank(t.tsv, tsq) from public.file_texts t
         where t.tsv @@ tsq and coalesce(p_type, '') <> 'folder'
        union all
        select 'folder', d.id, true, 0 from public.folders d
         where private.name_tsv(d.name) @@ tsq
           and coalesce(p_type, 'folder') = 'folder'
           and p_min_size is null and p_max_size is null
      ),
      found as (
        select h.kind, h.id, bool_or(h.by_name) as by_name, max(h.rank) as content_rank
          from hits h group by 1, 2
      ),
      items as (
        select fo.kind, f.id, f.name, f.owner_id, f.ancestors, f.updated_at as modified, fo.by_name,
               fo.content_rank
          from found fo join public.files f on fo.kind = 'file' and f.id = fo.id
         where f.status = 'ready' and f.trashed_at is null and f.deleting_since is null
           and (p_type is null or f.search_type = p_type)
           and (p_min_size is null or f.size >= p_min_size)
           and (p_max_size is null or f.size <= p_max_size)
        union all
        select fo.kind, d.id, d.name, d.owner_id, d.ancestors, d.created_at, true, 0::real
          from found fo join public.folders d on fo.kind = 'folder' and d.id = fo.id
         where d.trashed_at is null and d.deleting_since is null
      )
      select i.kind, i.id,
             ((case when i.by_name then 1 + (case when lower(i.name) = phrase then 1
                                                  when lower(i.name) like phrase || '%' then 0.5
                                                  else 0 end)
                    else 0 end) + i.content_rank)::real as score
        from items i
       where (i.owner_id = uid or (i.ancestors || i.id) && shared)
         and (p_owner is null or (p_owner = 'mine') = (i.owner_id = uid))
         and (p_modified_after is null or i.modified >= p_modified_after)
         and (p_modified_before is null or i.modified < p_modified_before)
       order by 3 desc, lower(i.name), i.id
       limit p_limit offset p_offset;
  end
  $$;
revoke all on function private.search_page(text, text, text, timestamptz, timestamptz, bigint, bigint, integer, integer) from public;
grant execute on function private.search_page(text, text, text, timestamptz, timestamptz, bigint, bigint, integer, integer) to authenticated;

-- One page of results. p_type: 'folder', 'document', 'pdf', 'spreadsheet', 'presentation',
-- 'text', 'image', 'video', 'audio', 'other' (null: any); p_owner: 'mine', 'shared' (null:
-- both); modified in [p_modified_after, p_modified_before); size in [p_min_size, p_max_size]
-- (a size filter leaves folders out). Pages of p_limit (1–100) from p_offset. `snippet`: the
-- text around a content match, matches between \u0002 and \u0003; null for a name match only.
create function public.search_items(
  q text,
  p_type text default null,
  p_owner text default null,
  p_modified_after timestamptz default null,
  p_modified_before timestamptz default null,
  p_min_size bigint default null,
  p_max_size bigint default null,
  p_limit integer default 50,
  p_offset integer default 0
)
  returns table (kind text, id uuid, name text, mime_type text, size bigint,
                 updated_at timestamptz, owner_id uuid, parent_id uuid, snippet text, score real)
  language plpgsql stable
  as $$
  declare
    words text[] := private.search_words(q);
  begin
    if p_type is not null and p_type not in ('folder', 'document', 'pdf', 'spreadsheet',
        'presentation', 'text', 'image', 'video', 'audio', 'other') then
      raise exception 'Unknown type filter' using errcode = '22023', hint = 'invalid_filter';
    elsif p_owner is not null and p_owner not in ('mine', 'shared') then
      raise exception 'Unknown owner filter' using errcode = '22023', hint = 'invalid_filter';
    elsif coalesce(p_limit, 50) not between 1 and 100 or coalesce(p_offset, 0) < 0 then
      raise exception 'The page must be 1 to 100 results from an offset of 0 or more'
        using errcode = '22023', hint = 'invalid_page';
    end if;
    return query
      select p.kind, p.id, coalesce(f.name, d.name), f.mime_type, f.size,
             coalesce(f.updated_at, d.created_at), coalesce(f.owner_id, d.owner_id),
             case when p.kind = 'file' then f.folder_id else d.parent_id end,
             (select private.search_snippet(t.body, words, private.search_query(words))
                from public.file_texts t
               where t.file_id = f.id and t.tsv @@ private.search_query(words)),
             p.score
        from private.search_page(q, p_type, p_owner, p_modified_after, p_modified_before,
                                 p_min_size, p_max_size, coalesce(p_limit, 50),
                                 coalesce(p_offset, 0)) with ordinality p
        left join public.files f on p.kind = 'file' and f.id = p.id
        left join public.folders d on p.kind = 'folder' and d.id = p.id
       where f.id is not null or d.id is not null
       order by p.ordinality;
  end
  $$;
revoke execute on function public.search_items(text, text, text, timestamptz, timestamptz, bigint, bigint, integer, integer) from public, anon;
grant execute on function public.search_items(text, text, text, timestamptz, timestamptz, bigint, bigint, integer, integer) to authenticated;
grant execute on function private.search_words(text) to authenticated;
grant execute on function private.search_query(text[]) to authenticated;
grant execute on function private.search_snippet(text, text[], tsquery) to authenticated;
