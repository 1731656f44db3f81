import { rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { resolveConfig, type StartServerOptions } from './config/index';
import { resolveVaultKey } from './config/vault-key';
import { consoleLink } from './console/index';
import { type CronScheduler, startCronScheduler } from './cron/scheduler';
import { lockDataDir } from './data/lock';
import { exposeQueues } from './db/extensions/pgmq-public';
import { VAULT_KEY_SETTING, VAULT_PLATFORM_SQL } from './db/extensions/vault';
import { applyMigrations, applySeed, type Database, openDatabase, ROLES_SQL } from './db/index';
import { createApp } from './http/app';
import { SIGNING_KEYS_SQL, SigningKeyTable } from './http/signing-key-store';
import type { SigningKeys } from './http/signing-keys';
import { CLUSTER_LOG_SQL, ClusterLog, devToolsFor } from './logs/index';
import { WEBHOOKS_SQL } from './net/webhooks-sql';
import { type NetWorker, startNetWorker } from './net/worker';
import type { ServerContext, ServiceInstance, ServiceModule } from './service-module';
import { SERVICES } from './service-registry';
import type { S3BackendSettings } from './storage/backends/s3';

/** A running server. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:54321`. */
  url: string;
  /** The legacy `anon` API key (a JWT signed with the legacy secret). */
  anonKey: string;
  /** The legacy `service_role` API key. */
  serviceRoleKey: string;
  /** The publishable key (`sb_publishable_…`, role `anon`). */
  publishableKey: string;
  /** The secret key (`sb_secret_…`, role `service_role`; refused from browsers). */
  secretKey: string;
  /** The legacy JWT secret. */
  jwtSecret: string;
  /**
   * The console for the person who started the server, its secret in the fragment
   * (`http://127.0.0.1:54321/_console/#token=…`); null when the console is not served.
   */
  consoleUrl: string | null;
  /** The console's mail screen (the outbox), as {@link consoleUrl}. */
  mailUrl: string | null;
  /** Where stored files are kept (`<dataDir>/storage`, or a temp dir removed at stop). */
  storageDir: string;
  /** The S3 backend's settings (`storage.backend: 's3'`), null when bytes are in `storageDir`. */
  storageS3: S3BackendSettings | null;
  /**
   * The S3 protocol's endpoint and service-role credentials (null when it is off), for
   * `new S3Client({ endpoint: s3.url, region: s3.region, forcePathStyle: true, credentials })`.
   */
  s3: { url: string; region: string; accessKeyId: string; secretAccessKey: string } | null;
  /**
   * The signing keys: list them, add a standby key, rotate, revoke (as the hosted dashboard
   * does); every service sees a change at once.
   */
  signingKeys: SigningKeys;
  /** The database, for tests and tools (superuser; bypasses RLS). */
  db: Database;
  /** Handles a Web Request without a socket (Hono's `app.request`). */
  request(input: string | Request, init?: RequestInit): Promise<Response>;
  /** Stops listening, closes every service and the database. */
  stop(): Promise<void>;
}

export interface StartServerInternals {
  /** Services to run instead of the default list (tests of one service). */
  services?: readonly ServiceModule[];
  /** How often a replica re-reads the signing key table besides its notifications (ms). */
  signingKeysRefreshMs?: number;
}

/** The platform scripts of a list of services, in order (roles first). */
export function platformScripts(modules: readonly ServiceModule[] = SERVICES): string[] {
  return [
    ROLES_SQL,
    WEBHOOKS_SQL,
    SIGNING_KEYS_SQL,
    CLUSTER_LOG_SQL,
    VAULT_PLATFORM_SQL,
    ...modules.flatMap((m) => (m.platformSql ? [m.platformSql] : [])),
  ];
}

/**
 * Starts the backend: opens the database (restoring the platform snapshot), applies
 * migrations and the seed, starts every service and listens. Resolves once requests
 * are answered.
 *
 * @example
 * const server = await startServer({ port: 0, migrationsDir: 'backend/migrations' });
 * console.log(server.url, server.anonKey);
 * await server.stop();
 */
export async function startServer(
  options: StartServerOptions = {},
  internals: StartServerInternals = {},
): Promise<RunningServer> {
  const config = await resolveConfig(options);
  const modules = internals.services ?? SERVICES;
  const platformSql = platformScripts(modules);
  // One process at a time on a data directory (a second one would corrupt the database).
  const unlock = config.dataDir ? await lockDataDir(config.dataDir) : null;
  const db = await resolveVaultKey(options.vaultKey, config.dataDir)
    .then((vaultKey) =>
      openDatabase({
        dataDir: config.dataDir ?? undefined,
        databaseUrl: config.databaseUrl ?? undefined,
        pooler: config.databasePooler ?? undefined,
        platformSql,
        settings: { [VAULT_KEY_SETTING]: vaultKey },
      }),
    )
    .catch(async (error: unknown) => {
      await unlock?.();
      throw error;
    });
  const instances: { module: ServiceModule; instance: ServiceInstance }[] = [];
  let http: Server | null = null;
  let cron: CronScheduler | null = null;
  let net: NetWorker | null = null;
  let keyTable: SigningKeyTable | null = null;
  const tools = devToolsFor(config);
  const stop = async () => {
    config.signingKeys.thirdParty?.close();
    await keyTable?.stop();
    await cron?.stop();
    await net?.stop();
    if (http) {
      const server = http;
      http = null;
      // Stop accepting, drop idle keep-alive connections, then let each service close its
      // own long-lived sockets (realtime) before waiting for the HTTP server to finish.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      for (const { instance } of instances.reverse()) await instance.close?.();
      server.closeAllConnections();
      await closed;
    } else {
      for (const { instance } of instances.reverse()) await instance.close?.();
    }
    await tools.cluster?.stop();
    tools.cluster = null;
    await db.close();
    if (config.storageDirIsTemp) await rm(config.storageDir, { recursive: true, force: true });
    await unlock?.();
  };
  try {
    // An archive replaces the database's project data first; migrations newer than it follow.
    if (options.importFile) {
      const { importProject } = await import('./data/portable');
      await importProject(
        db,
        config.storageDir,
        options.importFile,
        platformSql,
        config.storage.s3,
      );
    }
    if (config.migrationsDir) await applyMigrations(db, config.migrationsDir);
    await applySeed(db, config.seedFiles);
    await exposeQueues(db, config.rest.schemas);
    keyTable = await SigningKeyTable.start(db, config.signingKeys, {
      refreshMs: internals.signingKeysRefreshMs,
      log: (message) => config.log && console.log(`[backend-server] ${message}`),
    });
    // On PostgreSQL the console shows every replica's log (one process owns a PGlite).
    if (db.kind === 'postgres') {
      tools.cluster = new ClusterLog(db, tools.log, {
        replica: tools.replica,
        maxRows: config.console.logCapacity,
        log: (message) => config.log && console.log(`[backend-server] ${message}`),
      });
    }
    cron = await startCronScheduler(db, {
      log: (message) => config.log && console.log(`[backend-server] ${message}`),
    });

    // Listen first (the URL is part of the config services read), then create the services.
    // Requests and upgrades that arrive in between wait for them instead of going unanswered.
    let attach!: (app: ReturnType<typeof createApp>) => void;
    const ready = new Promise<ReturnType<typeof createApp>>((resolve) => {
      attach = resolve;
    });
    const server = createServer();
    http = server;
    // The Node bindings (`c.env.incoming`) carry the socket: the client address reads it.
    const listener = getRequestListener(async (req, env) => (await ready).fetch(req, env));
    server.on('request', listener);
    server.on('upgrade', (req, socket, head) => {
      void ready.then(() => {
        for (const { module, instance } of instances) {
          if (req.url?.startsWith(`${module.basePath}/`) && instance.upgrade?.(req, socket, head))
            return;
        }
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    config.port = port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const ownUrl = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
    config.url ||= ownUrl;

    const ctx: ServerContext = {
      config,
      db,
      log: (message) => {
        if (config.log) console.log(`[backend-server] ${message}`);
      },
    };
    // Services start side by side (their database work queues on the one connection; the
    // rest, like the functions runtime build, overlaps). Mount order stays the list order.
    const created = await Promise.allSettled(modules.map(async (module) => module.create(ctx)));
    created.forEach((result, i) => {
      const module = modules[i];
      if (module && result.status === 'fulfilled')
        instances.push({ module, instance: result.value });
    });
    const failed = created.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    const app = createApp(ctx, instances);
    attach(app);
    // pg_net's requests and database webhooks, sent once the server answers its own URL.
    net = await startNetWorker({ db, selfUrl: ownUrl, log: ctx.log });
    return {
      url: config.url,
      anonKey: config.anonKey,
      serviceRoleKey: config.serviceRoleKey,
      publishableKey: config.publishableKeys[0] as string,
      secretKey: config.secretKeys[0] as string,
      jwtSecret: config.jwtSecret,
      storageDir: config.storageDir,
      storageS3: config.storage.s3,
      s3: config.storage.s3Protocol.enabled
        ? {
            url: `${config.url}/storage/v1/s3`,
            region: config.storage.s3Protocol.region,
            accessKeyId: config.storage.s3Protocol.accessKeyId,
            secretAccessKey: config.storage.s3Protocol.secretAccessKey,
          }
        : null,
      consoleUrl: consoleLink(config),
      mailUrl: consoleLink(config, 'mail'),
      signingKeys: config.signingKeys,
      db,
      request: async (input, init) => app.request(input, init),
      stop,
    };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}
