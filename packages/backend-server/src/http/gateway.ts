import type { MiddlewareHandler } from 'hono';
import type { ServerConfig } from '../config/index';
import type { AppEnv } from '../service-module';
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
/** The hosted answer for an unknown `sb_…` key (with `sb-error-code`). */
const BAD_OPAQUE_KEY = { message: 'Invalid API key' };
/** The hosted answer for a secret key sent by a browser (with `sb-error-code`). */
export const SECRET_KEY_IN_BROWSER = {
  message: 'Forbidden use of secret API key in browser',
  hint: 'Secret API keys can only be used in a protected environment and should never be used in a browser. Delete this secret API key immediately!',
};

/** What a project API key is: its kind and the role it stands for. */
export interface ApiKeyInfo {
  kind: 'legacy' | 'publishable' | 'secret';
  role: 'anon' | 'service_role';
}

/** The kind and role of one of the project's API keys, or null for anything else. */
export function apiKeyInfo(
  config: ServerConfig,
  key: string | null | undefined,
): ApiKeyInfo | null {
  if (!key) return null;
  if (key === config.anonKey) return { kind: 'legacy', role: 'anon' };
  if (key === config.serviceRoleKey) return { kind: 'legacy', role: 'service_role' };
  if (key.startsWith('sb_')) {
    if (config.publishableKeys.includes(key)) return { kind: 'publishable', role: 'anon' };
    if (config.secretKeys.includes(key)) return { kind: 'secret', role: 'service_role' };
  }
  return null;
}

/** Seconds a JWT derived from a publishable or secret key is valid. */
const DERIVED_TTL = 3600;
/** Derived JWTs are made again this long before they expire. */
const DERIVED_MARGIN = 300;
const derived = new WeakMap<
  ServerConfig,
  Map<string, { token: string; exp: number; kid: string | null }>
>();

/**
 * The JWT that stands for a project API key when a service needs one: a legacy key is a JWT
 * itself; for a publishable or secret key the gateway makes a short-lived token with its role
 * (`{ iss, role, iat, exp }`), signed with the current signing key, as the hosted gateway
 * hands services a JWT for the new keys. Null when `key` is not a project key.
 */
export function keyToken(config: ServerConfig, key: string | null | undefined): string | null {
  const info = apiKeyInfo(config, key);
  if (!info) return null;
  if (info.kind === 'legacy') return key as string;
  let cache = derived.get(config);
  if (!cache) {
    cache = new Map();
    derived.set(config, cache);
  }
  const now = Math.floor(Date.now() / 1000);
  const current = config.signingKeys.current().kid;
  const hit = cache.get(info.role);
  if (hit && hit.exp - DERIVED_MARGIN > now && hit.kid === current) return hit.token;
  const exp = now + DERIVED_TTL;
  const token = config.signingKeys.sign({ iss: 'supabase', role: info.role, iat: now, exp });
  cache.set(info.role, { token, exp, kid: current });
  return token;
}

/** True for a browser's `User-Agent` (the hosted check for secret keys). */
export const isBrowser = (userAgent: string | null | undefined): boolean =>
  typeof userAgent === 'string' && userAgent.includes('Mozilla/');

/**
 * Gateway behaviour of the hosted backend: reads `apikey` (header, or query for realtime),
 * checks it when `keyAuth` is on (401 with the hosted bodies), refuses a secret key from a
 * browser, and derives the token a service should use (the `Authorization` JWT when present,
 * else the key's JWT).
 */
export function gateway(
  config: ServerConfig,
  options: { keyAuth: boolean; basePath: string; openPaths?: readonly string[] },
): MiddlewareHandler<AppEnv> {
  const open = new Set((options.openPaths ?? []).map((p) => options.basePath + p));
  return async (c, next) => {
    const sent = bearerToken(c.req.header('authorization'));
    // A publishable or secret key as the bearer stands for the key itself when it is the
    // `apikey` (what supabase-js sends) or when no `apikey` came at all.
    const header = c.req.header('apikey') ?? c.req.query('apikey') ?? null;
    const bearerIsKey = sent?.startsWith('sb_') === true && (header === null || sent === header);
    const apiKey = header ?? (bearerIsKey ? sent : null);
    const info = apiKeyInfo(config, apiKey);
    const isPreflight = c.req.method === 'OPTIONS';
    if (!isPreflight && info?.kind === 'secret' && isBrowser(c.req.header('user-agent'))) {
      return c.json(SECRET_KEY_IN_BROWSER, 401, {
        'sb-error-code': 'UNAUTHORIZED_INVALID_API_KEY_TYPE',
      });
    }
    if (options.keyAuth && !isPreflight && !open.has(c.req.path)) {
      if (!apiKey) return c.json(NO_KEY, 401);
      if (!info) {
        return apiKey.startsWith('sb_')
          ? c.json(BAD_OPAQUE_KEY, 401, { 'sb-error-code': 'UNAUTHORIZED_INVALID_API_KEY' })
          : c.json(BAD_KEY, 401);
      }
    }
    const hasUserToken = sent !== null && !bearerIsKey;
    c.set('gateway', {
      apiKey,
      keyRole: info?.role ?? null,
      token: hasUserToken ? sent : keyToken(config, apiKey),
      hasUserToken,
    });
    await next();
  };
}
