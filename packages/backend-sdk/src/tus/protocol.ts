/**
 * The tus 1.0.0 protocol steps (creation, creation-with-upload, creation-defer-length,
 * termination) as the storage service serves them under `/storage/v1/upload/resumable`.
 */
import type { StreamedBody } from '../http/index';
import { UploadError } from './errors';

/**
 * The bytes of a chunk: in memory, a slice of a file the browser reads as it sends it, or a
 * range of a file read as it is sent (Node).
 */
export type ChunkBody = Uint8Array | Blob | StreamedBody;

/** The length of a chunk in bytes. */
export const chunkLength = (body: ChunkBody): number =>
  typeof Blob !== 'undefined' && body instanceof Blob ? body.size : (body as Uint8Array).length;

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
    body?: ChunkBody | undefined;
    signal: AbortSignal;
    /** Give up waiting for the response after this many ms (a retryable network error). */
    timeout?: number | undefined;
  },
) => Promise<Response>;

/**
 * How long requests without a body (HEAD, DELETE) may wait for their answer before they count
 * as a network failure and are retried: a server that accepted the connection but never
 * answers (restarting, half-open socket) must not stall the upload.
 */
export const SHORT_TIMEOUT = 10_000;

/** Offset and (if known) length of an upload on the server. */
export interface TusOffset {
  offset: number;
  length: number | undefined;
}

const OCTETS = 'application/offset+octet-stream';
const HINTS: Record<number, string> = {
  403: 'Upload not allowed',
  412: 'tus 1.0.0 not supported',
  413: 'File too large',
  415: 'File type not accepted',
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

/**
 * Sends one tus request with `Tus-Resumable`. A status outside `ok` and network failures
 * become `UploadError`s; the body of an accepted response is discarded.
 */
export async function tusRequest(
  fetch: TusFetch,
  url: string,
  method: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  ok: number[],
  body?: ChunkBody,
): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: { 'Tus-Resumable': '1.0.0', ...headers },
      body,
      signal,
      timeout: body ? undefined : SHORT_TIMEOUT,
    });
  } catch (cause) {
    throw signal.aborted
      ? new UploadError('The upload was aborted', { code: 'aborted', cause })
      : new UploadError(`Network failure during ${method}`, { code: 'network_error', cause });
  }
  if (!ok.includes(res.status)) throw await tusFailure(res, method);
  void res.body?.cancel();
  return res;
}

/**
 * Turns an unexpected tus response into an `UploadError` carrying the server's text. An
 * upload that is gone (404, 410) or no longer visible to its client (403 on HEAD) has code
 * `upload_gone`; a 409 is `offset_mismatch` for an upload and `already_exists` for a
 * creation.
 */
export async function tusFailure(res: Response, method: string): Promise<UploadError> {
  const text = (await res.text().catch(() => '')).trim();
  const { status } = res;
  // A creation answers for the object, not for an upload: its 404 (no such bucket) and 409
  // (the object exists) are final, never "start over" or "ask the offset again".
  const creating = method === 'POST';
  const code =
    !creating && (status === 404 || status === 410 || (status === 403 && method === 'HEAD'))
      ? 'upload_gone'
      : status === 409
        ? creating
          ? 'already_exists'
          : 'offset_mismatch'
        : `http_${status}`;
  const hint = creating && status === 409 ? 'The object already exists' : HINTS[status];
  const message = hint
    ? `${hint}${text ? `: ${text}` : ''}`
    : text || `${method} failed with HTTP ${status}`;
  return new UploadError(message, { status, code, details: text || null });
}

const offsetOf = (res: Response): number => {
  const value = Number(res.headers.get('Upload-Offset'));
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new UploadError('No valid Upload-Offset', {
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
  chunk?: ChunkBody,
): Promise<{ url: string; offset: number }> {
  const h = { ...headers };
  if (length === undefined) h['Upload-Defer-Length'] = '1';
  else h['Upload-Length'] = String(length);
  if (chunk) h['Content-Type'] = OCTETS;
  const res = await tusRequest(fetch, endpoint, 'POST', h, signal, [201], chunk);
  const location = res.headers.get('Location');
  if (!location) throw new UploadError('No Location', { status: 201, code: 'invalid_response' });
  return {
    url: new URL(location, endpoint).href,
    offset: chunk && res.headers.has('Upload-Offset') ? offsetOf(res) : 0,
  };
}

/** HEAD: the server's offset (and length) of an upload. */
export async function headUpload(
  fetch: TusFetch,
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<TusOffset> {
  const res = await tusRequest(fetch, url, 'HEAD', headers, signal, [200, 204]);
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
  chunk: ChunkBody,
  length?: number,
): Promise<number> {
  const h: Record<string, string> = {
    ...headers,
    'Content-Type': OCTETS,
    'Upload-Offset': String(offset),
  };
  if (length !== undefined) h['Upload-Length'] = String(length);
  return offsetOf(await tusRequest(fetch, url, 'PATCH', h, signal, [200, 204], chunk));
}

/** DELETE: terminates an unfinished upload (an already gone one counts as terminated). */
export async function terminateUpload(
  fetch: TusFetch,
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<void> {
  await tusRequest(fetch, url, 'DELETE', headers, signal, [200, 204, 404, 410]);
}
