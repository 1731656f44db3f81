/**
 * A project folder in the layout the hosted platform's CLI reads from its `supabase/` folder
 * (`config.toml`, `migrations/`, `seed.sql`, `functions/`), turned into server options. Part
 * of the server's one config loader: `resolveConfig` (resolve.ts) calls it for `projectDir`,
 * and the functions settings read `verify_jwt` with the same parser.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { type ThirdPartyAuthOptions, thirdPartyIssuers } from '../http/third-party';
import { authHooksFromToml } from './auth-hooks';
import { type ExternalOptions, NAMED_PROVIDERS } from './external-providers';
import type { AuthOptions, StartServerOptions } from './options';
import { projectBuckets, projectS3 } from './project-buckets';
import { projectEnv } from './project-env';
import { seedFiles } from './project-seeds';

/** Explicit options over a project's: top-level values, and the keys of each group. */
export function mergeOptions(
  base: StartServerOptions,
  over: StartServerOptions,
): StartServerOptions {
  const merged: StartServerOptions = { ...base, ...over };
  for (const group of ['auth', 'rest', 'storage', 'realtime', 'functions'] as const) {
    if (base[group] || over[group])
      Object.assign(merged, { [group]: { ...base[group], ...over[group] } });
  }
  // The project's issuers with the caller's third-party settings (e.g. a `fetch`) over them.
  const third = { ...base.auth?.thirdParty, ...over.auth?.thirdParty };
  if (Object.keys(third).length) Object.assign(merged.auth ?? {}, { thirdParty: third });
  return merged;
}

type Table = Record<string, unknown>;

/**
 * Parses a hosted CLI `config.toml`: TOML, with `"env(NAME)"` strings replaced by that
 * variable of `env` (absent when it is not set; default the process environment, see
 * project-env.ts for a project's). Throws naming the file on a syntax error.
 */
export function parseProjectToml(
  text: string,
  source = 'config.toml',
  env: Record<string, string | undefined> = process.env,
): Table {
  let parsed: Table;
  try {
    parsed = parseToml(text) as Table;
  } catch (error) {
    throw new Error(`${source}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const substitute = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const name = /^env\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)$/.exec(value)?.[1];
      return name ? env[name] : value;
    }
    if (Array.isArray(value)) return value.map(substitute);
    if (value && typeof value === 'object' && !(value instanceof Date)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v)]));
    }
    return value;
  };
  return substitute(parsed) as Table;
}

/** `[functions.<name>] verify_jwt` of a parsed `config.toml`. */
export function functionVerifyJwt(toml: Table): Record<string, boolean> {
  const result: Record<string, boolean> = {};
  const functions = toml.functions;
  if (!functions || typeof functions !== 'object') return result;
  for (const [name, settings] of Object.entries(functions as Table)) {
    const verify = (settings as Table | null)?.verify_jwt;
    if (typeof verify === 'boolean') result[name] = verify;
  }
  return result;
}

/**
 * `[edge_runtime.secrets]` of a parsed `config.toml`, as the hosted CLI gives them to
 * functions: names upper-cased, values after `env(NAME)` substitution (a secret whose
 * variable is not set is left out), names starting with `SUPABASE_` skipped.
 */
export function edgeRuntimeSecrets(toml: Table, file = 'config.toml'): Record<string, string> {
  const secrets = (toml.edge_runtime as Table | undefined)?.secrets;
  if (secrets === undefined) return {};
  if (!secrets || typeof secrets !== 'object' || Array.isArray(secrets))
    throw new Error(`${file}: edge_runtime.secrets must be a table of NAME = "value"`);
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(secrets as Table)) {
    if (value === undefined || value === '') continue;
    if (typeof value !== 'string')
      throw new Error(`${file}: edge_runtime.secrets.${name} must be a string`);
    const upper = name.toUpperCase();
    if (!upper.startsWith('SUPABASE_')) result[upper] = value;
  }
  return result;
}

/** `[db.seed] sql_paths` (default `./seed.sql`) as files under `root`. */
function projectSeeds(paths: unknown[] | undefined, root: string, file: string): string[] {
  if (paths === undefined) return seedFiles(['./seed.sql'], root, () => {});
  if (!paths.every((p): p is string => typeof p === 'string'))
    throw new Error(`${file}: db.seed.sql_paths must be a list of file paths or glob patterns`);
  try {
    return seedFiles(paths, root, (message) =>
      console.warn(`${file}: db.seed.sql_paths: ${message}`),
    );
  } catch (error) {
    throw new Error(`${file}: db.seed.sql_paths: ${(error as Error).message}`);
  }
}

/** Bytes of a CLI size (`"50MiB"`, `"5GB"`, `1048576`); units are binary, as the CLI reads them. */
export function sizeInBytes(value: string | number, key: string): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(String(value));
  if (!match)
    throw new Error(
      `config.toml: ${key} must be a size such as "50MiB", not ${JSON.stringify(value)}`,
    );
  const power = ' kmgt'.indexOf((match[2] || ' ').toLowerCase());
  return Math.round(Number(match[1]) * 1024 ** power);
}

/**
 * `[auth.external.<name>]` tables that are `enabled`, for the providers this server
 * implements (others are ignored): `client_id`, `secret`, `redirect_uri`, `url`,
 * `skip_nonce_check`, `email_optional`.
 */
function externalProviders(toml: Table, file: string): ExternalOptions | undefined {
  const tables = ((toml.auth as Table | undefined)?.external ?? {}) as Record<string, Table>;
  const out: Record<string, unknown> = {};
  for (const name of NAMED_PROVIDERS) {
    const t = tables[name];
    if (t?.enabled !== true) continue;
    const text = (key: string) => {
      const v = t[key];
      if (v === undefined || v === '') return undefined;
      if (typeof v !== 'string')
        throw new Error(`${file}: auth.external.${name}.${key} must be a string`);
      return v;
    };
    out[name] = Object.fromEntries(
      Object.entries({
        clientId: text('client_id'),
        secret: text('secret'),
        redirectUri: text('redirect_uri'),
        url: text('url'),
        skipNonceCheck: t.skip_nonce_check === true || undefined,
        emailOptional: t.email_optional === true || undefined,
      }).filter(([, v]) => v !== undefined),
    );
  }
  return Object.keys(out).length ? (out as ExternalOptions) : undefined;
}

/**
 * `[auth.third_party.<name>]` tables that are `enabled` (firebase `project_id`, auth0 `tenant`
 * and `tenant_region`, aws_cognito `user_pool_id` and `user_pool_region`, clerk `domain`,
 * workos `issuer_url`), as `auth.thirdParty`; checked when the server starts.
 */
function thirdPartyAuth(toml: Table, file: string): ThirdPartyAuthOptions | undefined {
  const tables = ((toml.auth as Table | undefined)?.third_party ?? {}) as Record<string, Table>;
  const on = (name: string) => tables[name]?.enabled === true;
  const text = (name: string, key: string): string => {
    const v = tables[name]?.[key];
    if (v === undefined) return '';
    if (typeof v !== 'string')
      throw new Error(`${file}: auth.third_party.${name}.${key} must be a string`);
    return v;
  };
  const required: Record<string, string[]> = {
    firebase: ['project_id'],
    auth0: ['tenant'],
    aws_cognito: ['user_pool_id', 'user_pool_region'],
    clerk: ['domain'],
    workos: ['issuer_url'],
  };
  for (const [name, keys] of Object.entries(required)) {
    const missing = on(name) ? keys.find((key) => text(name, key).trim() === '') : undefined;
    if (missing)
      throw new Error(`${file}: auth.third_party.${name} is enabled but without a ${missing}`);
  }
  const out: ThirdPartyAuthOptions = {};
  if (on('firebase')) out.firebase = { projectId: text('firebase', 'project_id') };
  if (on('auth0'))
    out.auth0 = { tenant: text('auth0', 'tenant'), tenantRegion: text('auth0', 'tenant_region') };
  if (on('aws_cognito'))
    out.awsCognito = {
      userPoolId: text('aws_cognito', 'user_pool_id'),
      userPoolRegion: text('aws_cognito', 'user_pool_region'),
    };
  if (on('clerk')) out.clerk = { domain: text('clerk', 'domain') };
  if (on('workos')) out.workos = { issuerUrl: text('workos', 'issuer_url') };
  if (Object.keys(out).length === 0) return undefined;
  try {
    thirdPartyIssuers(out);
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`);
  }
  return out;
}

/**
 * The options a project folder (hosted CLI layout) gives: its `migrations/`, `functions/`
 * and seed file, and the `config.toml` settings this server understands — `[api] port`,
 * `schemas`, `max_rows`; `[db.migrations] enabled`; `[db.seed] enabled`, `sql_paths` (files and
 * glob patterns, see project-seeds.ts); `[auth] site_url`, `additional_redirect_urls`, `jwt_expiry`,
 * `refresh_token_reuse_interval`, `enable_anonymous_sign_ins`, `minimum_password_length`;
 * `enable_manual_linking`; `[auth.external.<name>]` (see {@link externalProviders});
 * `[auth.email] enable_confirmations`, `secure_password_change`, `otp_expiry`;
 * `[auth.rate_limit] sign_in_sign_ups`, `token_verifications`, `email_sent`;
 * `[auth.passkey] enabled`; `[auth.oauth_server] enabled`, `allow_dynamic_registration`,
 * `authorization_url_path`; `[auth.webauthn] rp_id`, `rp_display_name`, `rp_origins`;
 * `[auth.mfa.web_authn] enroll_enabled`, `verify_enabled`;
 * `[auth.hook.<name>] enabled`, `uri`, `secrets` (see `authHooksFromToml`);
 * `[auth.third_party.<name>]` (see {@link thirdPartyAuth});
 * `[storage] file_size_limit`; `[storage.buckets.<name>]` (see {@link projectBuckets});
 * `[storage.s3_protocol] enabled`;
 * `[storage] backend`, `[storage.s3]` (see {@link projectS3});
 * `[functions.<name>] verify_jwt` and `[edge_runtime.secrets]` (both read while running;
 * see {@link edgeRuntimeSecrets}). Other keys are ignored.
 */
export async function projectOptions(dir: string): Promise<StartServerOptions> {
  const root = resolve(dir);
  if (!existsSync(root)) throw new Error(`Project folder ${root} does not exist`);
  const file = join(root, 'config.toml');
  const toml = existsSync(file)
    ? parseProjectToml(await readFile(file, 'utf8'), file, projectEnv(root))
    : {};
  const get = <T>(path: string, type: 'string' | 'number' | 'boolean' | 'array'): T | undefined => {
    let value: unknown = toml;
    for (const part of path.split('.')) value = (value as Table | undefined)?.[part];
    if (value === undefined) return undefined;
    const ok = type === 'array' ? Array.isArray(value) : typeof value === type;
    if (!ok) throw new Error(`${file}: ${path} must be a ${type}`);
    return value as T;
  };
  const options: StartServerOptions = { projectDir: root };
  const some = <T extends object>(o: T): T | undefined =>
    Object.values(o).some((v) => v !== undefined)
      ? (Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T)
      : undefined;
  const port = get<number>('api.port', 'number');
  if (port !== undefined) options.port = port;
  if (get('db.migrations.enabled', 'boolean') !== false && existsSync(join(root, 'migrations'))) {
    options.migrationsDir = join(root, 'migrations');
  }
  if (get('db.seed.enabled', 'boolean') !== false) {
    const seeds = projectSeeds(get<unknown[]>('db.seed.sql_paths', 'array'), root, file);
    if (seeds.length > 0) options.seedFile = seeds;
  }
  if (existsSync(join(root, 'functions'))) options.functionsDir = join(root, 'functions');
  const confirmations = get<boolean>('auth.email.enable_confirmations', 'boolean');
  const signups = get<boolean>('auth.enable_signup', 'boolean');
  const rest = some({
    schemas: get<string[]>('api.schemas', 'array'),
    maxRows: get<number>('api.max_rows', 'number'),
  });
  const rateLimits = some({
    tokenPerIp: get<number>('auth.rate_limit.sign_in_sign_ups', 'number'),
    otpPerIp: get<number>('auth.rate_limit.token_verifications', 'number'),
    emailPerAddress: get<number>('auth.rate_limit.email_sent', 'number'),
  });
  const auth = some<AuthOptions>({
    siteUrl: get<string>('auth.site_url', 'string'),
    disableSignup: signups === undefined ? undefined : !signups,
    redirectUrls: get<string[]>('auth.additional_redirect_urls', 'array'),
    jwtExpiry: get<number>('auth.jwt_expiry', 'number'),
    refreshTokenReuseInterval: get<number>('auth.refresh_token_reuse_interval', 'number'),
    anonymousSignIns: get<boolean>('auth.enable_anonymous_sign_ins', 'boolean'),
    passwordMinLength: get<number>('auth.minimum_password_length', 'number'),
    autoconfirm: confirmations === undefined ? undefined : !confirmations,
    securePasswordChange: get<boolean>('auth.email.secure_password_change', 'boolean'),
    otpExpiry: get<number>('auth.email.otp_expiry', 'number'),
    rateLimits,
    passkey: some({ enabled: get<boolean>('auth.passkey.enabled', 'boolean') }),
    oauthServer: some({
      enabled: get<boolean>('auth.oauth_server.enabled', 'boolean'),
      allowDynamicRegistration: get<boolean>(
        'auth.oauth_server.allow_dynamic_registration',
        'boolean',
      ),
      authorizationUrlPath: get<string>('auth.oauth_server.authorization_url_path', 'string'),
    }),
    webauthn: some({
      rpId: get<string>('auth.webauthn.rp_id', 'string'),
      rpDisplayName: get<string>('auth.webauthn.rp_display_name', 'string'),
      rpOrigins: get<string[]>('auth.webauthn.rp_origins', 'array'),
    }),
    mfa: some({
      webauthn: some({
        enroll: get<boolean>('auth.mfa.web_authn.enroll_enabled', 'boolean'),
        verify: get<boolean>('auth.mfa.web_authn.verify_enabled', 'boolean'),
      }),
    }),
    manualLinking: get<boolean>('auth.enable_manual_linking', 'boolean'),
    external: externalProviders(toml, file),
    hooks: authHooksFromToml(toml, file),
    thirdParty: thirdPartyAuth(toml, file),
  });
  const size = (toml.storage as Table | undefined)?.file_size_limit;
  if (rest) options.rest = rest;
  if (auth) options.auth = auth;
  if (size !== undefined) {
    options.storage = {
      fileSizeLimit: sizeInBytes(size as string | number, 'storage.file_size_limit'),
    };
  }
  const buckets = projectBuckets(toml, root, file);
  if (buckets) options.storage = { ...options.storage, buckets };
  const s3Protocol = get<boolean>('storage.s3_protocol.enabled', 'boolean');
  if (s3Protocol !== undefined)
    options.storage = { ...options.storage, s3Protocol: { enabled: s3Protocol } };
  const s3 = projectS3(toml, file);
  if (s3) options.storage = { ...options.storage, ...s3 };
  // Checked now, so a bad value stops the start; functions read them while running.
  edgeRuntimeSecrets(toml, file);
  return options;
}
