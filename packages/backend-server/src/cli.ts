import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  createApiKeys,
  DEFAULT_JWT_SECRET,
  DEFAULT_PUBLISHABLE_KEY,
  DEFAULT_SECRET_KEY,
  generateSigningKey,
} from './config/keys';
import type { StorageOptions } from './config/storage-options';
import { checkVaultKey } from './config/vault-key';
import { DATA_COMMANDS } from './data/commands';
import type { SigningKeyJwk } from './http/signing-keys';
import { startServer } from './server';

const HELP = `backend-server — a Supabase-compatible backend in one Node process

Usage:
  backend-server start [options]         start the server
  backend-server keys [--jwt-secret S]   print the API keys: anon and service_role (JWTs of
                                         the secret), publishable and secret
  backend-server gen types [--schema S]… [--database-url URL | --migrations DIR]
                                         print the TypeScript Database type
  backend-server gen signing-key [--algorithm ES256|RS256] [--append FILE]
                                         print a new private JWT signing key (JWK), or add
                                         it to the JSON list in FILE (for --signing-keys)
  backend-server extensions install DIR  write the extensions the server provides (pgmq, pg_cron, pg_net)
                                         into a PostgreSQL server's share/extension DIR
                                         (\`pg_config --sharedir\`/extension), where it runs
  backend-server --help                  show this help

Options of start:
  --project DIR         a project in the hosted CLI layout: DIR/config.toml, DIR/migrations,
                        DIR/seed.sql, DIR/functions (the flags below win over config.toml)
  --port N              TCP port (default 54321; 0 = any free port)
  --host H              interface to listen on (default 127.0.0.1)
  --public-url URL      where clients reach this server (a load balancer's), in links it hands out
  --data-dir DIR        keep the database and stored files in DIR (default: in memory)
  --database-url URL    use this PostgreSQL server (postgres://…) instead of embedded PGlite
  --direct-url URL      --database-url is a transaction-mode pooler's (PgBouncer); URL reaches
                        the database itself, for LISTEN and the tus upload locks
  --storage-dir DIR     keep stored files in DIR (shared by replicas; default under --data-dir)
  --storage-backend B   where object bytes live: file (the storage directory) or s3
  --s3-bucket NAME      the bucket of --storage-backend s3 (it must exist); credentials from
                        AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (the AWS SDK's chain)
  --s3-endpoint URL     the S3 service's URL (default AWS's for the region)
  --s3-region R         its region (default us-east-1)
  --s3-force-path-style the bucket in the path, not the host name (radosgw, MinIO)
  --migrations DIR      apply DIR/*.sql in name order, once each
  --seed FILE           SQL applied once, on a fresh database (repeat for several, in order)
  --functions DIR       serve DIR/<name>/index.ts at /functions/v1/<name>
  --env-file FILE       the functions' env (dotenv) instead of DIR/.env of --functions
  --jwt-secret S        legacy HS256 secret (default: the local tooling's secret)
  --signing-keys FILE   JWT signing keys: a JSON list of JWKs (gen signing-key --append)
  --vault-key-file FILE Vault's key, 64 hex digits (default: DIR/vault.key of --data-dir)
  --disable-signup      no new users through sign-up, anonymous sign-in or OTP
  --password-min N      minimum password length (default 6)
  --no-autoconfirm      require email confirmation on sign-up
  --no-rate-limits      turn auth rate limits off
  --smtp-url URL        send mail through this SMTP server (smtp://…) besides the outbox
  --site-url URL        where links in mails lead (default the server URL)
  --log                 log requests and mails
  --trusted-proxy ADDR  a load balancer's address or CIDR range (repeat for several): its
                        X-Forwarded-For names the client (rate limits are per client)
  --no-console          do not serve the console at /_console
  --console-remote      serve the console on a non-loopback --host too (needs --console-password)
  --console-password P  password that unlocks the console from another machine
  --import PATH         load this export (a folder or a .tar, backend-server export) at start
  --export-on-exit PATH export the database and stored files when stopped: a folder (fast),
                        or one tar file if PATH ends in .tar
  -h, --help            show this help

Data commands (see backend-server db --help):
  backend-server db dump | db reset | db test | migration new NAME | export PATH | import PATH
  backend-server s3-keys list | s3-keys create [--description TEXT] | s3-keys delete ID
  backend-server signing-keys list | add [--algorithm ES256|RS256] | rotate [KID] | revoke KID
`;

const OPTIONS = {
  project: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'public-url': { type: 'string' },
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  'direct-url': { type: 'string' },
  'storage-dir': { type: 'string' },
  'storage-backend': { type: 'string' },
  's3-bucket': { type: 'string' },
  's3-endpoint': { type: 'string' },
  's3-region': { type: 'string' },
  's3-force-path-style': { type: 'boolean' },
  migrations: { type: 'string' },
  seed: { type: 'string', multiple: true },
  functions: { type: 'string' },
  'env-file': { type: 'string' },
  'jwt-secret': { type: 'string' },
  'signing-keys': { type: 'string' },
  'vault-key-file': { type: 'string' },
  'disable-signup': { type: 'boolean' },
  algorithm: { type: 'string' },
  append: { type: 'string' },
  'password-min': { type: 'string' },
  'no-autoconfirm': { type: 'boolean' },
  'no-rate-limits': { type: 'boolean' },
  'smtp-url': { type: 'string' },
  'site-url': { type: 'string' },
  log: { type: 'boolean' },
  'trusted-proxy': { type: 'string', multiple: true },
  'no-console': { type: 'boolean' },
  'console-remote': { type: 'boolean' },
  'console-password': { type: 'string' },
  import: { type: 'string' },
  'export-on-exit': { type: 'string' },
  schema: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

function integer(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer`);
  return n;
}

/** Reads a JSON list of JWKs (one JWK alone is accepted too). */
async function readKeyList(path: string): Promise<SigningKeyJwk[]> {
  const text = await readFile(path, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path}: not JSON (${(error as Error).message})`);
  }
  return (Array.isArray(parsed) ? parsed : [parsed]) as SigningKeyJwk[];
}

/** `gen signing-key`: prints a new key, or appends it to a key list file (made when absent). */
async function genSigningKey(algorithm: string, append: string | undefined): Promise<number> {
  if (algorithm !== 'ES256' && algorithm !== 'RS256') {
    process.stderr.write(`Unsupported algorithm: ${algorithm} (ES256 or RS256)\n`);
    return 2;
  }
  const key = generateSigningKey(algorithm);
  if (!append) {
    process.stdout.write(`${JSON.stringify(key)}\n`);
    return 0;
  }
  const existing = await readKeyList(append).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  // Keys added to a list that already has a signing key wait in standby.
  const hasCurrent = existing.some(
    (k) => k.status === 'current' || (!k.status && k.key_ops?.includes('sign')),
  );
  const list = [...existing, hasCurrent ? { ...key, status: 'standby' } : key];
  await writeFile(append, `${JSON.stringify(list, null, 2)}\n`, { mode: 0o600 });
  process.stderr.write(
    `JWT signing key ${key.kid} (${algorithm}${hasCurrent ? ', standby' : ''}) added to ${append} (now ${list.length} keys)\n`,
  );
  return 0;
}

/** `storage` from --storage-dir, --storage-backend and --s3-* (undefined when none is given). */
function storageOptions(values: {
  'storage-dir'?: string;
  'storage-backend'?: string;
  's3-bucket'?: string;
  's3-endpoint'?: string;
  's3-region'?: string;
  's3-force-path-style'?: boolean;
}): StorageOptions | undefined {
  const backend = values['storage-backend'];
  if (backend !== undefined && backend !== 'file' && backend !== 's3')
    throw new Error('--storage-backend must be "file" or "s3"');
  const bucket = values['s3-bucket'];
  if (backend === 's3' && !bucket) throw new Error('--storage-backend s3 needs --s3-bucket');
  const storage: StorageOptions = {
    ...(values['storage-dir'] ? { directory: values['storage-dir'] } : {}),
    ...(backend ? { backend } : {}),
    ...(bucket
      ? {
          s3: {
            bucket,
            ...(values['s3-endpoint'] ? { endpoint: values['s3-endpoint'] } : {}),
            ...(values['s3-region'] ? { region: values['s3-region'] } : {}),
            ...(values['s3-force-path-style'] ? { forcePathStyle: true } : {}),
          },
        }
      : {}),
  };
  return Object.keys(storage).length ? storage : undefined;
}

const signingKeyLine = (key: { kid: string | null; alg: string }) =>
  key.kid ? `${key.alg} ${key.kid}` : 'HS256 (the JWT secret)';

async function main(argv: string[]): Promise<number> {
  if (DATA_COMMANDS.has(argv[0] ?? '')) {
    const { runDataCommand } = await import('./data/cli');
    return runDataCommand(argv);
  }
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: OPTIONS,
  });
  const command = positionals[0];
  if (values.help || command === undefined) {
    process.stdout.write(HELP);
    return 0;
  }
  if (command === 'keys') {
    const keys = await createApiKeys(values['jwt-secret'] ?? DEFAULT_JWT_SECRET);
    process.stdout.write(
      [
        `anon key:         ${keys.anonKey}`,
        `service_role key: ${keys.serviceRoleKey}`,
        `publishable key:  ${DEFAULT_PUBLISHABLE_KEY}`,
        `secret key:       ${DEFAULT_SECRET_KEY}`,
        '',
      ].join('\n'),
    );
    return 0;
  }
  if (command === 'gen' && positionals[1] === 'signing-key') {
    return genSigningKey(values.algorithm ?? 'ES256', values.append);
  }
  if (command === 'gen') {
    if (positionals[1] !== 'types') {
      process.stderr.write(
        `Unknown gen target: ${positionals[1] ?? ''} (expected "types" or "signing-key")\n`,
      );
      return 2;
    }
    const { genTypes } = await import('./rest/gen-types');
    process.stdout.write(
      await genTypes({
        ...(values.schema ? { schemas: values.schema } : {}),
        ...(values['database-url'] ? { databaseUrl: values['database-url'] } : {}),
        ...(values.migrations ? { migrationsDir: values.migrations } : {}),
      }),
    );
    return 0;
  }
  if (command === 'extensions') {
    const dir = positionals[2];
    if (positionals[1] !== 'install' || !dir) {
      process.stderr.write('Usage: backend-server extensions install DIR\n');
      return 2;
    }
    const { writeExtensionFiles } = await import('./db/extensions/postgres-files');
    for (const file of writeExtensionFiles(dir)) process.stdout.write(`wrote ${file}\n`);
    return 0;
  }
  if (command !== 'start') {
    process.stderr.write(`Unknown command: ${command}\n\n${HELP}`);
    return 2;
  }
  const started = Date.now();
  const storage = storageOptions(values);
  const server = await startServer({
    ...(values.project ? { projectDir: values.project } : {}),
    ...(values.port !== undefined ? { port: integer('port', values.port) } : {}),
    ...(values.host ? { host: values.host } : {}),
    ...(values['public-url'] ? { publicUrl: values['public-url'] } : {}),
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
    ...(values['database-url'] ? { databaseUrl: values['database-url'] } : {}),
    ...(values.migrations ? { migrationsDir: values.migrations } : {}),
    ...(values.seed?.length ? { seedFile: values.seed } : {}),
    ...(values.functions ? { functionsDir: values.functions } : {}),
    ...(values['jwt-secret'] ? { jwtSecret: values['jwt-secret'] } : {}),
    ...(values['signing-keys'] ? { signingKeys: await readKeyList(values['signing-keys']) } : {}),
    ...(values['vault-key-file']
      ? {
          vaultKey: checkVaultKey(
            await readFile(values['vault-key-file'], 'utf8'),
            values['vault-key-file'],
          ),
        }
      : {}),
    auth: {
      ...(values['disable-signup'] ? { disableSignup: true } : {}),
      ...(values['password-min']
        ? { passwordMinLength: integer('password-min', values['password-min']) }
        : {}),
      ...(values['no-autoconfirm'] ? { autoconfirm: false } : {}),
      ...(values['no-rate-limits'] ? { rateLimits: false as const } : {}),
      ...(values['smtp-url'] ? { smtpUrl: values['smtp-url'] } : {}),
      ...(values['site-url'] ? { siteUrl: values['site-url'] } : {}),
    },
    console: {
      ...(values['no-console'] ? { enabled: false } : {}),
      ...(values['console-remote'] ? { remote: true } : {}),
      ...(values['console-password'] ? { password: values['console-password'] } : {}),
    },
    ...(values['env-file'] ? { functions: { envFile: values['env-file'] } } : {}),
    ...(values.import ? { importFile: values.import } : {}),
    ...(values['direct-url']
      ? { databasePooler: { mode: 'transaction' as const, directUrl: values['direct-url'] } }
      : {}),
    ...(storage ? { storage } : {}),
    ...(values['trusted-proxy']?.length ? { trustedProxies: values['trusted-proxy'] } : {}),
    log: values.log ?? false,
  });
  const exportOnExit = values['export-on-exit'];
  process.stdout.write(
    [
      `backend-server started in ${Date.now() - started} ms`,
      `  API URL:          ${server.url}`,
      `  REST:             ${server.url}/rest/v1`,
      `  Auth:             ${server.url}/auth/v1`,
      `  Storage:          ${server.url}/storage/v1`,
      `  Functions:        ${server.url}/functions/v1`,
      `  Realtime:         ${server.url.replace(/^http/, 'ws')}/realtime/v1`,
      `  Console:          ${server.consoleUrl ?? 'not served (see --console-remote)'}`,
      `  Mail outbox:      ${server.mailUrl ?? `${server.url}/_dev/mail (service_role key)`}`,
      `  SMS outbox:       ${server.url}/_dev/sms (service_role key; the console's Mail screen, SMS tab)`,
      `  JWT secret:       ${server.jwtSecret}`,
      `  signing key:      ${signingKeyLine(server.signingKeys.current())}`,
      `  publishable key:  ${server.publishableKey}`,
      `  secret key:       ${server.secretKey}`,
      `  anon key:         ${server.anonKey}`,
      `  service_role key: ${server.serviceRoleKey}`,
      ...(server.s3
        ? [
            `  S3 URL:           ${server.s3.url}`,
            `  S3 access key:    ${server.s3.accessKeyId}`,
            `  S3 secret key:    ${server.s3.secretAccessKey}`,
            `  S3 region:        ${server.s3.region}`,
          ]
        : []),
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    const shutdown = (signal: string) => {
      process.stdout.write(`\n${signal}: stopping…\n`);
      resolve();
    };
    process.once('SIGINT', () => shutdown('SIGINT'));
    process.once('SIGTERM', () => shutdown('SIGTERM'));
  });
  if (exportOnExit) {
    const { exportProject } = await import('./data/portable');
    const summary = await exportProject(
      server.db,
      server.storageDir,
      exportOnExit,
      server.storageS3,
    );
    process.stdout.write(
      `exported ${summary.rows} rows and ${summary.objects} objects to ${exportOnExit}\n`,
    );
  }
  await server.stop();
  process.stdout.write('stopped\n');
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `backend-server: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
