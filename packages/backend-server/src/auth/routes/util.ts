import type { Context } from 'hono';
import { clientAddress } from '../../http/client-address';
import type { AppEnv } from '../../service-module';

/** The caller's IP (see http/client-address.ts), for rate limits and MFA challenges. */
export const clientIp = (c: Context<AppEnv>): string => clientAddress(c);

/** `?redirect_to=` (auth-js always sends it as a query parameter). */
export const redirectParam = (c: Context<AppEnv>) => c.req.query('redirect_to') || undefined;

export const userAgent = (c: Context<AppEnv>) => c.req.header('user-agent');
