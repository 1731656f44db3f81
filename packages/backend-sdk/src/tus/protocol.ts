/**
 * The tus 1.0.0 protocol steps (creation, creation-with-upload, creation-defer-length,
 * termination) as the storage service serves them under `/storage/v1/upload/resumable`.
 */
import { UploadError } from './errors';

/**
 * Sends one request. Resolves with the response whatever its status; rejects only on a
 * network failure or an abort. The client's HTTP layer provides it, adding `apikey` and a
 * fresh `Authorization` to every request.
 */
export type TusFetch = (
  url: string,
  init: {
    method: string;
    headers: Record<string, string>;
    body?: Uint8Array | undefined;
    signal: AbortSignal;
  },
) => Promise<Response>;

/** Offset and (if known) length of an upload on the server. */
export interface TusOffset {
  offset: number;
  length: number | undefined;
}

const OCTETS = 'application/offset+octet-stream';
const HINTS: Record<number, string> = {
  403: 'Upload not allowed',
  412: 'The server does not speak tus 1.0.0',
  413: 'The file is too large',
  415: 'This type of file is not accepted',
};

/** Base64 of the UTF-8 bytes of a string. */
export const base64Utf8 = (text: string): string => {
  let bin = '';
  for (const b of new TextEncoder().encode(text)) bin += String.fromCharCode(b);
  return btoa(bin);
};

/** `Upload-Metadata`: comma-separated `key base64(utf8 value)` pairs. */
export const encodeMetadata = (meta: Record<string, string | undefined>): string =>
  Object.entries(meta)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `${k} ${base64Utf8(v)}`)
    .join(',');

/** Sends one tus request with `Tus-Resumable`; network failures become `UploadError`s. */
export async function tusRequest(
  fetch: TusFetch,
  url: string,
  method: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  body?: Uint8Array,
): Promise<Response> {
  try {
    return await fetch(url, {
      method,
      headers: { 'Tus-Resumable': '1.0.0', ...headers },
      body,
      signal,
    });
  } catch (cause) {
    throw signal.aborted
      ? new UploadError('The upload was aborted', { code: 'aborted', cause })
      : new UploadError(`Network failure during ${method}`, { code: 'network_error', cause });
  }
}

/** Turns an unexpected tus response into an `UploadError` carrying the server's text. */
export async function tusFailure(res: Response, method: string): Promise<UploadError> {
  const text = (await res.text().catch(() => '')).trim();
  const { status } = res;
  const code =
    status === 404 || status === 410
      ? 'upload_gone'
      : status === 409
        ? 'offset_mismatch'
        : `http_${status}`;
  const hint = HINTS[status];
  const message = hint
    ? `${hint}${text ? `: ${text}` : ''}`
    : text || `${method} failed with HTTP ${status}`;
  return new UploadError(message, { status, code, details: text || null });
}

const offsetOf = (res: Response): number => {
  const value = Number(res.headers.get('Upload-Offset'));
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new UploadError('The server sent no valid Upload-Offset', {
      status: res.status,
      code: 'invalid_response',
    });
  }
  return value;
};

/**
 * POST: creates an upload, optionally carrying the first chunk. Returns its absolute URL and
 * the offset after the carried bytes.
 */
export async function createUpload(
  fetch: TusFetch,
  endpoint: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  length: number | undefined,
  chunk?: Uint8Array,
): Promise<{ url: string; offset: number }> {
  const h = { ...headers };
  if (length === undefined) h['Upload-Defer-Length'] = '1';
  else h['Upload-Length'] = String(length);
  if (chunk) h['Content-Type'] = OCTETS;
  const res = await tusRequest(fetch, endpoint, 'POST', h, signal, chunk);
  const location = res.headers.get('Location');
  if (res.status !== 201 || !location) throw await tusFailure(res, 'POST');
  void res.body?.cancel();
  const url = new URL(location, endpoint).href;
  return { url, offset: chunk && res.headers.has('Upload-Offset') ? offsetOf(res) : 0 };
}

/** HEAD: the server's offset (and length) of an upload. */
export async function headUpload(
  fetch: TusFetch,
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<TusOffset> {
  const res = await tusRequest(fetch, url, 'HEAD', headers, signal);
  if (res.status !== 200 && res.status !== 204) {
    // An upload this client cannot see any more (403 included) is treated as gone.
    if (res.status === 403) {
      throw new UploadError('The upload is no longer accessible', {
        status: 403,
        code: 'upload_gone',
      });
    }
    throw await tusFailure(res, 'HEAD');
  }
  const length = res.headers.get('Upload-Length');
  return { offset: offsetOf(res), length: length === null ? undefined : Number(length) };
}

/** PATCH: sends bytes at `offset`; `length` declares a deferred length. Returns the new offset. */
export async function patchUpload(
  fetch: TusFetch,
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  offset: number,
  chunk: Uint8Array,
  length?: number,
): Promise<number> {
  const h: Record<string, string> = {
    ...headers,
    'Content-Type': OCTETS,
    'Upload-Offset': String(offset),
  };
  if (length !== undefined) h['Upload-Length'] = String(length);
  const res = await tusRequest(fetch, url, 'PATCH', h, signal, chunk);
  if (res.status !== 204 && res.status !== 200) throw await tusFailure(res, 'PATCH');
  void res.body?.cancel();
  return offsetOf(res);
}

/** DELETE: terminates an unfinished upload (an already gone one counts as terminated). */
export async function terminateUpload(
  fetch: TusFetch,
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<void> {
  const res = await tusRequest(fetch, url, 'DELETE', headers, signal);
  if (res.status !== 204 && res.status !== 200 && res.status !== 404 && res.status !== 410) {
    throw await tusFailure(res, 'DELETE');
  }
  void res.body?.cancel();
}
