/**
 * The options of `startServer` (and of a project's `config.toml`), as callers give them; the
 * settings every service reads after defaults are filled in are `ServerConfig` (server-config.ts).
 */
import type { SigningKeyJwk } from '../http/signing-keys';
import type { ThirdPartyAuthOptions } from '../http/third-party';
import type { HookOptions } from './auth-hooks';
import type { ExternalOptions } from './external-providers';
import type { OAuthServerOptions } from './oauth-server';
import type { MfaOptions, SmsOptions } from './sms-mfa';
import type { StorageOptions } from './storage-options';
import type { PasskeyOptions, WebAuthnOptions } from './webauthn';

export type {
  BucketOptions,
  ImageTransformationOptions,
  S3ProtocolOptions,
  S3StorageOptions,
  StorageOptions,
} from './storage-options';

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
  /** Phone sign-ups and sign-ins by SMS code (see {@link SmsOptions}). */
  sms?: SmsOptions;
  /** Multi-factor authentication (see {@link MfaOptions}). */
  mfa?: MfaOptions;
  /** Passkey sign-in and registration (see {@link PasskeyOptions}). */
  passkey?: PasskeyOptions;
  /**
   * The OAuth 2.1 authorization server: other apps sign their users in with this project's
   * auth (see {@link OAuthServerOptions}).
   *
   * @example
   * startServer({ auth: { oauthServer: { enabled: true, authorizationUrlPath: '/oauth/consent' } } });
   */
  oauthServer?: OAuthServerOptions;
  /** The WebAuthn relying party of passkeys and WebAuthn factors (see {@link WebAuthnOptions}). */
  webauthn?: WebAuthnOptions;
  /**
   * No new users through sign-up, anonymous sign-in or OTP / magic link (GoTrue's
   * `DISABLE_SIGNUP`): 422 `signup_disabled`. The admin API still creates and invites users.
   * Default false.
   *
   * @example
   * startServer({ auth: { disableSignup: true } });
   */
  disableSignup?: boolean;
  /**
   * Sign-in with external providers: named ones (`github`, `google`, `gitlab`, `discord`) by
   * client id and secret, and OpenID Connect providers as `custom:<id>` by issuer (discovery,
   * keys and ID-token checks). `signInWithOAuth` (PKCE and implicit) and, for OIDC providers
   * and Google, `signInWithIdToken`.
   *
   * @example
   * startServer({ auth: { external: {
   *   github: { clientId: 'Iv1.abc', secret: process.env.GITHUB_SECRET },
   *   'custom:acme': { issuer: 'https://id.acme.test', clientId: 'drive', secret: '…' },
   * } } });
   */
  external?: ExternalOptions;
  /**
   * Manual identity linking (`linkIdentity`, `unlinkIdentity`; the hosted
   * `enable_manual_linking`). Default false, as hosted: the identity routes answer 404
   * "Manual linking is disabled".
   *
   * @example
   * startServer({ auth: { manualLinking: true } });
   */
  manualLinking?: boolean;
  /**
   * The emulated provider, for local work (as the Firebase Auth emulator has): each configured
   * provider's authorize step is a local page where you pick an earlier identity or type a
   * new one (email, name, avatar), then the sign-in goes on through the real callback (state,
   * PKCE, identities). No client id or secret needed. Refused unless the server listens on a
   * loopback address. Default false.
   *
   * @example
   * startServer({ auth: { emulateProviders: true, external: { github: {}, google: {} } } });
   */
  emulateProviders?: boolean;
  /**
   * Auth hooks, as the hosted `[auth.hook.*]` settings have them (see {@link HookOptions}):
   * `customAccessToken`, `sendEmail`, `sendSms`, `beforeUserCreated`,
   * `mfaVerificationAttempt`, `passwordVerificationAttempt`. Each is a Postgres function
   * (`pg-functions://postgres/<schema>/<function>`, run as `supabase_auth_admin`) or an
   * HTTP(S) endpoint signed as Standard Webhooks with `secrets` (`v1,whsec_<base64>`).
   * Payloads, answers and errors are GoTrue's (README "Auth hooks").
   *
   * @example
   * startServer({ auth: { hooks: {
   *   customAccessToken: 'pg-functions://postgres/public/custom_access_token_hook',
   *   sendEmail: { uri: 'https://mail.example.com/hook', secrets: process.env.SEND_EMAIL_HOOK_SECRETS },
   *   beforeUserCreated: { uri: 'pg-functions://postgres/public/before_user_created' },
   * } } });
   */
  hooks?: HookOptions;
  /**
   * Third-party auth, as the hosted `[auth.third_party.*]` integrations: REST, storage,
   * realtime and functions also accept tokens whose `iss` is an enabled issuer, verified
   * against the keys its OpenID discovery document publishes (cached, see
   * {@link ThirdPartyAuthOptions}). The auth endpoints refuse them, as hosted. The role is
   * the token's `role` claim (the providers' guides add `role: 'authenticated'`; without
   * one the request runs as `anon`); `service_role` is refused.
   *
   * @example
   * startServer({ auth: { thirdParty: {
   *   firebase: { projectId: 'my-firebase-project' },
   *   clerk: { domain: 'example.clerk.accounts.dev' },
   * } } });
   */
  thirdParty?: ThirdPartyAuthOptions;
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
  /** SMS sent per hour, all numbers together (the hosted `sms_sent`); test OTPs and autoconfirm are not counted. */
  smsSent: number;
  /** MFA challenge requests, and verify requests, per IP per minute (each counted apart). */
  mfaPerIp: number;
  /** Passkey sign-in challenges (`POST /passkeys/authentication/options`) per IP per 5 minutes. */
  passkeyPerIp: number;
}

/** REST (PostgREST) settings. */
export interface RestOptions {
  /** Exposed schemas; the first is the default. Default ['public', 'graphql_public']. */
  schemas?: string[];
  /** Maximum rows a response returns. Default 1000. */
  maxRows?: number;
  /** Aggregate functions in `select`. Default false. */
  aggregatesEnabled?: boolean;
  /**
   * `Accept: application/vnd.pgrst.plan…` answers the EXPLAIN plan (postgrest-js
   * `.explain()`). Default false, as on the hosted backend.
   */
  planEnabled?: boolean;
  /**
   * How transactions end: `commit` (default; `Prefer: tx=rollback` is ignored, as on the
   * hosted backend), `commit-allow-override` (postgrest-js `.rollback()` works), `rollback`,
   * `rollback-allow-override`.
   */
  txEnd?: 'commit' | 'commit-allow-override' | 'rollback' | 'rollback-allow-override';
  /** Schemas searched after the request's own. Default ['public', 'extensions']. */
  extraSearchPath?: string[];
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
  /**
   * Secrets every function's `Deno.env` carries, as `supabase secrets set` gives them on a
   * hosted project (e.g. `{ DRIVE_SITE_URL: 'http://127.0.0.1:5173' }`). They win over
   * the env file (`envFile`, else `<functionsDir>/.env`), which wins over the project's
   * `[edge_runtime.secrets]`; names starting with `SUPABASE_` are reserved and refused.
   */
  env?: Record<string, string>;
  /**
   * The functions' env file (dotenv format) instead of `<functionsDir>/.env`, as the hosted
   * CLI's `functions serve --env-file`. Read again when it changes; names starting with
   * `SUPABASE_` are skipped.
   *
   * @example
   * startServer({ projectDir: 'backend', functions: { envFile: 'backend/.env.test' } });
   */
  envFile?: string;
}

/** Realtime (Phoenix channels) settings. */
export interface RealtimeOptions {
  /** Close a socket after this long without any frame from the client. Default 60000 ms. */
  idleTimeoutMs?: number;
  /** Largest broadcast payload in bytes (hosted default 3000 KB). */
  maxPayloadBytes?: number;
}

/** The local console at `/_console` (see the README's "Console" section). */
export interface ConsoleOptions {
  /** Serve the console at all. Default true. */
  enabled?: boolean;
  /**
   * Serve it when the server listens on an address other than loopback. Refused unless a
   * `password` is set too. Default false.
   */
  remote?: boolean;
  /** Password that unlocks the console from any address (needed with `remote`). */
  password?: string;
  /**
   * The console's own secret (default: random, printed in the start banner's links; on
   * PostgreSQL one made by the first replica and kept in the database, so every replica
   * accepts it).
   */
  token?: string;
  /** The built console app (default: `apps/console/dist` of this repository, when built). */
  assetsDir?: string;
  /** Entries the live log keeps in memory. Default 5000. */
  logCapacity?: number;
}

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /**
   * A project folder in the layout the hosted platform's CLI reads (its `supabase/` folder):
   * `config.toml`, `migrations/`, `seed.sql` (or `[db.seed] sql_paths`), `functions/`. The
   * settings of `config.toml` this server understands are used (see `projectOptions` in
   * config/project-toml.ts); options given here win over them.
   *
   * @example
   * await startServer({ projectDir: 'apps/web/backend', port: 0 });
   */
  projectDir?: string;
  /** TCP port; 0 picks a free one. Default 54321 (or `[api] port` of the project). */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /**
   * The URL clients reach the server at, when that is not its own address: a load
   * balancer's in front of replicas. Used in what the server hands out — functions'
   * `SUPABASE_URL` (so their signed URLs lead through the balancer), links in auth mails,
   * OAuth callbacks, the tokens' issuer, the console link, `RunningServer.url`. Default
   * `http://<host>:<port>`.
   *
   * @example
   * startServer({ databaseUrl, host: '0.0.0.0', publicUrl: 'https://api.example.com' });
   */
  publicUrl?: string;
  /** Persistent data (database and stored files); in memory when absent. */
  dataDir?: string;
  /** postgres:// URL of a PostgreSQL server to use instead of embedded PGlite. */
  databaseUrl?: string;
  /**
   * `databaseUrl` goes through a connection pooler in transaction mode (PgBouncer
   * `pool_mode = transaction`, or a hosted pooler's transaction-mode port), which lends a
   * server connection for one transaction at a time. The server then sends no named
   * prepared statements and keeps no session state on pooled connections; what holds a
   * session (LISTEN for realtime, cron, pg_net and the schema cache, the tus upload locks)
   * connects to `directUrl`, the database itself.
   *
   * @example
   * startServer({
   *   databaseUrl: 'postgres://app@pgbouncer:6432/app',
   *   databasePooler: { mode: 'transaction', directUrl: 'postgres://app@db:5432/app' },
   * });
   */
  databasePooler?: { mode: 'transaction'; directUrl: string };
  /**
   * Vault's root key, 64 hex digits. Default: kept in `<dataDir>/vault.key` (made at the
   * first start), or random for a server without a data directory. Never stored in the
   * database: a dump or export holds ciphertext only.
   */
  vaultKey?: string;
  /** Directory of `*.sql` migrations applied in name order. */
  migrationsDir?: string;
  /**
   * SQL seed file, or files applied in order, once on a fresh database (each in the same
   * transaction, recorded in `supabase_migrations.seeds`). A project's `[db.seed] sql_paths`
   * gives the list; this option wins over it.
   *
   * @example
   * startServer({ seedFile: ['backend/seeds/01_users.sql', 'backend/seeds/02_files.sql'] });
   */
  seedFile?: string | readonly string[];
  /** Directory of functions (`<name>/index.ts`). */
  functionsDir?: string;
  /**
   * The legacy JWT secret (HS256): signs the legacy `anon` and `service_role` API keys, and
   * user tokens too while no signing key is current. Default the local tooling's well-known
   * secret.
   */
  jwtSecret?: string;
  /**
   * JWT signing keys, as a JWK list in the format of GoTrue's `GOTRUE_JWT_KEYS` (what
   * `backend-server gen signing-key` prints): EC P-256 (ES256), RSA (RS256) or shared secrets
   * (`kty: "oct"`, HS256), each with a `kid`. A key's `status` (`current`, `standby`,
   * `previous`, `revoked`) is as the hosted dashboard shows it; without one, the key whose
   * `key_ops` contains `sign` is current and the others are previous. The current key signs
   * user tokens; current and previous keys verify them; the public keys are served at
   * `/auth/v1/.well-known/jwks.json`. Without a current key, the legacy secret signs.
   *
   * @example
   * startServer({ signingKeys: [JSON.parse(readFileSync('signing_key.json', 'utf8'))] });
   */
  signingKeys?: SigningKeyJwk[];
  /**
   * Publishable keys (`sb_publishable_…`, the `anon` role). Default the local tooling's
   * well-known one.
   *
   * @example
   * startServer({ publishableKeys: ['sb_publishable_…'] });
   */
  publishableKeys?: string[];
  /**
   * Secret keys (`sb_secret_…`, the `service_role` role; refused from browsers). Default the
   * local tooling's well-known one.
   */
  secretKeys?: string[];
  auth?: AuthOptions;
  rest?: RestOptions;
  storage?: StorageOptions;
  realtime?: RealtimeOptions;
  functions?: FunctionsOptions;
  console?: ConsoleOptions;
  /**
   * An export (`backend-server export`: a folder, or a `.tar` file) loaded into the database
   * at start, replacing its project data and stored files, before migrations run (the
   * Firebase emulators' `--import`).
   *
   * @example
   * await startServer({ dataDir: '.data', importFile: 'backup' });
   */
  importFile?: string;
  /** Log requests and mails to the console. Default false. */
  log?: boolean;
  /**
   * Load balancers and reverse proxies in front of the server, as IP addresses or CIDR
   * ranges. A request whose socket peer is one of them is taken to come from the address
   * its `X-Forwarded-For` names (the right-most one that is not itself a trusted proxy);
   * any other request comes from its socket's address, and its `X-Forwarded-For` is
   * ignored. The client address keys the auth rate limits. Default none.
   *
   * @example
   * startServer({ databaseUrl, trustedProxies: ['10.0.0.0/8', '::1'] });
   */
  trustedProxies?: string[];
}
