-- Sharing with people, part 8: delivering `mail_outbox` (see ../SHARING.md, "Mail").
--
-- The database cannot send mail; `functions/notify` (service role) claims unsent rows, sends
-- them and marks them sent. A claim is atomic (`for update skip locked`), so two calls at the
-- same time never take the same mail, and it is a lease: a claimed row is not due again before
-- its back-off (5 minutes, doubling, at most 6 hours), so a mail whose sending failed (or
-- whose function died half-way) goes out on a later call, and one that keeps failing is given
-- up after 8 attempts instead of being retried in a loop.

alter table public.mail_outbox
  add column attempts integer not null default 0,
  add column next_attempt_at timestamptz not null default now(),
  add column last_error text;
create index mail_outbox_due on public.mail_outbox (next_attempt_at) where sent_at is null;

-- Claims up to p_limit due mails, oldest first: of one sender (p_sender, the signed-in caller
-- of the function), or of everyone (null: the scheduled sweep). Service role only.
create function public.claim_mail(p_sender uuid, p_limit integer default 50)
  returns table (id uuid, kind text, to_email text, item_kind text, item_id uuid,
                 item_name text, role text, sender_name text, sender_email text,
                 invite_token text, attempts integer)
  language sql volatile security definer set search_path = ''
  as $$
    with due as (
      select o.id from public.mail_outbox o
       where o.sent_at is null and o.next_attempt_at <= now() and o.attempts < 8
         and (p_sender is null or o.sender_id = p_sender)
       order by o.created_at
       limit least(greatest(coalesce(p_limit, 50), 1), 200)
       for update skip locked
    )
    update public.mail_outbox m
       set attempts = m.attempts + 1,
           next_attempt_at = now() + least(interval '5 minutes' * power(2, m.attempts),
                                           interval '6 hours')
      from due
     where m.id = due.id
    returning m.id, m.kind, m.to_email, m.item_kind, m.item_id, m.item_name, m.role,
              m.sender_name, (select u.email from auth.users u where u.id = m.sender_id)::text,
              m.invite_token, m.attempts
  $$;
revoke execute on function public.claim_mail(uuid, integer) from public, anon, authenticated;
grant execute on function public.claim_mail(uuid, integer) to service_role;

-- Marks claimed mails sent (p_error null) or records why one could not be sent (it stays
-- unsent, due again after its back-off). Service role only.
create function public.mail_result(p_ids uuid[], p_error text default null)
  returns integer
  language sql volatile security definer set search_path = ''
  as $$
    with done as (
      update public.mail_outbox m
         set sent_at = case when p_error is null then now() end,
             last_error = left(p_error, 500)
       where m.id = any(p_ids) and m.sent_at is null
      returning 1
    )
    select count(*)::integer from done
  $$;
revoke execute on function public.mail_result(uuid[], text) from public, anon, authenticated;
grant execute on function public.mail_result(uuid[], text) to service_role;

-- What the invitation page may show to whoever holds the mail's link: who invited which
-- address to what (its name and id: an id gives no access), with which role — nothing without
-- the token (64 hex characters of
-- randomness: not guessable, so no rate limit), nothing once the invitation is used or
-- withdrawn. Callable signed out.
create function public.invitation(p_token text)
  returns table (kind text, item_id uuid, item_name text, role text, email text,
                 sender_name text)
  language sql stable security definer set search_path = ''
  as $$
    select case when g.folder_id is not null then 'folder' else 'file' end, g.item_id,
           coalesce(fo.name, fi.name), g.role, g.email,
           coalesce(nullif(private.display_name(g.granted_by), ''),
                    (select u.email from auth.users u where u.id = g.granted_by))::text
      from private.invite_tokens t
      join public.grants g on g.id = t.grant_id
      left join public.folders fo on fo.id = g.folder_id
      left join public.files fi on fi.id = g.file_id
     where t.token = p_token and g.grantee_id is null
  $$;
revoke execute on function public.invitation(text) from public;
grant execute on function public.invitation(text) to anon, authenticated;
