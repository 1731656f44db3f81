/**
 * Requests to the auth server (`/auth/v1`) with the conventions of its protocol
 * (`X-Supabase-Api-Version`, JSON bodies, `redirect_to` in the query) and its error
 * shapes mapped to {@link AuthError}.
 */
import { AuthError, type BackendErrorOptions } from '../errors';
import type { Http } from '../http/index';
import type { AuthResult, Session } from './types';

/** The API version auth requests announce; errors then come as `{code, message}`. */
export const API_VERSION = '2024-01-01';

/** One request to the auth server. */
export interface AuthRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below `/auth/v1`, e.g. `/token`. */
  path: string;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** Bearer token (a user's access token); default the project key. */
  token?: string;
  signal?: AbortSignal;
  /** Gives the request up after this many ms (error code `timeout`). */
  timeout?: number;
  /** Receives the response headers of a successful request. */
  onHeaders?: (headers: Headers) => void;
}

const authError = (m: string, o: BackendErrorOptions) => new AuthError(m, o);

/** Query parameters, undefined values left out. */
export function toQuery(values: Record<string, string | undefined> = {}): URLSearchParams {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined) query.set(k, v);
  return query;
}

/**
 * Sends an auth request; resolves the parsed JSON body (null when empty), rejects with an
 * {@link AuthError}: the server's `code` (or legacy `error_code`) and message, status 0 for
 * network failures.
 */
export async function authFetch(http: Http, req: AuthRequest): Promise<unknown> {
  const query = toQuery(req.query);
  const method = req.method ?? 'GET';
  const res = await http.send({
    method,
    path: `/auth/v1${req.path}`,
    query: query.toString(),
    headers: {
      'X-Supabase-Api-Version': API_VERSION,
      ...(method === 'GET' ? {} : { 'Content-Type': 'application/json;charset=UTF-8' }),
    },
    json: req.body,
    token: req.token ?? http.key,
    signal: req.signal ?? null,
    timeout: req.timeout || undefined,
    retry: false,
    error: authError,
  });
  const text = await res.text().catch(() => '');
  let body: Record<string, unknown> | null = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {}
  if (res.ok) {
    req.onHeaders?.(res.headers);
    return body;
  }
  const b = body ?? {};
  const versioned = (res.headers.get('x-supabase-api-version') ?? '') >= API_VERSION;
  const code = String((versioned && typeof b.code === 'string' ? b.code : b.error_code) ?? '');
  const message = b.msg ?? b.message ?? b.error_description ?? b.error ?? (text || res.statusText);
  throw new AuthError(String(message || `Request failed with status ${res.status}`), {
    status: res.status,
    code: code || (res.status >= 500 ? 'unexpected_failure' : ''),
    details: b.weak_password ?? null,
    reasons: (b.weak_password as { reasons?: string[] } | undefined)?.reasons,
  });
}

/**
 * The page numbers of a paged admin list from its `Link` (`rel="next"`, `rel="last"`) and
 * `X-Total-Count` headers.
 */
export function pageInfo(headers: Headers): {
  nextPage: number | null;
  lastPage: number;
  total: number;
} {
  const link = (rel: string) => {
    const m = headers.get('link')?.match(new RegExp(`[?&]page=(\\d+)[^>]*>; rel="${rel}"`));
    return m ? Number(m[1]) : null;
  };
  return {
    nextPage: link('next'),
    lastPage: link('last') ?? 0,
    total: Number(headers.get('x-total-count') ?? 0),
  };
}

/** True when a failure may go away by retrying (no response, 5xx, 52x). */
export const isRetryable = (error: AuthError): boolean =>
  error.status === 0 ? error.code !== 'aborted' : error.status >= 500 && error.status <= 599;

/** Runs `fn`; maps a thrown error to `{ data: <nulls>, error }`. */
export async function attempt<T extends object>(
  empty: { [K in keyof T]: null },
  fn: () => Promise<T>,
): Promise<AuthResult<T>> {
  try {
    return { data: await fn(), error: null };
  } catch (e) {
    return { data: empty, error: toAuthError(e) };
  }
}

/** `e` when it is an {@link AuthError}, else an `AuthError` with its message. */
export const toAuthError = (e: unknown): AuthError =>
  e instanceof AuthError ? e : new AuthError(String((e as Error)?.message ?? e), { cause: e });

/** A response is a session when it has the three token fields. */
export function asSession(body: unknown, now: number): Session | null {
  const s = body as Session | null;
  if (!s?.access_token || !s.refresh_token || !s.expires_in) return null;
  return { ...s, expires_at: s.expires_at ?? Math.round(now / 1000) + s.expires_in };
}

/** The bytes of a base64url text (padding optional). */
export const fromBase64url = (text: string): Uint8Array =>
  Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));

/** The payload of a JWT, or null when it cannot be decoded. */
export function jwtPayload(token: string): Record<string, unknown> | null {
  try {
    return JSON.parse(new TextDecoder().decode(fromBase64url(token.split('.')[1] ?? '')));
  } catch {
    return null;
  }
}
