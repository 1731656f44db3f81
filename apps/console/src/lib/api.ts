/**
 * The console's own API (`/_console/api`, see the server's src/console): through the SDK's
 * one HTTP layer, with the console token the page was opened with.
 */
import { BackendError, createHttp, type Http } from '@app/backend-sdk';

/** Where the page keeps the console token (per origin, so per server port). */
export const TOKEN_KEY = 'backend-console-token';
export const TOKEN_HEADER = 'x-console-token';

export type Result<T> = { data: T; error: null } | { data: null; error: BackendError };

const failure = (message: string, status = 0) =>
  ({ data: null, error: new BackendError(message, { status }) }) as const;

/** Calls of the console API; each resolves `{ data, error }` like the SDK's. */
export class ConsoleApi {
  constructor(readonly http: Http) {}

  /** An API for the page's own origin with `token`. */
  static create(token: string, key = 'console'): ConsoleApi {
    return new ConsoleApi(
      createHttp({ url: location.origin, key, headers: { [TOKEN_HEADER]: token }, retries: 0 }),
    );
  }

  /** A call whose answer is read whatever its status: `{ status, body }`, or the network error. */
  async exchange<T>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<
    { status: number; body: T | null; error: null } | { status: 0; body: null; error: BackendError }
  > {
    let res: Response;
    try {
      res = await this.http.send({
        method,
        path: `/_console/api${path}`,
        ...(body === undefined
          ? {}
          : { json: body, headers: { 'content-type': 'application/json' } }),
        token: null,
        error: (message, options) => new BackendError(message, options),
      });
    } catch (error) {
      return { status: 0, body: null, error: error as BackendError };
    }
    const json = res.status === 204 ? null : ((await res.json().catch(() => null)) as T | null);
    return { status: res.status, body: json, error: null };
  }

  async send<T>(method: string, path: string, body?: unknown): Promise<Result<T>> {
    const res = await this.exchange<T & { message?: string }>(method, path, body);
    if (res.error) return { data: null, error: res.error };
    if (res.status >= 400) return failure(res.body?.message ?? `HTTP ${res.status}`, res.status);
    return { data: res.body as T, error: null };
  }

  get<T>(path: string) {
    return this.send<T>('GET', path);
  }

  post<T>(path: string, body: unknown) {
    return this.send<T>('POST', path, body);
  }

  delete(path: string) {
    return this.send<null>('DELETE', path);
  }

  /** The raw response of a streaming endpoint (the live log). */
  stream(path: string, signal: AbortSignal): Promise<Response> {
    return this.http.send({
      path: `/_console/api${path}`,
      signal,
      token: null,
      retry: false,
      error: (message, options) => new BackendError(message, options),
    });
  }
}

/**
 * An SDK call whose error branch still carries a data shape (auth's `{ user: null }`) as a
 * plain `{ data, error }` for the query hooks.
 */
export async function settled<T>(
  call: PromiseLike<{ data: unknown; error: Error | null }>,
): Promise<{ data: T; error: null } | { data: null; error: Error }> {
  const { data, error } = await call;
  return error ? { data: null, error } : { data: data as T, error: null };
}
