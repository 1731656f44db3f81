-- A file uploaded through an upload link becomes ready only with the size it announced, by
-- whatever path: `link_finish_upload`, or `expire_uploads` finishing an upload whose bytes
-- arrived (which, on this refusal, puts it in the Trash). So the bytes sent through a link
-- never exceed what its size cap and the owner's quota were checked against.
create function private.link_upload_size() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  begin
    if old.status = 'uploading' and new.status = 'ready'
       and exists (select 1 from private.link_uploads u where u.file_id = new.id)
       and coalesce((select (o.metadata ->> 'size')::bigint from storage.objects o
                      where o.bucket_id = 'files' and o.name = new.object_path), -1) <> new.size
    then
      raise exception 'The file is not the size it announced'
        using errcode = 'P0001', hint = 'link_too_large';
    end if;
    return new;
  end
  $$;
revoke all on function private.link_upload_size() from public;
create trigger files_link_upload_size
  before update of status on public.files
  for each row execute function private.link_upload_size();
