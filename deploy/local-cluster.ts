/**
 * The recipe of this folder on one machine: PostgreSQL, a single-node Ceph with radosgw (an
 * S3 user and a bucket), N `backend-server start` replicas on one database with the S3
 * storage backend, HAProxy in front of them with `haproxy.cfg`'s settings, and Drive's
 * backend (apps/web/backend: migrations, seed, functions) on it — plus Drive's page when it
 * is built. Ctrl-C or SIGTERM stops everything and removes its files.
 *
 *   pnpm cluster [--replicas 3] [--dir DIR] [--port 54321] [--replica-port 54331] [--web-port 5173]
 *
 * The binaries come from the repository's ensure scripts: `node scripts/ensure-postgres.mjs`,
 * `node scripts/ensure-proxies.mjs`, `node scripts/ensure-ceph.mjs`. `startLocalCluster` is
 * the same as a module (the test and the bench of packages/backend-server start it).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { serveStatic } from '../apps/web/e2e/static-server';
import { generateSigningKey } from '../packages/backend-server/src/config/keys';
import { Replica } from '../packages/backend-server/test/replicas/cluster';
import {
  type Balancer,
  freePort,
  HAPROXY,
  startHaproxyWith,
} from '../packages/backend-server/test/replicas/proxies';
import {
  type CephS3,
  cephAvailable,
  createBucket,
  startCeph,
} from '../packages/backend-server/test/support/ceph-cluster';
import { findPgBin, startCluster } from '../packages/backend-server/test/support/postgres-cluster';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Options of {@link startLocalCluster}. */
export interface LocalClusterOptions {
  /** How many replicas. Default 3. */
  replicas?: number;
  /** Where the cluster's files go (each part in a temp dir of its own). Default the system temp dir. */
  dir?: string;
  /** HAProxy's port. Default 54321; 0 for a free one. */
  port?: number;
  /** The first replica's port (the next ones follow). Default 54331; 0 for free ones. */
  replicaPort?: number;
  /** Serve Drive's built page (apps/web/dist) on this port when it exists. Default 5173; 0 for a free one; null: not. */
  webPort?: number | null;
  /**
   * The built page's folder. Default apps/web/dist.
   * @example startLocalCluster({ webDir: '/tmp/drive-build', webPort: 0 })
   */
  webDir?: string;
  /** A database to use (an empty one) instead of starting PostgreSQL. */
  databaseUrl?: string;
  /** A radosgw to use instead of starting Ceph (a fresh bucket is made on it). */
  s3?: CephS3;
  /** The project folder the replicas run. Default Drive's, apps/web/backend. */
  project?: string;
}

export interface LocalCluster {
  /** HAProxy's URL: what clients use. */
  url: string;
  /** Drive's page pointed at the cluster, when apps/web/dist exists. */
  webUrl: string | null;
  anonKey: string;
  serviceRoleKey: string;
  publishableKey: string;
  /** The console, through the balancer (its token in the fragment). */
  consoleUrl: string | null;
  databaseUrl: string;
  /** radosgw and the bucket the objects are stored in. */
  s3: CephS3 & { bucket: string };
  replicas: Replica[];
  balancer: Balancer;
  /** Stops everything it started, in reverse order, and removes its files. */
  stop(): Promise<void>;
}

/**
 * `deploy/haproxy.cfg` for this machine: bound to 127.0.0.1:`port`, its runtime API on
 * `socket`, the health check's key, one `server` line per replica (r1, r2, …), and
 * `maxconn` 4096 (20000 needs an open-file limit of about 40000, more than a desktop or a
 * container usually allows a process).
 */
export function haproxyConfig(
  template: string,
  at: { port: number; socket: string; publishableKey: string; replicas: number[] },
): string {
  const swaps: [RegExp, string][] = [
    [/^(\s*maxconn )\d+/m, '$14096'],
    [/^(\s*stats socket )\S+/m, `$1${at.socket}`],
    [/^(\s*bind )\S+/m, `$1127.0.0.1:${at.port}`],
    [/sb_publishable_REPLACE_ME/, at.publishableKey],
    [/^\s*server r\d+ .*\n?/gm, ''],
  ];
  let text = template;
  for (const [pattern, to] of swaps) {
    if (!pattern.test(text)) throw new Error(`haproxy.cfg: no ${pattern} to replace`);
    pattern.lastIndex = 0;
    text = text.replace(pattern, to);
  }
  const servers = at.replicas.map((p, i) => `    server r${i + 1} 127.0.0.1:${p} check`);
  return `${text.trimEnd()}\n${servers.join('\n')}\n`;
}

/** Whether this machine has what the cluster runs (the ensure scripts install it). */
export function missingBinaries(options: { postgres: boolean; ceph: boolean }): string[] {
  const missing: string[] = [];
  if (!existsSync(HAPROXY)) missing.push('haproxy (node scripts/ensure-proxies.mjs)');
  if (options.ceph && !cephAvailable()) missing.push('ceph (node scripts/ensure-ceph.mjs)');
  if (options.postgres) {
    try {
      findPgBin();
    } catch {
      missing.push('postgresql (node scripts/ensure-postgres.mjs)');
    }
  }
  return missing;
}

/** Starts the cluster; resolves once HAProxy sees every replica up. */
export async function startLocalCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  const count = options.replicas ?? 3;
  if (!Number.isInteger(count) || count < 1) throw new Error('replicas: a whole number ≥ 1');
  const missing = missingBinaries({ postgres: !options.databaseUrl, ceph: !options.s3 });
  if (missing.length) throw new Error(`not installed: ${missing.join(', ')}`);
  const parent = options.dir ?? tmpdir();
  await mkdir(parent, { recursive: true });
  const cleanups: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  };
  try {
    const dir = await mkdtemp(join(parent, 'local-cluster-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));

    let databaseUrl = options.databaseUrl;
    if (!databaseUrl) {
      const pg = await startCluster({ parent });
      cleanups.push(async () => pg.stop());
      const admin = new URL(pg.url);
      await promisify(execFile)(join(findPgBin(), 'createdb'), [
        ...['-h', admin.hostname, '-p', admin.port, '-U', 'postgres', 'app'],
      ]);
      databaseUrl = pg.url.replace(/\/postgres$/, '/app');
    }
    let s3 = options.s3;
    if (!s3) {
      const ceph = await startCeph(parent);
      cleanups.push(ceph.stop);
      s3 = ceph;
    }
    const bucket = `objects-${randomBytes(4).toString('hex')}`;
    await createBucket(s3, bucket);

    // What every replica shares: JWT keys, Vault's key (no directory: bytes and resumable
    // uploads are in the bucket; each replica's storage directory holds its render cache).
    const keys = join(dir, 'signing_keys.json');
    await writeFile(keys, JSON.stringify([generateSigningKey('ES256')]), { mode: 0o600 });
    const vaultKey = join(dir, 'vault.key');
    await writeFile(vaultKey, randomBytes(32).toString('hex'), { mode: 0o600 });
    const balancerPort = (options.port ?? 54321) || (await freePort());
    const url = `http://127.0.0.1:${balancerPort}`;
    const project = options.project ?? here('../apps/web/backend');

    // Drive's page, told where its backend is, when it is built.
    let webUrl: string | null = null;
    let settings = '{}';
    const dist = options.webDir ?? here('../apps/web/dist');
    if (options.webPort !== null && existsSync(join(dist, 'index.html'))) {
      const site = await serveStatic(dist, {
        port: options.webPort ?? 5173,
        head: () => `<script>window.__DRIVE_BACKEND__ = ${settings};</script>`,
      });
      cleanups.push(site.close);
      webUrl = site.url;
    }
    const siteUrl = webUrl ?? url;
    const envFile = join(dir, 'functions.env');
    await writeFile(envFile, `DRIVE_SITE_URL=${siteUrl}\n`);

    const args = [
      ...['--project', project, '--database-url', databaseUrl],
      ...['--storage-backend', 's3'],
      ...['--s3-bucket', bucket, '--s3-endpoint', s3.endpoint, '--s3-region', s3.region],
      ...['--s3-force-path-style', '--signing-keys', keys, '--vault-key-file', vaultKey],
      ...['--site-url', siteUrl, '--public-url', url, '--trusted-proxy', '127.0.0.1'],
      ...['--env-file', envFile],
    ];
    const env = { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey };
    const first = options.replicaPort ?? 54331;
    const replicas: Replica[] = [];
    for (let i = 0; i < count; i++) {
      const port = first ? first + i : await freePort();
      const own = ['--storage-dir', join(dir, `storage-r${i + 1}`)];
      replicas.push(new Replica(`r${i + 1}`, port, [...args, ...own], env));
    }
    cleanups.push(async () => {
      await Promise.all(replicas.map((r) => r.terminate()));
    });
    // One first (it applies the migrations and the seed), then the others.
    await (replicas[0] as Replica).start();
    await Promise.all(replicas.slice(1).map((r) => r.start()));
    const lead = replicas[0] as Replica;

    const template = await readFile(here('haproxy.cfg'), 'utf8');
    const balancer = await startHaproxyWith(
      ({ socket }) =>
        haproxyConfig(template, {
          port: balancerPort,
          socket,
          publishableKey: lead.publishableKey,
          replicas: replicas.map((r) => r.port),
        }),
      balancerPort,
    );
    cleanups.push(balancer.stop);
    for (const r of replicas) await balancer.waitFor(r.name, 'UP');
    settings = JSON.stringify({ url, anonKey: lead.anonKey }).replace(/</g, '\\u003c');

    const consoleUrl = lead.printed('Console');
    return {
      url,
      webUrl,
      anonKey: lead.anonKey,
      serviceRoleKey: lead.serviceRoleKey,
      publishableKey: lead.publishableKey,
      consoleUrl: consoleUrl?.startsWith('http')
        ? consoleUrl.replace(/^http:\/\/[^/]+/, url)
        : null,
      databaseUrl,
      s3: { ...s3, bucket },
      replicas,
      balancer,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

const HELP = `node --import tsx deploy/local-cluster.ts [options]   (pnpm cluster [options])

  --replicas N      backend-server replicas (default 3)
  --dir DIR         where its files go (default the system temp dir); removed at stop
  --port N          HAProxy's port (default 54321)
  --replica-port N  the first replica's port, the next ones follow (default 54331)
  --web-port N      Drive's page, when apps/web is built (pnpm -F web build; default 5173)
`;

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      replicas: { type: 'string' },
      dir: { type: 'string' },
      port: { type: 'string' },
      'replica-port': { type: 'string' },
      'web-port': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const number = (name: string, text: string | undefined) => {
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`--${name}: not "${text}"`);
    return n;
  };
  // A signal while starting stops what has started as soon as the start is over.
  let signalled = false;
  const signal = new Promise<void>((resolve) => {
    const stopNow = () => {
      signalled = true;
      resolve();
    };
    process.once('SIGINT', stopNow);
    process.once('SIGTERM', stopNow);
  });
  console.log('Starting PostgreSQL, Ceph (radosgw), the replicas and HAProxy…');
  const cluster = await startLocalCluster({
    replicas: number('replicas', values.replicas) ?? 3,
    ...(values.dir ? { dir: values.dir } : {}),
    ...(values.port ? { port: number('port', values.port) } : {}),
    ...(values['replica-port']
      ? { replicaPort: number('replica-port', values['replica-port']) }
      : {}),
    ...(values['web-port'] ? { webPort: number('web-port', values['web-port']) } : {}),
  });
  if (signalled) {
    await cluster.stop();
    return;
  }
  console.log(`
  API (HAProxy):     ${cluster.url}
  Drive:             ${cluster.webUrl ?? 'not served (build it first: pnpm -F web build)'}
  Demo account:      demo@example.com / drive-demo-password
  Replicas:          ${cluster.replicas.map((r) => `${r.name} 127.0.0.1:${r.port} (pid ${r.child?.pid})`).join(', ')}
  HAProxy socket:    ${cluster.balancer.socket}
  publishable key:   ${cluster.publishableKey}
  anon key:          ${cluster.anonKey}
  service_role key:  ${cluster.serviceRoleKey}
  Console:           ${cluster.consoleUrl ?? 'not served'}
  PostgreSQL:        ${cluster.databaseUrl}
  S3 (radosgw):      ${cluster.s3.endpoint} bucket ${cluster.s3.bucket}
  S3 access key:     ${cluster.s3.accessKeyId}
  S3 secret key:     ${cluster.s3.secretAccessKey}

  Press Ctrl-C to stop.
`);
  await signal;
  console.log('Stopping…');
  await cluster.stop();
  console.log('Stopped.');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(`local-cluster: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
