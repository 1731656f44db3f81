/**
 * The server's one config loader: `resolveConfig` turns `startServer`'s options (after a
 * project folder's `config.toml`) into the `ServerConfig` every service reads.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TrustedProxies } from '../http/client-address';
import { SigningKeys } from '../http/signing-keys';
import { ThirdPartyAuth } from '../http/third-party';
import { resolveHooks } from './auth-hooks';
import { resolveExternal } from './external-providers';
import {
  checkOpaqueKey,
  createApiKeys,
  DEFAULT_JWT_SECRET,
  DEFAULT_PUBLISHABLE_KEY,
  DEFAULT_S3_ACCESS_KEY_ID,
  DEFAULT_S3_SECRET_ACCESS_KEY,
  DEFAULT_SECRET_KEY,
} from './keys';
import { resolveOAuthServer } from './oauth-server';
import type {
  AuthRateLimits,
  BucketOptions,
  ConsoleOptions,
  FunctionsOptions,
  ImageTransformationOptions,
  S3ProtocolOptions,
  StartServerOptions,
  StorageOptions,
} from './options';
import { mergeOptions, projectOptions } from './project-toml';
import type { ServerConfig } from './server-config';
import { resolveMfa, resolveSms } from './sms-mfa';
import { resolvePasskey, resolveWebAuthn } from './webauthn';

export const DEFAULT_RATE_LIMITS: AuthRateLimits = {
  tokenPerIp: 150,
  signupPerIp: 30,
  emailPerAddress: 30,
  otpPerIp: 30,
  smsSent: 30,
  mfaPerIp: 15,
  passkeyPerIp: 30,
};

const abs = (path: string | undefined) => (path ? resolve(path) : null);

function resolveImageTransformation(
  o: ImageTransformationOptions,
): Required<ImageTransformationOptions> {
  return {
    enabled: o.enabled ?? true,
    maxSourceBytes: o.maxSourceBytes ?? 25_000_000,
    maxSourcePixels: o.maxSourcePixels ?? 50_000_000,
    maxDimension: o.maxDimension ?? 2500,
    timeoutSeconds: o.timeoutSeconds ?? 30,
    cacheBytes: o.cacheBytes ?? 1024 ** 3,
  };
}

/** Fills in defaults and derived values (keys, storage dir), after the project's settings. */
export async function resolveConfig(given: StartServerOptions = {}): Promise<ServerConfig> {
  const options = given.projectDir
    ? mergeOptions(await projectOptions(given.projectDir), given)
    : given;
  const jwtSecret = options.jwtSecret ?? DEFAULT_JWT_SECRET;
  if (jwtSecret.length < 32) throw new Error('jwtSecret must be at least 32 characters long');
  const { anonKey, serviceRoleKey } = await createApiKeys(jwtSecret);
  const signingKeys = new SigningKeys(jwtSecret, options.signingKeys ?? []);
  if (options.auth?.thirdParty) {
    const thirdParty = new ThirdPartyAuth(options.auth.thirdParty);
    if (thirdParty.size > 0) signingKeys.thirdParty = thirdParty;
  }
  const publishableKeys = (options.publishableKeys ?? [DEFAULT_PUBLISHABLE_KEY]).map((k) =>
    checkOpaqueKey(k, 'publishable'),
  );
  const secretKeys = (options.secretKeys ?? [DEFAULT_SECRET_KEY]).map((k) =>
    checkOpaqueKey(k, 'secret'),
  );
  const dataDir = abs(options.dataDir);
  const storageDir =
    abs(options.storage?.directory) ??
    (dataDir ? join(dataDir, 'storage') : await mkdtemp(join(tmpdir(), 'backend-server-storage-')));
  const auth = options.auth ?? {};
  const rateLimits =
    auth.rateLimits === false ? false : { ...DEFAULT_RATE_LIMITS, ...(auth.rateLimits ?? {}) };
  const host = options.host ?? '127.0.0.1';
  return {
    port: options.port ?? 54321,
    host,
    url: publicUrl(options.publicUrl),
    dataDir,
    projectDir: abs(options.projectDir),
    storageDir,
    storageDirIsTemp: !dataDir && !options.storage?.directory,
    databaseUrl: options.databaseUrl ?? null,
    databasePooler: resolvePooler(options),
    migrationsDir: abs(options.migrationsDir),
    seedFiles: seedList(options.seedFile),
    functionsDir: abs(options.functionsDir),
    jwtSecret,
    signingKeys,
    trustedProxies: new TrustedProxies(options.trustedProxies ?? []),
    anonKey,
    serviceRoleKey,
    publishableKeys,
    secretKeys,
    auth: {
      autoconfirm: auth.autoconfirm ?? true,
      passwordMinLength: auth.passwordMinLength ?? 6,
      jwtExpiry: auth.jwtExpiry ?? 3600,
      redirectUrls: auth.redirectUrls ?? [],
      refreshTokenReuseInterval: auth.refreshTokenReuseInterval ?? 10,
      anonymousSignIns: auth.anonymousSignIns ?? true,
      otpExpiry: auth.otpExpiry ?? 3600,
      securePasswordChange: auth.securePasswordChange ?? false,
      disableSignup: auth.disableSignup ?? false,
      hooks: resolveHooks(auth.hooks),
      smtpUrl: auth.smtpUrl ?? null,
      siteUrl: auth.siteUrl ?? null,
      rateLimits,
      sms: resolveSms(auth.sms),
      mfa: resolveMfa(auth.mfa),
      passkey: resolvePasskey(auth.passkey),
      oauthServer: resolveOAuthServer(auth.oauthServer),
      webauthn: resolveWebAuthn(auth.webauthn),
      external: resolveExternal(auth.external, {
        manualLinking: auth.manualLinking,
        emulate: auth.emulateProviders,
        host,
      }),
    },
    rest: {
      schemas: options.rest?.schemas ?? ['public', 'graphql_public'],
      maxRows: options.rest?.maxRows ?? 1000,
      aggregatesEnabled: options.rest?.aggregatesEnabled ?? false,
      planEnabled: options.rest?.planEnabled ?? false,
      txEnd: options.rest?.txEnd ?? 'commit',
      extraSearchPath: options.rest?.extraSearchPath ?? ['public', 'extensions'],
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
      imageTransformation: resolveImageTransformation(options.storage?.imageTransformation ?? {}),
      buckets: resolveBuckets(options.storage?.buckets ?? {}),
      s3Protocol: resolveS3Protocol(options.storage?.s3Protocol ?? {}),
      s3: resolveS3(options.storage ?? {}),
    },
    console: resolveConsole(options.console ?? {}),
    log: options.log ?? false,
  };
}

function resolveS3Protocol(options: S3ProtocolOptions): ServerConfig['storage']['s3Protocol'] {
  const out = {
    enabled: options.enabled ?? true,
    region: options.region ?? 'local',
    accessKeyId: options.accessKeyId ?? DEFAULT_S3_ACCESS_KEY_ID,
    secretAccessKey: options.secretAccessKey ?? DEFAULT_S3_SECRET_ACCESS_KEY,
  };
  for (const [name, value] of Object.entries(out)) {
    if (name !== 'enabled' && (typeof value !== 'string' || value === '' || /[/\s]/.test(value))) {
      throw new Error(
        `storage.s3Protocol.${name} must be a non-empty string without spaces or '/'`,
      );
    }
  }
  return out;
}

/** The S3 backend's settings (`storage.backend: 's3'`), or null for the file backend. */
export function resolveS3(options: StorageOptions): ServerConfig['storage']['s3'] {
  const backend = options.backend ?? 'file';
  if (backend !== 'file' && backend !== 's3')
    throw new Error(`storage.backend must be 'file' or 's3', not ${JSON.stringify(backend)}`);
  if (backend === 'file') return null;
  const s3 = options.s3;
  if (!s3?.bucket) throw new Error("storage.backend 's3' needs storage.s3.bucket");
  if (!s3.accessKeyId !== !s3.secretAccessKey)
    throw new Error('storage.s3: give both accessKeyId and secretAccessKey, or neither');
  return {
    bucket: s3.bucket,
    endpoint: s3.endpoint ?? null,
    region: s3.region ?? 'us-east-1',
    forcePathStyle: s3.forcePathStyle ?? false,
    accessKeyId: s3.accessKeyId ?? null,
    secretAccessKey: s3.secretAccessKey ?? null,
  };
}

function resolveConsole(options: ConsoleOptions): ServerConfig['console'] {
  const logCapacity = options.logCapacity ?? 5000;
  if (!(Number.isInteger(logCapacity) && logCapacity >= 1))
    throw new Error('console.logCapacity must be a positive integer');
  if (options.token !== undefined && options.token.length < 16)
    throw new Error('console.token must be at least 16 characters long');
  return {
    enabled: options.enabled ?? true,
    remote: options.remote ?? false,
    password: options.password || null,
    token: options.token ?? randomBytes(24).toString('base64url'),
    tokenConfigured: options.token !== undefined,
    assetsDir: abs(options.assetsDir),
    logCapacity,
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
  const env = { ...(options.env ?? {}) };
  for (const [key, value] of Object.entries(env)) {
    if (key.startsWith('SUPABASE_')) throw new Error(`functions.env: ${key} is reserved`);
    if (typeof value !== 'string') throw new Error(`functions.env: ${key} must be a string`);
  }
  return {
    wallTimeMs,
    memoryLimitMb,
    idleTimeoutMs,
    cpuTimeMs,
    verifyJwt:
      typeof verify === 'boolean'
        ? { all: verify, byName: {} }
        : { all: null, byName: { ...(verify ?? {}) } },
    env,
    envFile: abs(options.envFile),
  };
}

/** `seedFile`: one file or a list, as absolute paths. */
function seedList(given: StartServerOptions['seedFile']): string[] {
  const list = typeof given === 'string' ? [given] : [...(given ?? [])];
  return list.map((file) => resolve(file));
}

/** `storage.buckets`, checked, with absolute `objectsPath`s. */
function resolveBuckets(buckets: Record<string, BucketOptions>): Record<string, BucketOptions> {
  const out: Record<string, BucketOptions> = {};
  for (const [name, b] of Object.entries(buckets)) {
    const key = `storage.buckets.${name}`;
    const limit = b.fileSizeLimit;
    if (limit !== undefined && limit !== null && !(Number.isSafeInteger(limit) && limit >= 0))
      throw new Error(`${key}.fileSizeLimit must be a number of bytes`);
    const mimes = b.allowedMimeTypes;
    if (mimes !== undefined && mimes !== null && !Array.isArray(mimes))
      throw new Error(`${key}.allowedMimeTypes must be a list of MIME types`);
    const objectsPath = b.objectsPath ? resolve(b.objectsPath) : undefined;
    if (objectsPath && !existsSync(objectsPath))
      throw new Error(`${key}.objectsPath: ${objectsPath} does not exist`);
    out[name] = { ...b, ...(objectsPath ? { objectsPath } : {}) };
  }
  return out;
}

function resolvePooler(options: StartServerOptions): ServerConfig['databasePooler'] {
  const pooler = options.databasePooler;
  if (!pooler) return null;
  if (!options.databaseUrl) throw new Error("databasePooler needs databaseUrl (the pooler's URL)");
  if (pooler.mode !== 'transaction') throw new Error("databasePooler.mode must be 'transaction'");
  if (!/^postgres(ql)?:\/\//.test(pooler.directUrl ?? '')) {
    throw new Error('databasePooler.directUrl must be a postgres:// URL');
  }
  return { mode: 'transaction', directUrl: pooler.directUrl };
}

/** `publicUrl` without a trailing slash; '' (the server's own address, once listening) when absent. */
function publicUrl(url: string | undefined): string {
  if (url === undefined) return '';
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {}
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    throw new Error(`publicUrl must be an http(s) URL, not "${url}"`);
  return url.replace(/\/+$/, '');
}
