/**
 * `supabase_vault`, the secrets store hosted projects come with (schema `vault`, version
 * 0.3.1): `vault.create_secret`, `vault.update_secret`, the table `vault.secrets` (the
 * `secret` column holds ciphertext, base64) and the view `vault.decrypted_secrets` (adds
 * `decrypted_secret`). Written for this server in plain SQL, so it runs the same on PGlite
 * and PostgreSQL (see ./README.md, "Vault", for the threat model).
 *
 * Encryption: a keystream of HMAC-SHA256 blocks (PRF in counter mode) under a random
 * 16-byte nonce per encryption, then HMAC-SHA256 over the nonce, the secret's id and the
 * ciphertext (encrypt-then-MAC); both keys are derived from the server's root key, which
 * reaches SQL only as the session setting `vault.root_key` the server sets on its own
 * connections. It is never stored in the database, so a dump holds ciphertext only.
 */
import type { ProvidedExtension } from './provided';

/** The session setting that carries the root key (64 hex digits) on the server's connections. */
export const VAULT_KEY_SETTING = 'vault.root_key';

const SCRIPT = /* sql */ `
-- HMAC-SHA256 (RFC 2104) on core functions only.
create function vault._hmac(key bytea, message bytea) returns bytea
language plpgsql immutable strict set search_path = '' as $fn$
declare
  k bytea := case when length(key) > 64 then pg_catalog.sha256(key) else key end;
  ipad bytea;
  opad bytea;
begin
  k := k || pg_catalog.decode(pg_catalog.repeat('00', 64 - length(k)), 'hex');
  ipad := k;
  opad := k;
  for i in 0..63 loop
    ipad := pg_catalog.set_byte(ipad, i, pg_catalog.get_byte(k, i) # 54);
    opad := pg_catalog.set_byte(opad, i, pg_catalog.get_byte(k, i) # 92);
  end loop;
  return pg_catalog.sha256(opad || pg_catalog.sha256(ipad || message));
end
$fn$;

-- A key derived from the server's root key for one purpose; fails where the server did not
-- set it (a connection of another client).
create function vault._key(purpose text) returns bytea
language plpgsql stable set search_path = '' as $fn$
declare
  root text := pg_catalog.current_setting('${VAULT_KEY_SETTING}', true);
begin
  if root is null or root !~ '^[0-9a-f]{64}$' then
    raise exception 'vault: the server''s key is not available on this connection'
      using errcode = '39000',
            hint = 'Vault encrypts and decrypts on connections of the backend server only.';
  end if;
  return vault._hmac(pg_catalog.decode(root, 'hex'), pg_catalog.convert_to(purpose, 'utf8'));
end
$fn$;

create function vault._crypto_aead_det_noncegen() returns bytea
language sql volatile set search_path = '' as $fn$
  select pg_catalog.substr(pg_catalog.sha256(
    pg_catalog.uuid_send(pg_catalog.gen_random_uuid()) ||
    pg_catalog.uuid_send(pg_catalog.gen_random_uuid())), 1, 16)
$fn$;

-- data XOR the keystream HMAC(key, nonce || block number).
create function vault._keystream_xor(key bytea, nonce bytea, data bytea) returns bytea
language plpgsql immutable strict set search_path = '' as $fn$
declare
  result bytea := data;
  block bytea;
begin
  for i in 0..length(data) - 1 loop
    if i % 32 = 0 then
      block := vault._hmac(key, nonce || pg_catalog.int4send(i / 32));
    end if;
    result := pg_catalog.set_byte(result, i,
      pg_catalog.get_byte(data, i) # pg_catalog.get_byte(block, i % 32));
  end loop;
  return result;
end
$fn$;

create function vault._encrypt(message text, id uuid, nonce bytea) returns text
language plpgsql stable strict set search_path = '' as $fn$
declare
  ct bytea := vault._keystream_xor(vault._key('vault encryption'), nonce,
    pg_catalog.convert_to(message, 'utf8'));
begin
  return pg_catalog.encode(ct || vault._hmac(vault._key('vault authentication'),
    nonce || pg_catalog.uuid_send(id) || ct), 'base64');
end
$fn$;

-- Security definer: its helpers are not executable by the roles that may read secrets.
create function vault._decrypt(secret text, id uuid, nonce bytea) returns text
language plpgsql stable strict security definer set search_path = '' as $fn$
declare
  raw bytea := pg_catalog.decode(secret, 'base64');
  ct bytea;
begin
  if length(raw) < 32 then
    raise exception 'vault: secret % is not a Vault ciphertext', id using errcode = '22023';
  end if;
  ct := pg_catalog.substr(raw, 1, length(raw) - 32);
  if vault._hmac(vault._key('vault authentication'), nonce || pg_catalog.uuid_send(id) || ct)
     <> pg_catalog.substr(raw, length(raw) - 31) then
    raise exception 'vault: secret % cannot be decrypted with this server''s key', id
      using errcode = '39000';
  end if;
  return pg_catalog.convert_from(vault._keystream_xor(vault._key('vault encryption'), nonce, ct), 'utf8');
end
$fn$;

create table vault.secrets (
  id uuid primary key default gen_random_uuid(),
  name text,
  description text not null default '',
  secret text not null,
  key_id uuid,
  nonce bytea default vault._crypto_aead_det_noncegen(),
  created_at timestamptz not null default current_timestamp,
  updated_at timestamptz not null default current_timestamp
);
comment on table vault.secrets is 'Table with encrypted \`secret\` column for storing sensitive information on disk.';
create unique index secrets_name_idx on vault.secrets using btree (name) where name is not null;
-- Its rows are project data: dumps carry them (ciphertext).
select pg_catalog.pg_extension_config_dump('vault.secrets', '');

create view vault.decrypted_secrets as
select s.id, s.name, s.description, s.secret,
  vault._decrypt(s.secret, s.id, s.nonce) as decrypted_secret,
  s.key_id, s.nonce, s.created_at, s.updated_at
from vault.secrets s;

create function vault.create_secret(
  new_secret text,
  new_name text = null,
  new_description text = '',
  new_key_id uuid = null
) returns uuid
language plpgsql security definer set search_path = '' as $fn$
declare
  new_id uuid := pg_catalog.gen_random_uuid();
  new_nonce bytea := vault._crypto_aead_det_noncegen();
begin
  insert into vault.secrets (id, secret, name, description, nonce)
  values (new_id, vault._encrypt(new_secret, new_id, new_nonce), new_name, new_description, new_nonce);
  return new_id;
end
$fn$;

create function vault.update_secret(
  secret_id uuid,
  new_secret text = null,
  new_name text = null,
  new_description text = null,
  new_key_id uuid = null
) returns void
language plpgsql security definer set search_path = '' as $fn$
declare
  -- A new secret gets a new nonce: a keystream is never used twice.
  new_nonce bytea := vault._crypto_aead_det_noncegen();
begin
  update vault.secrets s
  set secret = case when new_secret is null then s.secret
                    else vault._encrypt(new_secret, s.id, new_nonce) end,
      nonce = case when new_secret is null then s.nonce else new_nonce end,
      name = coalesce(new_name, s.name),
      description = coalesce(new_description, s.description),
      updated_at = now()
  where s.id = secret_id;
end
$fn$;

revoke all on function vault._hmac(bytea, bytea), vault._key(text),
  vault._crypto_aead_det_noncegen(), vault._keystream_xor(bytea, bytea, bytea),
  vault._encrypt(text, uuid, bytea), vault._decrypt(text, uuid, bytea),
  vault.create_secret(text, text, text, uuid),
  vault.update_secret(uuid, text, text, text, uuid)
from public;
revoke all on vault.secrets, vault.decrypted_secrets from public;

-- As on hosted projects: service_role may use Vault (postgres owns it); anon and
-- authenticated may not.
do $grants$
begin
  if exists (select from pg_catalog.pg_roles where rolname = 'service_role') then
    grant usage on schema vault to service_role;
    grant select, delete on vault.secrets, vault.decrypted_secrets to service_role;
    grant execute on function vault.create_secret(text, text, text, uuid),
      vault.update_secret(uuid, text, text, text, uuid),
      vault._decrypt(text, uuid, bytea) to service_role;
  end if;
end
$grants$;
`;

export const SUPABASE_VAULT: ProvidedExtension = {
  name: 'supabase_vault',
  version: '0.3.1',
  comment: 'Supabase Vault Extension',
  schema: 'vault',
  script: SCRIPT,
};

/**
 * Vault comes installed, as on hosted projects: a platform script (so in-memory servers get
 * it from the platform snapshot, and `db reset` brings it back) that creates the extension
 * when the engine has its files (on PostgreSQL, when the server could write them; see
 * ./README.md).
 */
export const VAULT_PLATFORM_SQL = /* sql */ `
do $vault$
begin
  if exists (select from pg_catalog.pg_available_extensions where name = 'supabase_vault')
     and not exists (select from pg_catalog.pg_extension where extname = 'supabase_vault') then
    create extension supabase_vault;
  end if;
end
$vault$;
`;
