-- Uploading a whole folder recreates its tree: the folder at a path of names below a parent
-- (null: the root), each folder created where it is missing and reused where it exists (any
-- case). Returns the last folder's id. Runs as the user: row level security applies.
create function public.ensure_folder_path(p_parent_id uuid, p_names text[])
  returns uuid
  language plpgsql
  as $$
  declare
    current_id uuid := p_parent_id;
    folder_name text;
    found_id uuid;
  begin
    foreach folder_name in array coalesce(p_names, '{}') loop
      if not public.is_valid_name(folder_name) then
        raise exception 'Invalid name' using errcode = '23514', hint = 'invalid_name';
      end if;
      perform pg_advisory_xact_lock(
        hashtextextended(auth.uid()::text || ':' || coalesce(current_id::text, ''), 2));
      found_id := null;
      select f.id into found_id from public.folders f
       where f.owner_id = auth.uid() and f.parent_id is not distinct from current_id
         and lower(f.name) = lower(folder_name);
      if found_id is null then
        insert into public.folders (parent_id, name) values (current_id, folder_name)
          returning id into found_id;
      end if;
      current_id := found_id;
    end loop;
    return current_id;
  end
  $$;
revoke execute on function public.ensure_folder_path(uuid, text[]) from public, anon;
grant execute on function public.ensure_folder_path(uuid, text[]) to authenticated;
