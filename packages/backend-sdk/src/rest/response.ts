/**
 * Reading REST responses into `{ data, error, count, status, statusText }`.
 */
import { RestError } from '../errors';
import type { RestRequest, RestState } from './builder';
import type { RestFailure, RestSuccess } from './types';

/** A result before `success` is set (the builder sets it from `error`). */
export type Unmarked<T> = Omit<RestSuccess<T>, 'success'> | Omit<RestFailure, 'success'>;

/**
 * Turns a PostgREST response into a result, with the official client's quirks: a 404 with an
 * empty body is a 204 result, a 404 with an array body an empty 200 result; the count comes
 * from `Content-Range` only when one was requested; `maybeSingle` coerces arrays.
 */
export async function readResponse<Result>(
  res: Response,
  req: RestRequest,
  state: Pick<RestState, 'prefer' | 'maybeSingle'>,
): Promise<Unmarked<Result>> {
  const { status, statusText } = res;
  const body = req.method === 'HEAD' ? '' : await res.text();
  if (!res.ok) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      if (status === 404 && body === '')
        return { data: null as Result, error: null, count: null, status: 204, statusText };
      parsed = { message: body };
    }
    if (Array.isArray(parsed) && status === 404)
      return { data: [] as Result, error: null, count: null, status: 200, statusText: 'OK' };
    const e = (parsed ?? {}) as Record<string, unknown>;
    const error = new RestError(String(e.message ?? statusText), {
      status,
      code: typeof e.code === 'string' ? e.code : '',
      details: e.details ?? null,
      hint: (e.hint as string | null) ?? null,
    });
    return { data: null, error, count: null, status, statusText };
  }
  const accept = req.headers.Accept ?? '';
  let data: unknown = null;
  if (body !== '') {
    if (accept === 'text/csv' || accept.includes('vnd.pgrst.plan+text')) data = body;
    else
      try {
        data = JSON.parse(body);
      } catch {
        const error = new RestError(body, { status });
        return { data: null, error, count: null, status, statusText };
      }
  }
  const range = res.headers.get('content-range')?.split('/')[1];
  let count = state.prefer.some((p) => p.startsWith('count=')) && range ? +range : null;
  if (Number.isNaN(count)) count = null;
  if (state.maybeSingle && Array.isArray(data)) {
    if (data.length > 1) {
      const error = new RestError('JSON object requested, multiple (or no) rows returned', {
        status: 406,
        code: 'PGRST116',
        details: `Results contain ${data.length} rows, application/vnd.pgrst.object+json requires 1 row`,
      });
      return { data: null, error, count: null, status: 406, statusText: 'Not Acceptable' };
    }
    data = data[0] ?? null;
  }
  return { data: data as Result, error: null, count, status, statusText };
}
