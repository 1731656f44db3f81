-- Search: the page is found without reading every candidate's file row.
--
-- `private.search_page` (20261128001100_search_items.sql) looked up the `files` row of every
-- match, name or content, to apply the filters and read the name, then sorted them all: a
-- common word matches most texts (about 10,000 lookups over 100,000 files), and that was most
-- of the time of such a search. Now:
--   - Name matches and content matches are joined by file id (one hash join, no union, sort
--     and group); a match's score is as before: 1 for a name match (2 when the name is the
--     query, 1.5 when it starts with it), plus the content's `ts_rank`, so a file that matches
--     by both keeps both.
--   - The best candidates by score alone (twice the rows up to the end of the page, with all
--     those tied with the last) are checked first, against the same filters and access rules
--     as before. When enough of them pass, the page is among them: every other candidate
--     scores less than all of them. Only when too few pass (a filter or access leaves most
--     out) are all the candidates checked, as before.
-- The order is the same: score, then name (case-insensitive), then id. Access is checked as
-- the read policies do, and `search_items` still reads the rows through row level security.

-- Whether a file is a search result for its reader: ready, not in the Trash, within the
-- filters, and the reader's own or shared with them (as the read policies say). One
-- expression, inlined by the planner where it is called (no SET clause, names qualified).
create or replace function private.search_file_passes(
  f public.files, uid uuid, shared uuid[], p_type text, p_owner text,
  p_modified_after timestamptz, p_modified_before timestamptz, p_min_size bigint,
  p_max_size bigint
)
  returns boolean language sql stable
  as $$
    select f.status = 'ready' and f.trashed_at is null and f.deleting_since is null
       and (p_type is null or f.search_type = p_type)
       and (p_min_size is null or f.size >= p_min_size)
       and (p_max_size is null or f.size <= p_max_size)
       and (f.owner_id = uid or (f.ancestors operator(pg_catalog.||) f.id) operator(pg_catalog.&&) shared)
       and (p_owner is null or (p_owner = 'mine') = (f.owner_id = uid))
       and (p_modified_after is null or f.updated_at >= p_modified_after)
       and (p_modified_before is null or f.updated_at < p_modified_before)
  $$;
revoke all on function private.search_file_passes(
  public.files, uuid, uuid[], text, text, timestamptz, timestamptz, bigint, bigint
) from public;

create or replace function private.search_page(
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
    wanted bigint := coalesce(p_offset, 0)::bigint + p_limit;
  begin
    if uid is null or tsq is null or not private.two_step_passed() then
      return;
    end if;
    return query
      with by_name as (
        select f.id, (case when lower(f.name) = phrase then 2
                           when lower(f.name) like phrase || '%' then 1.5
                           else 1 end)::real as score
          from public.files f
         where private.name_tsv(f.name) @@ tsq and coalesce(p_type, '') <> 'folder'
      ),
      by_content as (
        select t.file_id as id, pg_catalog.ts_rank(t.tsv, tsq) as score from public.file_texts t
         where t.tsv @@ tsq and coalesce(p_type, '') <> 'folder'
      ),
      found as materialized (
        select coalesce(n.id, c.id) as id,
               coalesce(n.score, 0::real) + coalesce(c.score, 0::real) as score
          from by_name n full join by_content c on c.id = n.id
      ),
      -- The best by score, ties with the last included; then those of them that pass.
      best as (
        select fo.id, fo.score from found fo
         order by fo.score desc fetch first (coalesce(wanted * 2, 0)) rows with ties
      ),
      best_items as materialized (
        select f.id, f.name, b.score from best b join public.files f on f.id = b.id
         where private.search_file_passes(f, uid, shared, p_type, p_owner, p_modified_after,
                                          p_modified_before, p_min_size, p_max_size)
      ),
      enough as (
        select coalesce(count(*) >= wanted, false) as yes from best_items
      ),
      -- Those, when enough pass; otherwise every candidate that passes.
      items as (
        select 'file'::text as kind, i.id, i.name, i.score from best_items i
         where (select yes from enough)
        union all
        select 'file', f.id, f.name, fo.score from found fo join public.files f on f.id = fo.id
         where not (select yes from enough)
           and private.search_file_passes(f, uid, shared, p_type, p_owner, p_modified_after,
                                          p_modified_before, p_min_size, p_max_size)
        union all
        select 'folder', d.id, d.name,
               (case when lower(d.name) = phrase then 2
                     when lower(d.name) like phrase || '%' then 1.5
                     else 1 end)::real
          from public.folders d
         where private.name_tsv(d.name) @@ tsq
           and coalesce(p_type, 'folder') = 'folder'
           and p_min_size is null and p_max_size is null
           and d.trashed_at is null and d.deleting_since is null
           and (d.owner_id = uid or (d.ancestors || d.id) && shared)
           and (p_owner is null or (p_owner = 'mine') = (d.owner_id = uid))
           and (p_modified_after is null or d.created_at >= p_modified_after)
           and (p_modified_before is null or d.created_at < p_modified_before)
      )
      select i.kind, i.id, i.score
        from items i
       order by 3 desc, lower(i.name), i.id
       limit p_limit offset p_offset;
  end
  $$;
