/**
 * The SDK's one HTTP layer, on `fetch`: base URL, `apikey` + `Authorization`,
 * `X-Client-Info`, timeouts, abort signals, retries of idempotent requests on
 * 503/520/network errors (with backoff and `Retry-After`), and request failures turned into
 * the SDK's error classes. Capabilities read the HTTP status and body themselves (each
 * protocol has its own error shape); everything that never produced a response is mapped
 * here. Bodies are passed to `fetch` as they are, never copied, so upload chunks go out
 * without a second buffer.
 */
import { BackendError, type ErrorFactory } from '../errors';

declare const __SDK_VERSION__: string | undefined;

/** The SDK's version as sent in `X-Client-Info`. */
export const VERSION: string = typeof __SDK_VERSION__ === 'string' ? __SDK_VERSION__ : 'dev';

/** A `fetch` implementation (the global one, or a wrapper such as a recorder or a proxy). */
export type Fetch = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A request body of known length that is written piece by piece rather than held (a range of
 * a file being uploaded). Only the Node transport (`transport`) streams it; for any other
 * fetch, `bytes()` reads it whole.
 */
export interface StreamedBody {
  readonly length: number;
  /** Writes the bytes in order through `write`, awaiting each write before the next piece. */
  writeTo(write: (piece: Uint8Array) => Promise<void>): Promise<void>;
  /** All the bytes in one array. */
  bytes(): Promise<Uint8Array>;
}

/** Supplies the current access token, or null/undefined when signed out. */
export type AccessTokenGetter = () =>
  | Promise<string | null | undefined>
  | string
  | null
  | undefined;

/** Options of {@link createHttp}, shared by every capability of one client. */
export interface HttpOptions {
  /** Project URL, e.g. `https://<ref>.supabase.co` or `http://127.0.0.1:54321`. */
  url: string;
  /** Project API key (anon / publishable, or service role / secret). */
  key: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** The fetch implementation; default `globalThis.fetch`. */
  fetch?: Fetch;
  /** Timeout of a request, its retries included, in milliseconds; default none. */
  timeout?: number;
  /** Retries of idempotent requests (GET, HEAD, OPTIONS); default 3. */
  retries?: number;
  /** Backoff before retry n (1-based), in ms; default `min(1000·2^(n-1), 30000)`. */
  retryDelay?: (attempt: number) => number;
  /**
   * Current user access token; when absent or null the key is sent as bearer (a legacy JWT
   * key only: a publishable or secret key goes in `apikey` alone).
   */
  accessToken?: AccessTokenGetter;
}

/** One request through {@link Http.send}. */
export interface HttpRequest {
  /** Default GET. */
  method?: string;
  /** Path below the project URL, starting with `/`, e.g. `/rest/v1/todos`. */
  path: string;
  /** Encoded query string without `?`. */
  query?: string;
  headers?: Record<string, string>;
  /** A raw body. */
  body?: BodyInit | null;
  /** A value to send as JSON (bigints become strings); set `content-type` yourself. */
  json?: unknown;
  signal?: AbortSignal | null;
  /** Overrides the client's timeout (ms). */
  timeout?: number;
  /**
   * Bearer token: a string to send it, `null` to send no `Authorization`, undefined for the
   * default (current access token, else the key). A publishable or secret key is never sent
   * as a bearer.
   */
  token?: string | null;
  /**
   * Allow retries; default true for GET/HEAD/OPTIONS, never for other methods. A stream
   * body is never retried (it can be read once).
   */
  retry?: boolean;
  /**
   * What sends the request when the client has no `fetch` of its own, instead of the global
   * fetch (the Node transport for upload chunks).
   */
  transport?: Fetch;
  /** Builds the capability's error when no response arrived. */
  error: ErrorFactory;
}

/** The HTTP layer of one client. */
export interface Http {
  /** Project URL without trailing slash. */
  readonly url: string;
  /** Project API key. */
  readonly key: string;
  /** The options it was built from (to derive another layer with {@link createHttp}). */
  readonly options: HttpOptions;
  /** The current access token (from the auth capability), or null. */
  accessToken(): Promise<string | null>;
  /**
   * Sends a request. Resolves with the response whatever its status; rejects with the
   * capability's error (status 0) when no response arrived: `network_error`, `timeout`,
   * `aborted` or `invalid_body`.
   */
  send(request: HttpRequest): Promise<Response>;
}

const RETRYABLE = ['GET', 'HEAD', 'OPTIONS'];
const RETRY_STATUSES = [503, 520];
/** Longest `Retry-After` honoured; a longer one returns the response instead of waiting. */
const MAX_RETRY_AFTER = 30_000;

/**
 * Checks a project URL and key, as every `create…Client` does first.
 * Throws a {@link BackendError} with code `invalid_argument` when they are unusable.
 */
export function checkProject(url: unknown, key: unknown): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(String(url));
  } catch {}
  if (!parsed || !/^https?:$/.test(parsed.protocol))
    throw new BackendError(`Invalid project URL: ${String(url)} (expected http:// or https://)`, {
      code: 'invalid_argument',
    });
  if (typeof key !== 'string' || key.trim() === '')
    throw new BackendError('The project API key is required', { code: 'invalid_argument' });
  return parsed.href.replace(/\/+$/, '');
}

const serialise = (value: unknown) =>
  JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));

/**
 * Builds the HTTP layer of a client.
 *
 * @example
 * const http = createHttp({ url: 'http://127.0.0.1:54321', key: anonKey });
 * const res = await http.send({ path: '/rest/v1/todos', query: 'select=*', error: (m, o) => new RestError(m, o) });
 */
export function createHttp(options: HttpOptions): Http {
  const url = checkProject(options.url, options.key);
  const { key, retries = 3 } = options;
  const base: Record<string, string> = {
    'X-Client-Info': `backend-sdk-js/${VERSION}`,
    ...options.headers,
  };
  const delay = options.retryDelay ?? ((n: number) => Math.min(1000 * 2 ** (n - 1), 30_000));
  const accessToken = async () => (await options.accessToken?.()) || null;

  return {
    url,
    key,
    options,
    accessToken,
    async send(req) {
      const method = (req.method ?? 'GET').toUpperCase();
      const headers: Record<string, string> = { apikey: key, ...base, ...req.headers };
      const token = req.token === undefined ? ((await accessToken()) ?? key) : req.token;
      // A publishable or secret key is not a JWT: it goes in `apikey` only.
      if (token !== null && !isOpaqueKey(token) && !hasHeader(headers, 'authorization'))
        headers.Authorization = `Bearer ${token}`;
      let body = req.body;
      if (req.json !== undefined) {
        try {
          body = serialise(req.json);
        } catch (cause) {
          throw req.error(`The request body cannot be serialised as JSON: ${String(cause)}`, {
            code: 'invalid_body',
            cause,
          });
        }
      }
      const signal = req.signal ?? undefined;
      if (signal?.aborted) throw aborted(req, signal.reason);
      const canRetry = (req.retry ?? RETRYABLE.includes(method)) && !isStream(body);
      const limit = canRetry ? retries : 0;
      const target = `${url}${req.path}${req.query ? `?${req.query}` : ''}`;
      const ms = req.timeout ?? options.timeout;
      // One deadline for the request and its retries.
      const timer = ms ? AbortSignal.timeout(ms) : undefined;
      const combined = signal && timer ? AbortSignal.any([signal, timer]) : (signal ?? timer);
      const init = {
        method,
        headers,
        body: body ?? null,
        signal: combined,
        ...(isStream(body) ? { duplex: 'half' } : {}),
      } as RequestInit;
      for (let attempt = 1; ; attempt++) {
        let response: Response | undefined;
        try {
          response = await (options.fetch ?? req.transport ?? fetch)(target, init);
        } catch (cause) {
          if (signal?.aborted) throw aborted(req, cause);
          if (timer?.aborted) throw req.error('The request timed out', { code: 'timeout', cause });
          if (attempt > limit)
            throw req.error(`Network request failed: ${(cause as Error)?.message ?? cause}`, {
              code: 'network_error',
              cause,
            });
        }
        if (response && (attempt > limit || !RETRY_STATUSES.includes(response.status)))
          return response;
        const after = response && retryAfter(response);
        if (response && after !== undefined && after > MAX_RETRY_AFTER) return response;
        const wait = after ?? delay(attempt);
        await response?.body?.cancel().catch(() => {});
        try {
          await sleep(wait, combined);
        } catch (cause) {
          if (signal?.aborted) throw aborted(req, cause);
          throw req.error('The request timed out', { code: 'timeout', cause });
        }
        headers['X-Retry-Count'] = String(attempt);
      }
    },
  };
}

const isStream = (body: unknown): body is ReadableStream =>
  typeof ReadableStream !== 'undefined' && body instanceof ReadableStream;

/** `Retry-After` in ms (delta-seconds or an HTTP date), or undefined. */
const retryAfter = (response: Response): number | undefined => {
  const value = response.headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  const ms = Number.isNaN(seconds) ? Date.parse(value) - Date.now() : seconds * 1000;
  return Number.isNaN(ms) ? undefined : Math.max(0, ms);
};

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export const sleep = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener('abort', stop);
      resolve();
    };
    const id = setTimeout(done, ms);
    const stop = () => {
      clearTimeout(id);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', stop, { once: true });
  });

const aborted = (req: HttpRequest, cause: unknown) =>
  req.error('The request was aborted', { code: 'aborted', cause });

/**
 * True for the hosted backend's publishable and secret keys (`sb_publishable_…`,
 * `sb_secret_…`): not JWTs, so never sent as a bearer token.
 */
export const isOpaqueKey = (key: string): boolean => /^sb_(publishable|secret)_/.test(key);

/** Case-insensitive header lookup in a plain object. */
export function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((k) => k.toLowerCase() === name);
}
