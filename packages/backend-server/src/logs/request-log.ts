import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../service-module';
import type { LiveLog } from './log';

interface Caller {
  role: string | null;
  user: string | null;
}

const NOBODY: Caller = { role: null, user: null };

/**
 * Who a token claims to be (`role`, `sub`), read from its payload without checking the
 * signature: the log shows what a request presented; the services decide what it may do.
 * Decoded once per distinct token (a small cache), so the hot path does no base64 work.
 */
export function callerOf(token: string | null, cache: Map<string, Caller>): Caller {
  if (!token) return NOBODY;
  const cached = cache.get(token);
  if (cached) return cached;
  let caller = NOBODY;
  const payload = token.split('.')[1];
  if (payload) {
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<
        string,
        unknown
      >;
      caller = {
        role: typeof claims.role === 'string' ? claims.role : null,
        user: typeof claims.sub === 'string' ? claims.sub : null,
      };
    } catch {
      caller = NOBODY;
    }
  }
  if (cache.size >= 1000) cache.delete(cache.keys().next().value as string);
  cache.set(token, caller);
  return caller;
}

/**
 * Records every request in the live log (method, path, status, duration until the
 * response headers, the caller's role and user) and prints it when console logging is on.
 * The console's own requests (`/_console/…`) are left out, so watching the log does not
 * fill it.
 */
export function requestLog(log: LiveLog, print: boolean): MiddlewareHandler<AppEnv> {
  const tokens = new Map<string, Caller>();
  return async (c, next) => {
    const path = c.req.path;
    if (path.startsWith('/_console')) return next();
    const started = performance.now();
    let status = 500;
    try {
      await next();
      status = c.res.status;
    } finally {
      const durationMs = Math.round((performance.now() - started) * 10) / 10;
      const gateway = c.get('gateway') as AppEnv['Variables']['gateway'] | undefined;
      const { role, user } = callerOf(gateway?.token ?? null, tokens);
      const method = c.req.method;
      log.push({ kind: 'request', method, path, status, durationMs, role, user });
      if (print) console.log(`[backend-server] ${method} ${path} ${status} ${durationMs} ms`);
    }
  };
}
