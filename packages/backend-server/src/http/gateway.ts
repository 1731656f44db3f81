import type { MiddlewareHandler } from 'hono';
import type { ServerConfig } from '../config';
import type { AppEnv } from '../service';
import { bearerToken } from './jwt';

/** What the gateway learned about a request before a service sees it. */
export interface GatewayInfo {
  /** The project key the request carried (`apikey` header or query), or null. */
  apiKey: string | null;
  /** The role of that key when it is one of the project's keys. */
  keyRole: 'anon' | 'service_role' | null;
  /**
   * The bearer token the service should use: the `Authorization` token when one was sent
   * (and is not an opaque `sb_` key), else the project key's JWT.
   */
  token: string | null;
  /** True when the caller sent its own `Authorization` token (a user JWT). */
  hasUserToken: boolean;
}

export const CORS_ALLOW_HEADERS = [
  'authorization',
  'x-client-info',
  'apikey',
  'content-type',
  'prefer',
  'accept-profile',
  'content-profile',
  'range',
  'x-retry-count',
  'x-supabase-api-version',
  'x-upsert',
  'x-metadata',
  'cache-control',
  'x-region',
  'x-signature',
  'tus-resumable',
  'upload-length',
  'upload-offset',
  'upload-metadata',
  'upload-defer-length',
  'upload-concat',
  'traceparent',
  'tracestate',
  'baggage',
  'if-none-match',
  'if-modified-since',
  'accept',
  'x-http-method-override',
].join(', ');

export const CORS_EXPOSE_HEADERS = [
  'Content-Range',
  'Content-Location',
  'Location',
  'Preference-Applied',
  'X-Total-Count',
  'Link',
  'X-Supabase-Api-Version',
  'Upload-Offset',
  'Upload-Length',
  'Upload-Expires',
  'Upload-Metadata',
  'Upload-Defer-Length',
  'Tus-Resumable',
  'Tus-Version',
  'Tus-Extension',
  'Tus-Max-Size',
  'Tus-Complete',
  'x-relay-error',
  'x-sb-error-code',
  'Content-Disposition',
  'ETag',
  'Last-Modified',
  'Content-Length',
  'Accept-Ranges',
  'Content-Profile',
].join(', ');

/** CORS for browser clients: answers preflights and exposes the protocol headers. */
export function cors(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const origin = c.req.header('origin') ?? '*';
    if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method')) {
      return new Response(null, {
        status: 200,
        headers: {
          'access-control-allow-origin': origin,
          'access-control-allow-credentials': 'true',
          'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
          'access-control-allow-headers':
            c.req.header('access-control-request-headers') ?? CORS_ALLOW_HEADERS,
          'access-control-max-age': '86400',
          vary: 'Origin',
        },
      });
    }
    await next();
    c.res.headers.set('access-control-allow-origin', origin);
    c.res.headers.set('access-control-allow-credentials', 'true');
    c.res.headers.set('access-control-expose-headers', CORS_EXPOSE_HEADERS);
    c.res.headers.append('vary', 'Origin');
  };
}

const NO_KEY = {
  message: 'No API key found in request',
  hint: 'No `apikey` request header or url param was found.',
};
const BAD_KEY = {
  message: 'Invalid API key',
  hint: 'Double check your Supabase `anon` or `service_role` API key.',
};

function keyRole(config: ServerConfig, key: string | null): GatewayInfo['keyRole'] {
  if (key === config.anonKey) return 'anon';
  if (key === config.serviceRoleKey) return 'service_role';
  return null;
}

/**
 * Gateway behaviour of the hosted backend: reads `apikey` (header, or query for realtime),
 * checks it when `keyAuth` is on (401 with the hosted bodies), and derives the token a
 * service should use (Authorization when present, else the key).
 */
export function gateway(
  config: ServerConfig,
  options: { keyAuth: boolean; basePath: string; openPaths?: readonly string[] },
): MiddlewareHandler<AppEnv> {
  const open = new Set((options.openPaths ?? []).map((p) => options.basePath + p));
  return async (c, next) => {
    const apiKey = c.req.header('apikey') ?? c.req.query('apikey') ?? null;
    const role = keyRole(config, apiKey);
    const isPreflight = c.req.method === 'OPTIONS';
    if (options.keyAuth && !isPreflight && !open.has(c.req.path)) {
      if (!apiKey) return c.json(NO_KEY, 401);
      if (!role) return c.json(BAD_KEY, 401);
    }
    const authorization = c.req.header('authorization');
    const sent = bearerToken(authorization);
    const hasUserToken = sent !== null && !sent.startsWith('sb_');
    const keyToken =
      role === 'anon' ? config.anonKey : role === 'service_role' ? config.serviceRoleKey : null;
    c.set('gateway', {
      apiKey,
      keyRole: role,
      token: hasUserToken ? sent : keyToken,
      hasUserToken,
    });
    await next();
  };
}
