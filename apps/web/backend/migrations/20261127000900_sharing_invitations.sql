-- Sharing with people, part 7: invitations that only the invited person can take (see
-- ../SHARING.md).
--
-- A pending invitation becomes access when the invited address is proven to belong to an
-- account. 20261127000400_sharing_grants.sql took any account created with the address
-- already confirmed — but with email confirmations off (Drive's config.toml), a sign-up is
-- "confirmed" without anyone opening a mail, so whoever signed up first with a colleague's
-- address would have taken what was shared with the colleague. Now:
-- * an account created already confirmed takes its invitations only when a provider (GitHub,
--   Google, …) vouched for the address, not when it signed up with a password;
-- * an address confirmed later (the confirmation link or code) or changed to a confirmed one
--   takes them, as before;
-- * otherwise the invitation mail carries a token (`mail_outbox.invite_token`, kept in
--   `private.invite_tokens`) and its link calls `accept_invitation(token)`: holding the mail
--   is the proof.

-- The token of each pending invitation (no client reads this schema's tables).
create table private.invite_tokens (
  grant_id uuid primary key references public.grants (id) on delete cascade,
  token text not null unique
    default replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', '')
);
revoke all on private.invite_tokens from public, anon, authenticated;
insert into private.invite_tokens (grant_id) select g.id from public.grants g where g.grantee_id is null;
alter table public.mail_outbox add column invite_token text;

-- A pending invitation gets a token; a grant that becomes a person's access loses it.
create function private.grant_tokens() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  begin
    if new.grantee_id is null then
      insert into private.invite_tokens (grant_id) values (new.id) on conflict do nothing;
    else
      delete from private.invite_tokens t where t.grant_id = new.id;
    end if;
    return null;
  end
  $$;
revoke all on function private.grant_tokens() from public;
create trigger grants_tokens
  after insert or update of grantee_id on public.grants
  for each row execute function private.grant_tokens();

-- The invitation mail carries its grant's token.
create function private.mail_invite_token() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  begin
    if new.kind = 'invited' then
      select t.token into new.invite_token
        from public.grants g join private.invite_tokens t on t.grant_id = g.id
       where g.item_id = new.item_id and g.email = new.to_email and g.grantee_id is null;
    end if;
    return new;
  end
  $$;
revoke all on function private.mail_invite_token() from public;
create trigger mail_outbox_invite_token
  before insert on public.mail_outbox
  for each row execute function private.mail_invite_token();

drop trigger on_auth_user_verified_accept_invitations on auth.users;
create trigger on_auth_user_verified_accept_invitations
  after insert on auth.users
  for each row when (new.email_confirmed_at is not null
    and coalesce(new.raw_app_meta_data ->> 'provider', 'email') not in ('email', 'phone'))
  execute function private.accept_invitations();

-- Takes the invitation of the mail's link for the signed-in caller (any of their accounts:
-- the mail is the proof). Where the caller has access to the item already, the stronger role
-- stays. Errors: 42501 invitation_not_found (also an accepted one), 22023 own_item.
create function public.accept_invitation(p_token text)
  returns table (kind text, id uuid, role text)
  language plpgsql volatile security definer set search_path = ''
  as $$
  declare
    g public.grants;
    held public.grants;
  begin
    select x.* into g from public.grants x join private.invite_tokens t on t.grant_id = x.id
     where t.token = p_token and x.grantee_id is null and p_token is not null
       and auth.uid() is not null and private.two_step_passed()
     for update of x;
    if not found then
      raise exception 'This invitation is not valid any more'
        using errcode = '42501', hint = 'invitation_not_found';
    end if;
    if g.owner_id = auth.uid() then
      raise exception 'This is your own item' using errcode = '22023', hint = 'own_item';
    end if;
    select * into held from public.grants x where x.item_id = g.item_id and x.grantee_id = auth.uid();
    if found then
      if held.role = 'viewer' and g.role = 'editor' then
        update public.grants x set role = 'editor', updated_at = now() where x.id = held.id;
      end if;
      delete from public.grants x where x.id = g.id;
    else
      update public.grants x set grantee_id = auth.uid(), updated_at = now() where x.id = g.id;
    end if;
    return query
      select case when g.folder_id is not null then 'folder' else 'file' end, g.item_id,
             (select x.role from public.grants x where x.item_id = g.item_id and x.grantee_id = auth.uid());
  end
  $$;
revoke execute on function public.accept_invitation(text) from public, anon;
grant execute on function public.accept_invitation(text) to authenticated;
