/**
 * What a service of the server is (`ServiceModule`: its routes, base path and gateway
 * settings) and what it gets (`ServerContext`). The services themselves are listed in
 * service-registry.ts.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Hono } from 'hono';
import type { ServerConfig } from './config/index';
import type { Database } from './db/index';
import type { GatewayInfo } from './http/gateway';

/** Hono environment shared by every service router. */
export type AppEnv = {
  Variables: {
    gateway: GatewayInfo;
    /** The client's address (http/client-address.ts: the socket's, or a trusted proxy's word). */
    clientAddress: string;
  };
};

/** What every service gets. */
export interface ServerContext {
  config: ServerConfig;
  db: Database;
  /** Console logging, when `log` is on. */
  log(message: string): void;
}

/** A running service: its routes under its base path, and its lifecycle hooks. */
export interface ServiceInstance {
  routes: Hono<AppEnv>;
  /** Handles a WebSocket upgrade under the base path; returns false when it is not its own. */
  upgrade?(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  close?(): Promise<void>;
}

/** A service of the server: auth, rest, storage, functions, realtime, … */
export interface ServiceModule {
  name: string;
  /** Public path prefix, e.g. `/auth/v1`. */
  basePath: string;
  /** Idempotent SQL this service needs in every database (part of the platform snapshot). */
  platformSql?: string;
  /** Gateway key-auth: `apikey` required (auth, rest: yes; storage, functions: no). */
  keyAuth: boolean;
  /** Paths under `basePath` that skip key-auth (e.g. `/verify`). */
  openPaths?: readonly string[];
  /** Gateway CORS handling (functions answer their own preflights). Default true. */
  cors?: boolean;
  /** Created after migrations and seed, so caches see the app's schema. */
  create(ctx: ServerContext): ServiceInstance | Promise<ServiceInstance>;
}
