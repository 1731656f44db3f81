import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../../db/index';
import { badRequest } from '../errors';
import { isUuid } from '../guard';

/** A row of `auth.oauth_clients`. */
export interface ClientRow {
  id: string;
  client_secret_hash: string | null;
  registration_type: 'dynamic' | 'manual';
  client_type: 'public' | 'confidential';
  token_endpoint_auth_method: AuthMethod;
  redirect_uris: string;
  grant_types: string;
  client_name: string | null;
  client_uri: string | null;
  logo_uri: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

export type AuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';
const AUTH_METHODS: readonly string[] = ['none', 'client_secret_basic', 'client_secret_post'];
const GRANT_TYPES: readonly string[] = ['authorization_code', 'refresh_token'];
const CLIENT_COLUMNS = `id, client_secret_hash, registration_type, client_type,
  token_endpoint_auth_method, redirect_uris, grant_types, client_name, client_uri, logo_uri,
  created_at, updated_at`;

/** The fields of a registration (admin `POST /admin/oauth/clients` or RFC 7591). */
export interface ClientParams {
  redirect_uris?: unknown;
  grant_types?: unknown;
  client_name?: string;
  client_uri?: string;
  logo_uri?: string;
  client_type?: string;
  token_endpoint_auth_method?: string;
}

const invalid = (message: string) => badRequest('validation_failed', message);
const iso = (v: Date | string) => (v instanceof Date ? v : new Date(v)).toISOString();
const list = (v: string) => (v ? v.split(',') : []);

/** The client as the hosted API shows it; the secret only when just made. */
export function clientJson(row: ClientRow, secret?: string): Record<string, unknown> {
  const out: Record<string, unknown> = { client_id: row.id };
  if (secret) out.client_secret = secret;
  Object.assign(out, {
    client_type: row.client_type,
    redirect_uris: list(row.redirect_uris),
    token_endpoint_auth_method: row.token_endpoint_auth_method,
    grant_types: list(row.grant_types),
    response_types: ['code'],
  });
  if (row.client_name) out.client_name = row.client_name;
  if (row.client_uri) out.client_uri = row.client_uri;
  if (row.logo_uri) out.logo_uri = row.logo_uri;
  out.registration_type = row.registration_type;
  out.created_at = iso(row.created_at);
  out.updated_at = iso(row.updated_at);
  return out;
}

/** RFC 6749 §3.1.2 redirect URIs: absolute, no fragment, plain http only for loopback. */
function checkRedirectUri(uri: unknown): string {
  if (typeof uri !== 'string' || uri === '') throw invalid('redirect URI cannot be empty');
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw invalid(`invalid redirect_uri '${uri}': invalid URL format`);
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (['javascript', 'data', 'file', 'vbscript', 'about', 'blob'].includes(scheme)) {
    throw invalid(`invalid redirect_uri '${uri}': scheme '${scheme}' is not allowed`);
  }
  if (!url.host) throw invalid(`invalid redirect_uri '${uri}': must have scheme and host`);
  if (scheme === 'http' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) {
    throw invalid(`invalid redirect_uri '${uri}': HTTP scheme only allowed for localhost`);
  }
  if (uri.includes('#')) {
    throw invalid(`invalid redirect_uri '${uri}': fragment not allowed in redirect URI`);
  }
  if (uri.includes(',')) throw invalid(`invalid redirect_uri '${uri}': must not contain a comma`);
  return uri;
}

function checkRedirectUris(value: unknown): string[] {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) {
    throw invalid('redirect_uris is required');
  }
  if (!Array.isArray(value)) throw invalid('redirect_uris must be an array of strings');
  if (value.length > 10) throw invalid('redirect_uris cannot exceed 10 items');
  return value.map(checkRedirectUri);
}

function checkGrantTypes(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) throw invalid('grant_types cannot be empty');
  if (!value.every((g) => GRANT_TYPES.includes(g))) {
    throw invalid("grant_types must only contain 'authorization_code' and/or 'refresh_token'");
  }
  return value as string[];
}

function checkUri(field: string, value: string | undefined): string | null {
  if (!value) return null;
  if (value.length > 2048) throw invalid(`${field} cannot exceed 2048 characters`);
  if (!URL.canParse(value)) throw invalid(`${field} must be a valid URL`);
  return value;
}

function checkName(value: string | undefined): string | null {
  if (value && value.length > 1024) throw invalid('client_name cannot exceed 1024 characters');
  return value || null;
}

function checkAuthMethod(value: string | undefined): AuthMethod | undefined {
  if (value === undefined || value === '') return undefined;
  if (!AUTH_METHODS.includes(value)) {
    throw invalid(`token_endpoint_auth_method must be one of: ${AUTH_METHODS.join(', ')}`);
  }
  return value as AuthMethod;
}

const typeOfMethod = (m: AuthMethod) => (m === 'none' ? 'public' : 'confidential');

/** A new client secret and its stored form. */
function newSecret(): { secret: string; hash: string } {
  const secret = randomBytes(32).toString('base64url');
  return { secret, hash: createHash('sha256').update(secret).digest('base64url') };
}

/** Whether a presented secret is the client's (constant-time). */
export function secretMatches(row: ClientRow, presented: string): boolean {
  if (!row.client_secret_hash) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = Buffer.from(row.client_secret_hash, 'base64url');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Registers a client; a confidential one gets a secret, returned once. */
export async function registerClient(
  q: Queryable,
  params: ClientParams,
  registration: 'dynamic' | 'manual',
): Promise<{ row: ClientRow; secret?: string }> {
  const redirectUris = checkRedirectUris(params.redirect_uris);
  const grantTypes =
    params.grant_types === undefined
      ? ['authorization_code', 'refresh_token']
      : checkGrantTypes(params.grant_types);
  const name = checkName(params.client_name);
  const clientUri = checkUri('client_uri', params.client_uri);
  const logoUri = checkUri('logo_uri', params.logo_uri);
  const explicitType = params.client_type || undefined;
  if (explicitType && explicitType !== 'public' && explicitType !== 'confidential') {
    throw invalid("client_type must be 'public' or 'confidential'");
  }
  const method = checkAuthMethod(params.token_endpoint_auth_method);
  if (explicitType && method && typeOfMethod(method) !== explicitType) {
    throw invalid(
      `client_type '${explicitType}' is inconsistent with token_endpoint_auth_method '${method}' (expected client_type '${typeOfMethod(method)}')`,
    );
  }
  const clientType = explicitType ?? (method ? typeOfMethod(method) : 'confidential');
  const authMethod = method ?? (clientType === 'public' ? 'none' : 'client_secret_basic');
  const secret = clientType === 'confidential' ? newSecret() : null;
  const { rows } = await q.query<ClientRow>(
    `insert into auth.oauth_clients (id, client_secret_hash, registration_type, client_type,
       token_endpoint_auth_method, redirect_uris, grant_types, client_name, client_uri, logo_uri)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning ${CLIENT_COLUMNS}`,
    [
      randomUUID(),
      secret?.hash ?? null,
      registration,
      clientType,
      authMethod,
      redirectUris.join(','),
      grantTypes.join(','),
      name,
      clientUri,
      logoUri,
    ],
  );
  const row = rows[0] as ClientRow;
  return secret ? { row, secret: secret.secret } : { row };
}

/** A live (not deleted) client by id, or null (also for an id that is not a UUID). */
export async function findClient(q: Queryable, id: string): Promise<ClientRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await q.query<ClientRow>(
    `select ${CLIENT_COLUMNS} from auth.oauth_clients where id = $1 and deleted_at is null`,
    [id],
  );
  return rows[0] ?? null;
}

/** A page of live clients, newest first, and how many there are. */
export async function listClients(
  q: Queryable,
  page: number,
  perPage: number,
): Promise<{ rows: ClientRow[]; total: number }> {
  const total = await q.query<{ n: number }>(
    'select count(*)::int as n from auth.oauth_clients where deleted_at is null',
  );
  const { rows } = await q.query<ClientRow>(
    `select ${CLIENT_COLUMNS} from auth.oauth_clients where deleted_at is null
     order by created_at desc, id limit $1 offset $2`,
    [perPage, (page - 1) * perPage],
  );
  return { rows, total: total.rows[0]?.n ?? 0 };
}

/** Updates the given fields of a client (absent fields stay). */
export async function updateClient(
  q: Queryable,
  row: ClientRow,
  params: ClientParams,
): Promise<ClientRow> {
  const has = (k: keyof ClientParams) => params[k] !== undefined;
  const fields = ['redirect_uris', 'grant_types', 'client_name', 'client_uri', 'logo_uri'];
  if (!fields.some((f) => has(f as keyof ClientParams)) && !has('token_endpoint_auth_method')) {
    throw invalid('No fields provided for update');
  }
  const method = checkAuthMethod(params.token_endpoint_auth_method);
  if (method && typeOfMethod(method) !== row.client_type) {
    throw invalid(
      `token_endpoint_auth_method '${method}' is not allowed for a ${row.client_type} client`,
    );
  }
  const { rows } = await q.query<ClientRow>(
    `update auth.oauth_clients set
       redirect_uris = coalesce($2, redirect_uris), grant_types = coalesce($3, grant_types),
       client_name = case when $4::boolean then $5 else client_name end,
       client_uri = case when $6::boolean then $7 else client_uri end,
       logo_uri = case when $8::boolean then $9 else logo_uri end,
       token_endpoint_auth_method = coalesce($10, token_endpoint_auth_method),
       updated_at = now()
     where id = $1 and deleted_at is null returning ${CLIENT_COLUMNS}`,
    [
      row.id,
      has('redirect_uris') ? checkRedirectUris(params.redirect_uris).join(',') : null,
      has('grant_types') ? checkGrantTypes(params.grant_types).join(',') : null,
      has('client_name'),
      checkName(params.client_name),
      has('client_uri'),
      checkUri('client_uri', params.client_uri),
      has('logo_uri'),
      checkUri('logo_uri', params.logo_uri),
      method ?? null,
    ],
  );
  return (rows[0] as ClientRow | undefined) ?? row;
}

/** Soft-deletes a client; its sessions end (their refresh tokens go with them). */
export async function deleteClient(q: Queryable, id: string): Promise<void> {
  await q.query(
    `with gone as (
       update auth.oauth_clients set deleted_at = now(), updated_at = now() where id = $1
     )
     delete from auth.sessions where oauth_client_id = $1`,
    [id],
  );
}

/** A new secret for a confidential client (the old one stops working). */
export async function regenerateSecret(
  q: Queryable,
  row: ClientRow,
): Promise<{ row: ClientRow; secret: string }> {
  if (row.client_type !== 'confidential') {
    throw invalid('Cannot regenerate secret for public client');
  }
  const { secret, hash } = newSecret();
  const { rows } = await q.query<ClientRow>(
    `update auth.oauth_clients set client_secret_hash = $2, updated_at = now()
     where id = $1 returning ${CLIENT_COLUMNS}`,
    [row.id, hash],
  );
  return { row: rows[0] as ClientRow, secret };
}
