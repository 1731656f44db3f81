-- Accounts made by signing in with a provider (GitHub, Google, …) get their profile name from
-- the provider's: `full_name` (or `name`) in the user metadata, when no display name was typed.
create or replace function public.handle_new_user() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  begin
    insert into public.profiles (id, display_name)
    values (new.id, left(coalesce(
      nullif(new.raw_user_meta_data ->> 'display_name', ''),
      nullif(new.raw_user_meta_data ->> 'full_name', ''),
      new.raw_user_meta_data ->> 'name',
      ''), 80));
    return new;
  end
  $$;
