/**
 * `@app/backend-sdk/functions` — invoking edge functions at `/functions/v1/<name>`.
 */
import { type BackendErrorOptions, FunctionsError } from '../errors';
import { createHttp, type Http, type HttpOptions, hasHeader } from '../http/index';

/** Options of one invocation. */
export interface InvokeOptions {
  /**
   * The request body: objects are sent as JSON, strings as text, Blob/ArrayBuffer as binary,
   * FormData as multipart, ReadableStream as a stream.
   */
  body?: unknown;
  /** Extra headers (they win over computed ones). */
  headers?: Record<string, string>;
  /** HTTP method; default POST. */
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Region to run in (`x-region` header and `forceFunctionRegion` query); `any` for none. */
  region?: string;
  /** Aborts the invocation. */
  signal?: AbortSignal;
  /** Timeout in milliseconds. */
  timeout?: number;
}

/** Result of {@link FunctionsClient.invoke}. */
export type InvokeResult<T> =
  | { data: T; error: null; response: Response }
  | { data: null; error: FunctionsError; response: Response | null };

/** Options of {@link createFunctionsClient}. */
export type FunctionsClientOptions = Omit<HttpOptions, 'url' | 'key'>;

const isPlainObject = (v: unknown) =>
  v !== null &&
  typeof v === 'object' &&
  (Object.getPrototypeOf(v) ?? Object.prototype) === Object.prototype;

/** Decodes a response body by its Content-Type, as §5.2 describes. */
async function decode(res: Response): Promise<unknown> {
  const type = (res.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/json') {
    const text = await res.text();
    return text === '' ? null : JSON.parse(text);
  }
  if (type === 'application/octet-stream' || type === 'application/pdf') return res.blob();
  if (type === 'text/event-stream') return res;
  if (type === 'multipart/form-data') return res.formData();
  return res.text();
}

/** The functions capability of one project. */
export class FunctionsClient {
  /** The HTTP layer invocations go through. */
  declare readonly http: Http;
  #token: string | null = null;

  constructor(http: Http) {
    this.http = http;
  }

  /** Sends `token` as the bearer of later invocations (instead of the session's). */
  setAuth(token: string | null): void {
    this.#token = token;
  }

  /**
   * Invokes the function `name` (which may contain `/` for a subpath).
   *
   * @example
   * const { data, error } = await functions.invoke('hello', { body: { name: 'x' } });
   */
  async invoke<T = unknown>(name: string, options: InvokeOptions = {}): Promise<InvokeResult<T>> {
    const headers: Record<string, string> = {};
    const fetchError = (m: string, o: BackendErrorOptions) =>
      new FunctionsError('Failed to send a request to the Edge Function', {
        ...o,
        details: m,
        type: 'fetch',
      });
    const { body } = options;
    let json: unknown;
    if (body !== undefined && !hasHeader(options.headers ?? {}, 'content-type')) {
      if (typeof Blob !== 'undefined' && body instanceof Blob)
        headers['Content-Type'] = body.type || 'application/octet-stream';
      else if (body instanceof ArrayBuffer || ArrayBuffer.isView(body))
        headers['Content-Type'] = 'application/octet-stream';
      else if (typeof body === 'string') headers['Content-Type'] = 'text/plain';
      else if (
        !(body instanceof FormData) &&
        !(body instanceof ReadableStream) &&
        !(body instanceof URLSearchParams)
      ) {
        headers['Content-Type'] = 'application/json';
        json = body;
      }
    } else if (isPlainObject(body) || Array.isArray(body)) json = body;
    const query = new URLSearchParams();
    if (options.region && options.region !== 'any') {
      headers['x-region'] = options.region;
      query.set('forceFunctionRegion', options.region);
    }
    let res: Response;
    try {
      res = await this.http.send({
        method: options.method ?? 'POST',
        path: `/functions/v1/${name.split('/').map(encodeURIComponent).join('/')}`,
        query: query.toString(),
        headers: { ...headers, ...options.headers },
        // A `json` value wins over `body` in the HTTP layer.
        json,
        body: (body as BodyInit) ?? null,
        signal: options.signal ?? null,
        timeout: options.timeout || undefined,
        // Else the session's token, or the key (never a publishable or secret one).
        token: this.#token ?? undefined,
        retry: false,
        error: fetchError,
      });
    } catch (error) {
      return { data: null, error: error as FunctionsError, response: null };
    }
    const relay = res.headers.get('x-relay-error') === 'true';
    // A failed call hands over the response unread (`error.context`, as the official client
    // does) and reads a copy into `error.body`.
    const raw = relay || !res.ok ? res : null;
    let data: unknown;
    try {
      data = await decode(raw ? res.clone() : res);
    } catch (cause) {
      data = null;
      if (res.ok)
        return {
          data: null,
          error: new FunctionsError('The Edge Function response could not be decoded', {
            type: 'http',
            status: res.status,
            code: 'invalid_response',
            cause,
            response: res,
          }),
          response: res,
        };
    }
    if (raw) {
      const b = data as { code?: unknown; message?: unknown } | null;
      const error = new FunctionsError(
        relay
          ? 'Relay Error invoking the Edge Function'
          : 'Edge Function returned a non-2xx status code',
        {
          type: relay ? 'relay' : 'http',
          status: res.status,
          code: typeof b?.code === 'string' ? b.code : '',
          details: typeof b?.message === 'string' ? b.message : null,
          body: data,
          response: raw,
        },
      );
      return { data: null, error, response: raw };
    }
    return { data: data as T, error: null, response: res };
  }
}

/**
 * A functions client alone (no auth capability): pass `accessToken` to send a user's token.
 *
 * @example
 * import { createFunctionsClient } from '@app/backend-sdk/functions';
 * const functions = createFunctionsClient('http://127.0.0.1:54321', anonKey);
 * const { data } = await functions.invoke('hello', { body: { name: 'x' } });
 */
export function createFunctionsClient(
  url: string,
  key: string,
  options: FunctionsClientOptions = {},
): FunctionsClient {
  return new FunctionsClient(createHttp({ ...options, url, key }));
}

export { FunctionsError, type FunctionsErrorType, isFunctionsError } from '../errors';
