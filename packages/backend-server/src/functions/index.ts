import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getConnInfo } from '@hono/node-server/conninfo';
import { type Context, Hono } from 'hono';
import { clientAddress } from '../http/client-address';
import { bearerToken, verifyAccessToken } from '../http/jwt';
import { devToolsFor } from '../logs/index';
import type { AppEnv, ServerContext, ServiceInstance, ServiceModule } from '../service-module';
import { workerScript } from '../threads/worker-script';
import { CompileError, Compiler } from './compile';
import { HOP_BY_HOP } from './protocol';
import {
  bootError,
  invalidJwt,
  missingAuthorization,
  notFound,
  workerError,
  workerLimit,
} from './responses';
import { FunctionSettings } from './settings';
import { functionUpgrades, type Target } from './upgrade';
import { FunctionWorker } from './worker';
import { InvokeFailure, type InvokeRequest } from './worker-api';

const BASE_PATH = '/functions/v1';
/** Function names: the hosted slug rule; `_shared` and dot-folders are never functions. */
const NAME = /^\/([A-Za-z0-9][A-Za-z0-9_-]*)(\/.*)?$/;
const ENTRIES = ['index.ts', 'index.js', 'index.mjs', 'index.tsx'];

function findEntry(dir: string): string | null {
  for (const file of ENTRIES) {
    const path = join(dir, file);
    if (statSync(path, { throwIfNoEntry: false })?.isFile()) return path;
  }
  return null;
}

function remoteOf(c: Context<AppEnv>): InvokeRequest['remote'] {
  try {
    const { remote } = getConnInfo(c);
    const address = clientAddress(c);
    return { hostname: isIP(address) ? address : '127.0.0.1', port: remote.port ?? 0 };
  } catch {
    return { hostname: '127.0.0.1', port: 0 };
  }
}

/**
 * Edge functions under `/functions/v1/<name>[/sub][?query]`: `functionsDir/<name>/index.ts`
 * (or .js), compiled with esbuild and run in worker threads with the hosted runtime's
 * limits and error answers (PROTOCOLS.md §5). No gateway key-auth and no gateway CORS: a
 * function answers its own preflights, and `verify_jwt` (per function, default on) is the
 * only check before it.
 */
async function createFunctions(ctx: ServerContext): Promise<ServiceInstance> {
  const { config } = ctx;
  const cacheDir = await mkdtemp(join(tmpdir(), 'backend-functions-'));
  // Each function's worker thread runs this (see worker-runtime.ts).
  const runtimePath = await workerScript({
    name: 'functions-runtime',
    source: 'functions/worker-runtime.ts',
  });
  const compiler = new Compiler(cacheDir, config.functionsDir ?? cacheDir);
  const settings = new FunctionSettings(config);
  const current = new Map<string, FunctionWorker>();
  const all = new Set<FunctionWorker>();

  const { log } = devToolsFor(config);
  const report = (name: string) => (line: string, stream: 'out' | 'err') => {
    log.push({ kind: 'function', source: name, level: stream, message: line });
    (stream === 'out' ? process.stdout : process.stderr).write(`[functions] ${name}: ${line}\n`);
  };

  const workerFor = async (name: string, entry: string): Promise<FunctionWorker> => {
    const compiled = await compiler.current(name, entry);
    const env = await settings.env();
    const envKey = JSON.stringify(env);
    const existing = current.get(name);
    if (existing && !existing.dead && existing.build === compiled && existing.envKey === envKey) {
      return existing;
    }
    existing?.retire();
    const worker = new FunctionWorker(compiled, envKey, {
      runtimePath,
      env,
      memoryLimitMb: config.functions.memoryLimitMb,
      wallTimeMs: config.functions.wallTimeMs,
      idleTimeoutMs: config.functions.idleTimeoutMs,
      cpuTimeMs: config.functions.cpuTimeMs,
      report: report(name),
      onExit: () => all.delete(worker),
    });
    current.set(name, worker);
    all.add(worker);
    return worker;
  };

  /**
   * What every call and upgrade goes through: the function named by `path` (under the base
   * path), verify_jwt, and its current worker; or the gateway's or runtime's answer.
   */
  const target = async (
    path: string,
    method: string,
    authorization: string | undefined,
  ): Promise<Target | Response> => {
    const match = NAME.exec(path.slice(BASE_PATH.length));
    const name = match?.[1];
    if (!config.functionsDir || !name) return notFound();
    const entry = findEntry(join(config.functionsDir, name));
    if (!entry) {
      current.get(name)?.retire(); // the function was removed
      current.delete(name);
      return notFound();
    }

    if (method !== 'OPTIONS' && (await settings.verifyJwt(name))) {
      if (!authorization) return missingAuthorization();
      const token = bearerToken(authorization);
      // verify_jwt: a JWT of the project's keys (by kid) or of a third-party issuer.
      if (!token || !(await verifyAccessToken(token, config.signingKeys)).ok) return invalidJwt();
    }

    try {
      return { name, sub: match?.[2] ?? '', worker: await workerFor(name, entry) };
    } catch (error) {
      if (!(error instanceof CompileError)) throw error;
      report(name)(`boot error: ${error.message}`, 'err');
      return bootError(error.hint);
    }
  };

  /** The hosted runtime's answer to a call that failed. */
  const failed = (error: unknown): Response => {
    if (!(error instanceof InvokeFailure)) throw error;
    if (error.kind === 'boot') return bootError();
    return error.kind === 'limit' ? workerLimit() : workerError();
  };

  const routes = new Hono<AppEnv>();
  routes.all('*', async (c) => {
    const method = c.req.method;
    const found = await target(c.req.path, method, c.req.header('authorization'));
    if (found instanceof Response) return found;
    const url = new URL(c.req.url);
    const headers: [string, string][] = [];
    c.req.raw.headers.forEach((value, key) => {
      if (!HOP_BY_HOP.has(key)) headers.push([key, value]);
    });
    try {
      const response = await found.worker.invoke({
        method,
        url: `${url.origin}/${found.name}${found.sub}${url.search}`,
        headers,
        body: c.req.raw.body,
        signal: c.req.raw.signal,
        remote: remoteOf(c),
      });
      return response ?? workerError();
    } catch (error) {
      return failed(error);
    }
  });

  const upgrades = functionUpgrades({
    target,
    failed,
    trustedProxies: config.trustedProxies,
    log: ctx.log,
  });
  return {
    routes,
    upgrade: upgrades.upgrade,
    async close() {
      upgrades.close();
      await Promise.all([...all].map((worker) => worker.stop()));
      await rm(cacheDir, { recursive: true, force: true });
    },
  };
}

/** The functions service module (see {@link createFunctions}). */
export const functionsService: ServiceModule = {
  name: 'functions',
  basePath: BASE_PATH,
  keyAuth: false,
  cors: false,
  create: createFunctions,
};
