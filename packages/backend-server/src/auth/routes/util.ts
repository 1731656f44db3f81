import type { Context } from 'hono';
import type { AppEnv } from '../../service-module';

/** The caller's IP (the socket's peer address), for rate limits. */
export function clientIp(c: Context<AppEnv>): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress ?? 'local';
}

/** `?redirect_to=` (auth-js always sends it as a query parameter). */
export const redirectParam = (c: Context<AppEnv>) => c.req.query('redirect_to') || undefined;

export const userAgent = (c: Context<AppEnv>) => c.req.header('user-agent');
