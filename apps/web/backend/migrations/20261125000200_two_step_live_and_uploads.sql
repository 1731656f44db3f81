-- 2-step verification (20261125000100_two_step.sql) for the live updates and the records of
-- incomplete uploads: a session that has not passed it (when the user turned it on) neither
-- hears the changes of `drive:<user id>`, nor reads or writes upload records, nor reads the
-- usage (it gets zeros, as it did when the usage was read under the files' policies).
drop policy "drive changes: owner receives" on realtime.messages;
create policy "drive changes: owner receives" on realtime.messages
  for select to authenticated
  using (
    realtime.messages.extension = 'broadcast'
    and (select realtime.topic()) = 'drive:' || (select auth.uid())::text
    and (select private.two_step_passed())
  );

create policy "uploads: two-step verification" on public.uploads as restrictive
  for all to authenticated
  using ((select private.two_step_passed())) with check ((select private.two_step_passed()));

create or replace function public.record_upload(
  p_file_id uuid, p_bytes bigint, p_url text default null, p_key text default null
)
  returns void
  language plpgsql security definer set search_path = ''
  as $$
  begin
    if not private.two_step_passed() then
      return;
    end if;
    insert into public.uploads as u (file_id, owner_id, upload_url, upload_key, bytes_uploaded)
    select f.id, f.owner_id, p_url, p_key, least(greatest(coalesce(p_bytes, 0), 0), f.size)
      from public.files f
     where f.id = p_file_id and f.owner_id = auth.uid() and f.status = 'uploading'
    on conflict (file_id) do update set
      bytes_uploaded = excluded.bytes_uploaded,
      upload_url = coalesce(excluded.upload_url, u.upload_url),
      upload_key = coalesce(excluded.upload_key, u.upload_key),
      started_at = case when excluded.upload_url is distinct from null
                         and excluded.upload_url is distinct from u.upload_url
                        then now() else u.started_at end,
      updated_at = now();
  end
  $$;

create or replace function public.storage_usage()
  returns table (used_bytes bigint, file_count integer, quota_bytes bigint)
  language plpgsql volatile security definer set search_path = ''
  as $$
  begin
    perform public.expire_uploads();
    if not private.two_step_passed() then
      return query select 0::bigint, 0, public.quota_bytes();
      return;
    end if;
    return query
      select public.used_bytes(auth.uid()),
             (select count(*)::integer from public.files f
               where f.owner_id = auth.uid() and f.status = 'ready'),
             public.quota_bytes();
  end
  $$;
