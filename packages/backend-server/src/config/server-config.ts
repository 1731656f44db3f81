/**
 * The resolved settings every service reads (`ServerConfig`), after `resolveConfig`
 * (resolve.ts) has filled in defaults and derived values.
 */
import type { TrustedProxies } from '../http/client-address';
import type { SigningKeys } from '../http/signing-keys';
import type { S3BackendSettings } from '../storage/backends/s3';
import type { ResolvedHooks } from './auth-hooks';
import type { ResolvedExternal } from './external-providers';
import type { ResolvedOAuthServer } from './oauth-server';
import type {
  AuthOptions,
  AuthRateLimits,
  BucketOptions,
  ImageTransformationOptions,
  RealtimeOptions,
  RestOptions,
  S3ProtocolOptions,
  StorageOptions,
} from './options';
import type { ResolvedMfa, ResolvedSms } from './sms-mfa';
import type { ResolvedPasskey, ResolvedWebAuthn } from './webauthn';

/** Resolved settings every service reads, from `resolveConfig`, the server's one config loader. */
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
  /** `databaseUrl` is a transaction-mode pooler's; `directUrl` the database itself. */
  databasePooler: { mode: 'transaction'; directUrl: string } | null;
  migrationsDir: string | null;
  /** Seed files in the order they run (empty: no seed). */
  seedFiles: string[];
  functionsDir: string | null;
  jwtSecret: string;
  /** Peers whose `X-Forwarded-For` names the client (`trustedProxies`). */
  trustedProxies: TrustedProxies;
  /** The signing keys every service verifies with (shared, so rotations reach all). */
  signingKeys: SigningKeys;
  anonKey: string;
  serviceRoleKey: string;
  /** Publishable keys (the first is the one printed and returned). */
  publishableKeys: string[];
  /** Secret keys (the first is the one printed and returned). */
  secretKeys: string[];
  auth: Required<
    Omit<
      AuthOptions,
      | 'smtpUrl'
      | 'siteUrl'
      | 'rateLimits'
      | 'hooks'
      | 'sms'
      | 'mfa'
      | 'passkey'
      | 'oauthServer'
      | 'webauthn'
      | 'external'
      | 'manualLinking'
      | 'emulateProviders'
      | 'thirdParty'
    >
  > & {
    smtpUrl: string | null;
    siteUrl: string | null;
    rateLimits: AuthRateLimits | false;
    /** The enabled auth hooks, checked. */
    hooks: ResolvedHooks;
    sms: ResolvedSms;
    mfa: ResolvedMfa;
    passkey: ResolvedPasskey;
    oauthServer: ResolvedOAuthServer;
    webauthn: ResolvedWebAuthn;
    /** External providers, manual linking and the emulated provider. */
    external: ResolvedExternal;
  };
  rest: Required<RestOptions>;
  storage: Required<
    Omit<
      StorageOptions,
      'imageTransformation' | 'buckets' | 'directory' | 's3Protocol' | 'backend' | 's3'
    >
  > & {
    /** The S3 backend's bucket, or null for the file backend. */
    s3: S3BackendSettings | null;
    imageTransformation: Required<ImageTransformationOptions>;
    /** The S3 protocol (`/storage/v1/s3`), defaults filled in. */
    s3Protocol: Required<S3ProtocolOptions>;
    /** Buckets made or updated at start (absolute `objectsPath`). */
    buckets: Record<string, BucketOptions>;
  };
  realtime: Required<RealtimeOptions>;
  functions: {
    wallTimeMs: number;
    memoryLimitMb: number;
    idleTimeoutMs: number;
    cpuTimeMs: number;
    /** Global default (null: not set) and per-name overrides. */
    verifyJwt: { all: boolean | null; byName: Record<string, boolean> };
    /** Secrets for every function's env (over the env file). */
    env: Record<string, string>;
    /** The env file given (`functions.envFile`), else null: `<functionsDir>/.env`. */
    envFile: string | null;
  };
  console: {
    enabled: boolean;
    remote: boolean;
    password: string | null;
    token: string;
    /** True when `console.token` was given; otherwise replicas on PostgreSQL share one. */
    tokenConfigured: boolean;
    assetsDir: string | null;
    logCapacity: number;
  };
  log: boolean;
}
