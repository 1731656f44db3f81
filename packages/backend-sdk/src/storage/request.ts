/** The storage capability's requests through the client's one HTTP layer. */
import type { Http, HttpRequest } from '../http/index';
import { StorageError, storageFailure } from './errors';

/** The `{ data, error }` result of every storage call. */
export type StorageResult<T> = { data: T; error: null } | { data: null; error: StorageError };

/** Encodes an object path for a URL, segment by segment. */
export const encodePath = (path: string): string =>
  path.replace(/^\/+/, '').split('/').map(encodeURIComponent).join('/');

/** Sends a storage request; resolves with the response or the error (never throws). */
export async function storageSend(
  http: Http,
  req: Omit<HttpRequest, 'error' | 'path'> & { path: string },
): Promise<{ res: Response; error: null } | { res: null; error: StorageError }> {
  try {
    const res = await http.send({
      ...req,
      path: `/storage/v1${req.path}`,
      error: (message, options) => new StorageError(message, options),
    });
    if (!res.ok) return { res: null, error: await storageFailure(res) };
    return { res, error: null };
  } catch (e) {
    return {
      res: null,
      error: e instanceof StorageError ? e : new StorageError(String(e), { cause: e }),
    };
  }
}

/** Sends a storage request and parses its JSON answer. */
export async function storageJson<T>(
  http: Http,
  req: Omit<HttpRequest, 'error' | 'path'> & { path: string },
  map: (body: never) => T = (body) => body as T,
): Promise<StorageResult<T>> {
  const headers =
    req.json === undefined ? req.headers : { 'Content-Type': 'application/json', ...req.headers };
  const { res, error } = await storageSend(http, { ...req, headers });
  if (error) return { data: null, error };
  try {
    const text = await res.text();
    return { data: map((text ? JSON.parse(text) : null) as never), error: null };
  } catch (e) {
    return {
      data: null,
      error: new StorageError('Invalid response from storage', {
        code: 'invalid_response',
        cause: e,
      }),
    };
  }
}
