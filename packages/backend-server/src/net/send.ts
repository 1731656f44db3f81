/**
 * Sends one queued pg_net request and describes its outcome as a `net._http_response` row:
 * the status, headers and body of an answer, or pg_net's `timed_out` / `error_msg` (the
 * messages of the HTTP library pg_net uses) for a request that got none. Never throws.
 */

/** A row of `net.http_request_queue`, as the worker claims it. */
export interface QueuedRequest {
  id: string;
  method: string;
  url: string;
  headers: Record<string, unknown> | null;
  /** `bytea` as Postgres sends it in text: `\x` and hex digits. */
  body: string | null;
  timeout_milliseconds: number;
}

/** A row for `net._http_response`. */
export interface RecordedResponse {
  id: string;
  status_code: number | null;
  content_type: string | null;
  headers: Record<string, string> | null;
  content: string | null;
  timed_out: boolean;
  error_msg: string | null;
}

/** Host names a URL written for the hosted local stack uses to reach its own API gateway. */
const GATEWAY_HOSTS = /^(host\.docker\.internal|kong|supabase_kong_[\w-]+)$/i;

/**
 * The URL a request is sent to: one addressed to the local stack's gateway from inside its
 * containers (`http://host.docker.internal:54321/…`, `http://kong:8000/…`,
 * `http://supabase_kong_<project>:8000/…`) goes to this server, keeping path and query.
 * Any other URL is sent as written.
 */
export function targetUrl(url: string, selfUrl: string): URL {
  const parsed = new URL(url);
  if (!GATEWAY_HOSTS.test(parsed.hostname)) return parsed;
  const self = new URL(selfUrl);
  parsed.protocol = self.protocol;
  parsed.host = self.host;
  return parsed;
}

function failure(id: string, error_msg: string, timed_out = false): RecordedResponse {
  return {
    id,
    status_code: null,
    content_type: null,
    headers: null,
    content: null,
    timed_out,
    error_msg,
  };
}

/** The HTTP library's words for a failure, from Node's error codes. */
function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  switch (cause?.code) {
    case 'ECONNREFUSED':
    case 'ECONNRESET':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return "Couldn't connect to server";
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return "Couldn't resolve host name";
    default:
      return cause?.message ?? (error instanceof Error ? error.message : String(error));
  }
}

function headerObject(headers: Record<string, unknown> | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== null && value !== undefined) out[name] = String(value);
  }
  return out;
}

/**
 * Sends `request` (aborted by `stopSignal` when the server stops) and resolves to the row
 * that records it.
 */
export async function sendRequest(
  request: QueuedRequest,
  selfUrl: string,
  stopSignal: AbortSignal,
): Promise<RecordedResponse> {
  let url: URL;
  try {
    url = targetUrl(request.url, selfUrl);
  } catch {
    return failure(request.id, 'URL using bad/illegal format or missing URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return failure(request.id, 'Unsupported protocol');
  }
  const timeout = Math.max(1, request.timeout_milliseconds);
  const timer = AbortSignal.timeout(timeout);
  const started = performance.now();
  try {
    const body =
      request.body && request.body.length > 2 ? Buffer.from(request.body.slice(2), 'hex') : null;
    const response = await fetch(url, {
      method: request.method.toUpperCase(),
      headers: headerObject(request.headers),
      body,
      redirect: 'follow',
      signal: AbortSignal.any([timer, stopSignal]),
    });
    const content = await response.text();
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return {
      id: request.id,
      status_code: response.status,
      content_type: response.headers.get('content-type'),
      headers,
      content,
      timed_out: false,
      error_msg: null,
    };
  } catch (error) {
    if (timer.aborted) {
      const total = (performance.now() - started).toFixed(3);
      return failure(request.id, `Timeout of ${timeout} ms reached. Total time: ${total} ms`, true);
    }
    if (stopSignal.aborted) return failure(request.id, 'The server stopped before an answer');
    return failure(request.id, describe(error));
  }
}
