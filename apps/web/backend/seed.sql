-- Drive's demo account, applied once on a fresh database by `pnpm start`.
--   email:    demo@example.com
--   password: drive-demo-password
-- (bcrypt, cost 10). The profile row comes from the on_auth_user_created trigger.
insert into auth.users (
  instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
  raw_app_meta_data, raw_user_meta_data, created_at, updated_at, is_anonymous
) values (
  '00000000-0000-0000-0000-000000000000', 'd0d0d0d0-0000-4000-8000-00000000d3e0',
  'authenticated', 'authenticated', 'demo@example.com',
  '$2b$10$c5Jv1NOyal8ZTSfi2Sbuh.15osWift38ewdtxFqoS5ZEmginz6P2G', now(),
  '{"provider": "email", "providers": ["email"]}', '{"display_name": "Demo"}', now(), now(), false
);

insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
values (
  'd0d0d0d0-0000-4000-8000-00000000d3e0', 'd0d0d0d0-0000-4000-8000-00000000d3e0',
  '{"sub": "d0d0d0d0-0000-4000-8000-00000000d3e0", "email": "demo@example.com", "email_verified": true}',
  'email', now(), now()
);

insert into public.folders (owner_id, name) values
  ('d0d0d0d0-0000-4000-8000-00000000d3e0', 'Documents'),
  ('d0d0d0d0-0000-4000-8000-00000000d3e0', 'Photos');
