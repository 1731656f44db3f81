import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { createApiKeys, DEFAULT_JWT_SECRET } from './keys';

/** Auth (GoTrue) settings. */
export interface AuthOptions {
  /** Sign-ups are confirmed at once (no confirmation mail). Default true. */
  autoconfirm?: boolean;
  /** Minimum password length. Default 6. */
  passwordMinLength?: number;
  /** Access-token lifetime in seconds. Default 3600. */
  jwtExpiry?: number;
  /** Where links in mails lead by default. Default the server URL. */
  siteUrl?: string;
  /** Extra allowed redirect URLs (globs). */
  redirectUrls?: string[];
  /** smtp:// or smtps:// URL: send real mail instead of only the outbox. */
  smtpUrl?: string;
  /** Per-IP / per-email rate limits; `false` turns them off. */
  rateLimits?: false | Partial<AuthRateLimits>;
  /** Refresh-token reuse interval in seconds (default 10). */
  refreshTokenReuseInterval?: number;
  /** Anonymous sign-ins (`POST /signup` without email or phone). Default true. */
  anonymousSignIns?: boolean;
  /** Lifetime of mailed links and codes in seconds. Default 3600. */
  otpExpiry?: number;
  /**
   * Password changes on sessions older than 24 h need the nonce mailed by
   * `GET /reauthenticate` (the hosted `secure_password_change`). Default false.
   */
  securePasswordChange?: boolean;
}

export interface AuthRateLimits {
  /** Sign-in / token requests per IP per 5 minutes. */
  tokenPerIp: number;
  /** Sign-ups per IP per hour. */
  signupPerIp: number;
  /** Mails (otp, recover, signup confirmation, resend) per email per hour. */
  emailPerAddress: number;
  /** OTP / verify requests per IP per 5 minutes. */
  otpPerIp: number;
}

/** REST (PostgREST) settings. */
export interface RestOptions {
  /** Exposed schemas; the first is the default. Default ['public', 'graphql_public']. */
  schemas?: string[];
  /** Maximum rows a response returns. Default 1000. */
  maxRows?: number;
  /** Aggregate functions in `select`. Default false. */
  aggregatesEnabled?: boolean;
}

/** Edge functions settings (`/functions/v1`). */
export interface FunctionsOptions {
  /**
   * Wall-clock limit of one invocation in milliseconds, from dispatch to the end of the
   * response body; past it the worker is stopped and the call answers 546 WORKER_LIMIT.
   * Default 150000 (the hosted gateway's 150 s).
   */
  wallTimeMs?: number;
  /** JavaScript heap limit of one function worker in MB (hosted: 256). Default 256. */
  memoryLimitMb?: number;
  /** A function's worker is stopped after this long without calls (memory back). Default 300000. */
  idleTimeoutMs?: number;
  /**
   * CPU limit: while a call is open, a worker whose event loop never goes idle for this long
   * (an endless loop, synchronous work that never awaits) is stopped: 546 WORKER_LIMIT.
   * Hosted allows 2 s of CPU per request; default 10000 here, as the server shares its cores.
   */
  cpuTimeMs?: number;
  /**
   * `verify_jwt`: one boolean for every function, or per function name. A per-name entry
   * here wins over `[functions.<name>] verify_jwt` in `<functionsDir>/../config.toml`, which
   * wins over a boolean here. Default true.
   */
  verifyJwt?: boolean | Record<string, boolean>;
}

/** Realtime (Phoenix channels) settings. */
export interface RealtimeOptions {
  /** Close a socket after this long without any frame from the client. Default 60000 ms. */
  idleTimeoutMs?: number;
  /** Largest broadcast payload in bytes (hosted default 3000 KB). */
  maxPayloadBytes?: number;
}

/** Storage settings. */
export interface StorageOptions {
  /** Server-wide upload limit in bytes (buckets may set lower ones). Default 50 GiB. */
  fileSizeLimit?: number;
  /** Seconds an unfinished resumable upload is kept (`Upload-Expires`). Default 24 h. */
  uploadExpiry?: number;
  /** Seconds a signed upload URL is valid. Default 60, as the hosted service. */
  signedUploadExpiry?: number;
}

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /**
   * A project folder in the layout the hosted platform's CLI reads (its `supabase/` folder):
   * `config.toml`, `migrations/`, `seed.sql` (or `[db.seed] sql_paths`), `functions/`. The
   * settings of `config.toml` this server understands are used (see {@link projectOptions});
   * options given here win over them.
   *
   * @example
   * await startServer({ projectDir: 'apps/web/backend', port: 0 });
   */
  projectDir?: string;
  /** TCP port; 0 picks a free one. Default 54321 (or `[api] port` of the project). */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Persistent data (database and stored files); in memory when absent. */
  dataDir?: string;
  /** postgres:// URL of a PostgreSQL server to use instead of embedded PGlite. */
  databaseUrl?: string;
  /** Directory of `*.sql` migrations applied in name order. */
  migrationsDir?: string;
  /** SQL file applied once on a fresh database. */
  seedFile?: string;
  /** Directory of functions (`<name>/index.ts`). */
  functionsDir?: string;
  /** HS256 secret for all JWTs. Default the local tooling's well-known secret. */
  jwtSecret?: string;
  auth?: AuthOptions;
  rest?: RestOptions;
  storage?: StorageOptions;
  realtime?: RealtimeOptions;
  functions?: FunctionsOptions;
  /** Log requests and mails to the console. Default false. */
  log?: boolean;
}

/** Resolved settings every service reads. The one config loader of the server. */
export interface ServerConfig {
  port: number;
  host: string;
  /** Public base URL (set once listening). */
  url: string;
  dataDir: string | null;
  /** The project folder (hosted CLI layout), whose `config.toml` functions settings follow. */
  projectDir: string | null;
  /** Where stored files live: `<dataDir>/storage`, or a temp dir removed on stop. */
  storageDir: string;
  storageDirIsTemp: boolean;
  databaseUrl: string | null;
  migrationsDir: string | null;
  seedFile: string | null;
  functionsDir: string | null;
  jwtSecret: string;
  anonKey: string;
  serviceRoleKey: string;
  auth: Required<Omit<AuthOptions, 'smtpUrl' | 'siteUrl' | 'rateLimits'>> & {
    smtpUrl: string | null;
    siteUrl: string | null;
    rateLimits: AuthRateLimits | false;
  };
  rest: Required<RestOptions>;
  storage: Required<StorageOptions>;
  realtime: Required<RealtimeOptions>;
  functions: {
    wallTimeMs: number;
    memoryLimitMb: number;
    idleTimeoutMs: number;
    cpuTimeMs: number;
    /** Global default (null: not set) and per-name overrides. */
    verifyJwt: { all: boolean | null; byName: Record<string, boolean> };
  };
  log: boolean;
}

export const DEFAULT_RATE_LIMITS: AuthRateLimits = {
  tokenPerIp: 150,
  signupPerIp: 30,
  emailPerAddress: 30,
  otpPerIp: 30,
};

const abs = (path: string | undefined) => (path ? resolve(path) : null);

/** Fills in defaults and derived values (keys, storage dir), after the project's settings. */
export async function resolveConfig(given: StartServerOptions = {}): Promise<ServerConfig> {
  const options = given.projectDir
    ? mergeOptions(await projectOptions(given.projectDir), given)
    : given;
  const jwtSecret = options.jwtSecret ?? DEFAULT_JWT_SECRET;
  if (jwtSecret.length < 32) throw new Error('jwtSecret must be at least 32 characters long');
  const { anonKey, serviceRoleKey } = await createApiKeys(jwtSecret);
  const dataDir = abs(options.dataDir);
  const storageDir = dataDir
    ? join(dataDir, 'storage')
    : await mkdtemp(join(tmpdir(), 'backend-server-storage-'));
  const auth = options.auth ?? {};
  const rateLimits =
    auth.rateLimits === false ? false : { ...DEFAULT_RATE_LIMITS, ...(auth.rateLimits ?? {}) };
  return {
    port: options.port ?? 54321,
    host: options.host ?? '127.0.0.1',
    url: '',
    dataDir,
    projectDir: abs(options.projectDir),
    storageDir,
    storageDirIsTemp: !dataDir,
    databaseUrl: options.databaseUrl ?? null,
    migrationsDir: abs(options.migrationsDir),
    seedFile: abs(options.seedFile),
    functionsDir: abs(options.functionsDir),
    jwtSecret,
    anonKey,
    serviceRoleKey,
    auth: {
      autoconfirm: auth.autoconfirm ?? true,
      passwordMinLength: auth.passwordMinLength ?? 6,
      jwtExpiry: auth.jwtExpiry ?? 3600,
      redirectUrls: auth.redirectUrls ?? [],
      refreshTokenReuseInterval: auth.refreshTokenReuseInterval ?? 10,
      anonymousSignIns: auth.anonymousSignIns ?? true,
      otpExpiry: auth.otpExpiry ?? 3600,
      securePasswordChange: auth.securePasswordChange ?? false,
      smtpUrl: auth.smtpUrl ?? null,
      siteUrl: auth.siteUrl ?? null,
      rateLimits,
    },
    rest: {
      schemas: options.rest?.schemas ?? ['public', 'graphql_public'],
      maxRows: options.rest?.maxRows ?? 1000,
      aggregatesEnabled: options.rest?.aggregatesEnabled ?? false,
    },
    functions: resolveFunctions(options.functions ?? {}),
    realtime: {
      idleTimeoutMs: options.realtime?.idleTimeoutMs ?? 60_000,
      maxPayloadBytes: options.realtime?.maxPayloadBytes ?? 3_000_000,
    },
    storage: {
      fileSizeLimit: options.storage?.fileSizeLimit ?? 50 * 1024 ** 3,
      uploadExpiry: options.storage?.uploadExpiry ?? 24 * 60 * 60,
      signedUploadExpiry: options.storage?.signedUploadExpiry ?? 60,
    },
    log: options.log ?? false,
  };
}

function resolveFunctions(options: FunctionsOptions): ServerConfig['functions'] {
  const wallTimeMs = options.wallTimeMs ?? 150_000;
  const memoryLimitMb = options.memoryLimitMb ?? 256;
  if (!(wallTimeMs > 0)) throw new Error('functions.wallTimeMs must be a positive number');
  if (!(memoryLimitMb >= 16)) throw new Error('functions.memoryLimitMb must be at least 16');
  const idleTimeoutMs = options.idleTimeoutMs ?? 300_000;
  if (!(idleTimeoutMs > 0)) throw new Error('functions.idleTimeoutMs must be a positive number');
  const cpuTimeMs = options.cpuTimeMs ?? 10_000;
  if (!(cpuTimeMs >= 100)) throw new Error('functions.cpuTimeMs must be at least 100');
  const verify = options.verifyJwt;
  return {
    wallTimeMs,
    memoryLimitMb,
    idleTimeoutMs,
    cpuTimeMs,
    verifyJwt:
      typeof verify === 'boolean'
        ? { all: verify, byName: {} }
        : { all: null, byName: { ...(verify ?? {}) } },
  };
}

/** Explicit options over a project's: top-level values, and the keys of each group. */
function mergeOptions(base: StartServerOptions, over: StartServerOptions): StartServerOptions {
  const merged: StartServerOptions = { ...base, ...over };
  for (const group of ['auth', 'rest', 'storage', 'realtime', 'functions'] as const) {
    if (base[group] || over[group])
      Object.assign(merged, { [group]: { ...base[group], ...over[group] } });
  }
  return merged;
}

type Table = Record<string, unknown>;

/**
 * Parses a hosted CLI `config.toml`: TOML, with `"env(NAME)"` strings replaced by that
 * environment variable (absent when it is not set). Throws naming the file on a syntax error.
 */
export function parseProjectToml(text: string, source = 'config.toml'): Table {
  let parsed: Table;
  try {
    parsed = parseToml(text) as Table;
  } catch (error) {
    throw new Error(`${source}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const substitute = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const name = /^env\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)$/.exec(value)?.[1];
      return name ? process.env[name] : value;
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
 * The options a project folder (hosted CLI layout) gives: its `migrations/`, `functions/`
 * and seed file, and the `config.toml` settings this server understands — `[api] port`,
 * `schemas`, `max_rows`; `[db.migrations] enabled`; `[db.seed] enabled`, `sql_paths` (one
 * file); `[auth] site_url`, `additional_redirect_urls`, `jwt_expiry`,
 * `refresh_token_reuse_interval`, `enable_anonymous_sign_ins`, `minimum_password_length`;
 * `[auth.email] enable_confirmations`, `secure_password_change`, `otp_expiry`;
 * `[auth.rate_limit] sign_in_sign_ups`, `token_verifications`, `email_sent`;
 * `[storage] file_size_limit`; `[functions.<name>] verify_jwt` (read while running). Other
 * keys are ignored.
 */
export async function projectOptions(dir: string): Promise<StartServerOptions> {
  const root = resolve(dir);
  if (!existsSync(root)) throw new Error(`Project folder ${root} does not exist`);
  const file = join(root, 'config.toml');
  const toml = existsSync(file) ? parseProjectToml(await readFile(file, 'utf8'), file) : {};
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
    const paths = get<string[]>('db.seed.sql_paths', 'array') ?? ['./seed.sql'];
    if (paths.length > 1)
      throw new Error(`${file}: db.seed.sql_paths: this server applies one seed file`);
    const seed = paths[0] ? resolve(root, paths[0]) : null;
    if (seed && existsSync(seed)) options.seedFile = seed;
  }
  if (existsSync(join(root, 'functions'))) options.functionsDir = join(root, 'functions');
  const confirmations = get<boolean>('auth.email.enable_confirmations', 'boolean');
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
    redirectUrls: get<string[]>('auth.additional_redirect_urls', 'array'),
    jwtExpiry: get<number>('auth.jwt_expiry', 'number'),
    refreshTokenReuseInterval: get<number>('auth.refresh_token_reuse_interval', 'number'),
    anonymousSignIns: get<boolean>('auth.enable_anonymous_sign_ins', 'boolean'),
    passwordMinLength: get<number>('auth.minimum_password_length', 'number'),
    autoconfirm: confirmations === undefined ? undefined : !confirmations,
    securePasswordChange: get<boolean>('auth.email.secure_password_change', 'boolean'),
    otpExpiry: get<number>('auth.email.otp_expiry', 'number'),
    rateLimits,
  });
  const size = (toml.storage as Table | undefined)?.file_size_limit;
  if (rest) options.rest = rest;
  if (auth) options.auth = auth;
  if (size !== undefined) {
    options.storage = {
      fileSizeLimit: sizeInBytes(size as string | number, 'storage.file_size_limit'),
    };
  }
  return options;
}
