-- Row level security of Drive's folders and files: each person sees and writes their own,
-- nothing of anyone else's, and the anon role reads nothing. Run with `pnpm db:test`.
begin;
select plan(7);

-- Two people (their profiles come from the on_auth_user_created trigger) and Ada's things.
insert into auth.users (id, aud, role, email) values
  ('a0a0a0a0-0000-4000-8000-0000000000a1', 'authenticated', 'authenticated', 'ada@example.com'),
  ('b0b0b0b0-0000-4000-8000-0000000000b2', 'authenticated', 'authenticated', 'bob@example.com');
insert into public.folders (id, owner_id, name) values
  ('a0a0a0a0-0000-4000-8000-00000000f001', 'a0a0a0a0-0000-4000-8000-0000000000a1', 'Plans');
insert into public.files (owner_id, folder_id, name, size, object_path, status) values
  ('a0a0a0a0-0000-4000-8000-0000000000a1', 'a0a0a0a0-0000-4000-8000-00000000f001',
   'plan.txt', 4, 'a0a0a0a0-0000-4000-8000-0000000000a1/plan.txt', 'ready');

-- Ada sees her folder and her file.
set local role authenticated;
set local request.jwt.claims to '{"sub": "a0a0a0a0-0000-4000-8000-0000000000a1", "role": "authenticated", "aal": "aal1"}';
select results_eq(
  'select name from public.folders',
  $$values ('Plans')$$,
  'Ada sees her folder'
);
select results_eq(
  'select name from public.files',
  $$values ('plan.txt')$$,
  'Ada sees her file'
);

-- Bob sees none of it and cannot write into Ada's folder or in her name.
set local request.jwt.claims to '{"sub": "b0b0b0b0-0000-4000-8000-0000000000b2", "role": "authenticated", "aal": "aal1"}';
select is_empty('select 1 from public.folders', 'Bob sees no folder of Ada''s');
select is_empty('select 1 from public.files', 'Bob sees no file of Ada''s');
select throws_ok(
  $$insert into public.folders (owner_id, name)
    values ('a0a0a0a0-0000-4000-8000-0000000000a1', 'Mine now')$$,
  '42501',
  null,
  'Bob cannot create a folder in Ada''s name'
);
select throws_ok(
  $$insert into public.folders (parent_id, name)
    values ('a0a0a0a0-0000-4000-8000-00000000f001', 'Inside')$$,
  '42501',
  null,
  'Bob cannot create a folder inside Ada''s'
);

-- Signed out, nothing.
reset role;
set local role anon;
select throws_ok(
  'select 1 from public.folders',
  '42501',
  null,
  'anon cannot read folders'
);

select * from finish();
rollback;
