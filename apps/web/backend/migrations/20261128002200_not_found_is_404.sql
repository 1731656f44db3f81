-- "No such file / version" refusals were raised with SQLSTATE P0002 (no_data_found). The REST
-- service answers every P0 class error but P0001 with 500, as the hosted one does, so a
-- stranger asking for a version got a server error (and the trash function a 502). They are
-- client mistakes: raise them as PT404, which REST answers with 404. The hint stays the same.
create or replace function private.refuse(p_message text, p_hint text, p_code text default '42501')
  returns void
  language plpgsql
  as $$
  begin
    raise exception '%', p_message
      using errcode = case p_code when 'P0002' then 'PT404' else p_code end, hint = p_hint;
  end
  $$;
revoke all on function private.refuse(text, text, text) from public;
