/**
 * The OAuth 2.1 server's tables, with the hosted service's names and columns: registered
 * clients (`auth.oauth_clients`; redirect URIs and grant types comma-separated, the secret
 * only as its SHA-256), authorization requests and their codes (`auth.oauth_authorizations`),
 * the scopes a user granted a client (`auth.oauth_consents`), and the client a session was
 * issued to with the scopes it was granted (`auth.sessions.oauth_client_id`, `scopes`). Idempotent, like the rest of the platform SQL.
 */
export const OAUTH_SERVER_SQL = /* sql */ `
do $$ begin
  create type auth.oauth_registration_type as enum ('dynamic', 'manual');
exception when duplicate_object then null; end $$;
do $$ begin
  create type auth.oauth_client_type as enum ('public', 'confidential');
exception when duplicate_object then null; end $$;
do $$ begin
  create type auth.oauth_authorization_status as enum ('pending', 'approved', 'denied', 'expired');
exception when duplicate_object then null; end $$;
do $$ begin
  create type auth.oauth_response_type as enum ('code');
exception when duplicate_object then null; end $$;

create table if not exists auth.oauth_clients (
  id uuid primary key,
  client_secret_hash text,
  registration_type auth.oauth_registration_type not null,
  redirect_uris text not null,
  grant_types text not null,
  client_name text check (char_length(client_name) <= 1024),
  client_uri text check (char_length(client_uri) <= 2048),
  logo_uri text check (char_length(logo_uri) <= 2048),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  client_type auth.oauth_client_type not null default 'confidential',
  token_endpoint_auth_method text not null default 'client_secret_basic'
);
create index if not exists oauth_clients_deleted_at_idx on auth.oauth_clients (deleted_at);

create table if not exists auth.oauth_authorizations (
  id uuid primary key,
  authorization_id text not null unique,
  client_id uuid not null references auth.oauth_clients (id) on delete cascade,
  user_id uuid references auth.users (id) on delete cascade,
  redirect_uri text not null check (char_length(redirect_uri) <= 2048),
  scope text not null check (char_length(scope) <= 4096),
  state text check (char_length(state) <= 4096),
  resource text check (char_length(resource) <= 2048),
  code_challenge text check (char_length(code_challenge) <= 128),
  code_challenge_method auth.code_challenge_method,
  response_type auth.oauth_response_type not null default 'code',
  status auth.oauth_authorization_status not null default 'pending',
  authorization_code text unique check (char_length(authorization_code) <= 255),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  approved_at timestamptz
);
create index if not exists oauth_auth_pending_exp_idx
  on auth.oauth_authorizations (expires_at) where status = 'pending';

create table if not exists auth.oauth_consents (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  client_id uuid not null references auth.oauth_clients (id) on delete cascade,
  scopes text not null check (char_length(trim(scopes)) > 0),
  granted_at timestamptz not null default now(),
  revoked_at timestamptz,
  unique (user_id, client_id)
);

alter table auth.oauth_authorizations add column if not exists nonce text
  check (char_length(nonce) <= 255);

alter table auth.sessions add column if not exists oauth_client_id uuid
  references auth.oauth_clients (id) on delete cascade;
alter table auth.sessions add column if not exists scopes text
  check (char_length(scopes) <= 4096);
create index if not exists sessions_oauth_client_id_idx on auth.sessions (oauth_client_id);
`;
