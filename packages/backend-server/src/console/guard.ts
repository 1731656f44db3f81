import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { Context, MiddlewareHandler } from 'hono';
import { countHit, windowHits } from '../auth/rate-limit';
import type { ServerConfig } from '../config/index';
import type { Queryable } from '../db/index';
import type { AppEnv } from '../service-module';
import type { ApiError } from './api-types';

/** The header that carries the console's secret on every console API request. */
export const TOKEN_HEADER = 'x-console-token';

/** True for an address or name that only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return h === '::1' || h === '0:0:0:0:0:0:0:1' || h.startsWith('::ffff:127.');
}

/** The host name of a `Host` header (`127.0.0.1:54321` → `127.0.0.1`, `[::1]:1` → `::1`). */
export function hostnameOf(hostHeader: string | undefined): string {
  if (!hostHeader) return '';
  const bracket = /^\[([^\]]+)\]/.exec(hostHeader);
  if (bracket) return bracket[1] ?? '';
  return hostHeader.replace(/:\d+$/, '');
}

/**
 * Why the console is not served by this server, or null when it is: on loopback always;
 * on any other address only when `console.remote` is on and a password is set.
 */
export function consoleRefusal(config: ServerConfig): string | null {
  if (!config.console.enabled) return 'The console is turned off for this server.';
  if (isLoopback(config.host)) return null;
  if (config.console.remote && config.console.password) return null;
  return (
    `The console is only served when the server listens on loopback (it listens on ${config.host}). ` +
    'Start it with --console-remote and --console-password to allow it.'
  );
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant-time comparison of two secrets (of any length). */
export function sameSecret(given: string | undefined | null, expected: string): boolean {
  if (!given) return false;
  return timingSafeEqual(digest(given), digest(expected));
}

const deny = (c: Context<AppEnv>, status: 401 | 403, message: string) =>
  c.json({ message } satisfies ApiError, status, { 'cache-control': 'no-store' });

/**
 * Checks every request to `/_console/*`:
 * - on a loopback server, the `Host` header must name loopback too (a page on another
 *   site cannot reach the console through a DNS name that resolves to 127.0.0.1);
 * - a request made by a page of another origin (its `Origin` or `Sec-Fetch-Site` says so)
 *   is refused; no CORS headers are ever sent, so other pages cannot read answers either.
 */
export function originGuard(config: ServerConfig): MiddlewareHandler<AppEnv> {
  const loopbackOnly = isLoopback(config.host);
  return async (c, next) => {
    const host = c.req.header('host');
    if (loopbackOnly && !isLoopback(hostnameOf(host))) {
      return deny(
        c,
        403,
        'The console answers only to loopback host names (127.0.0.1, localhost).',
      );
    }
    const site = c.req.header('sec-fetch-site');
    if (site && site !== 'same-origin' && site !== 'none') {
      return deny(c, 403, 'The console cannot be used from another site.');
    }
    const origin = c.req.header('origin');
    if (origin && origin !== 'null' && new URL(c.req.url).host !== safeHost(origin)) {
      return deny(c, 403, 'The console cannot be used from another origin.');
    }
    await next();
    c.res.headers.set('x-frame-options', 'DENY');
    c.res.headers.set('x-content-type-options', 'nosniff');
    c.res.headers.set('referrer-policy', 'no-referrer');
  };
}

function safeHost(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return '';
  }
}

/** The console API's check: the `x-console-token` header must carry this server's secret. */
export function tokenGuard(config: ServerConfig): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!sameSecret(c.req.header(TOKEN_HEADER), config.console.token)) {
      return deny(
        c,
        401,
        'The console token is missing or out of date: open the console link printed by `backend-server start`.',
      );
    }
    await next();
    c.res.headers.set('cache-control', 'no-store');
  };
}

/**
 * Failed password attempts per client address: at most `limit` in a minute's window,
 * counted in auth's rate-limit table (`_auth.rate_limits`), so every replica on one
 * database counts the same attempts.
 */
export class LoginThrottle {
  constructor(
    private readonly db: Queryable,
    private readonly limit = 5,
    private readonly now: () => number = Date.now,
  ) {}

  async blocked(address: string): Promise<boolean> {
    return (await windowHits(this.db, `console-login:${address}`, this.now())) >= this.limit;
  }

  async fail(address: string): Promise<void> {
    await countHit(this.db, `console-login:${address}`, 60, this.now());
  }
}
