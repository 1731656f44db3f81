/**
 * A recording `fetch` wrapper: passes every request through to the real `fetch` (or to a
 * `respond` function for pure serialisation tests) and keeps what was sent, so two clients'
 * requests can be compared. Observation only; it never changes a request.
 */

/** One request as sent on the wire. */
export interface Recorded {
  method: string;
  /** Path below the origin, e.g. `/rest/v1/todos`. */
  path: string;
  /** Query parameters as [key, value] pairs, decoded. */
  query: [string, string][];
  /** Headers with lower-case names. */
  headers: Record<string, string>;
  /** Body text, or null. */
  body: string | null;
}

type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/** A fetch that records requests into `log`. */
export function recordingFetch(respond: FetchLike = (input, init) => fetch(input, init)): {
  fetch: FetchLike;
  log: Recorded[];
  clear(): void;
} {
  const log: Recorded[] = [];
  const wrapped: FetchLike = async (input, init) => {
    const request = input instanceof Request ? input.clone() : new Request(input, init);
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => {
      headers[k] = v;
    });
    const body = request.body ? await request.text() : null;
    log.push({
      method: request.method,
      path: url.pathname,
      query: [...url.searchParams.entries()],
      headers,
      body,
    });
    return respond(input, init);
  };
  return {
    fetch: wrapped,
    log,
    clear: () => {
      log.length = 0;
    },
  };
}

/** A canned JSON response (for serialisation-only tests). */
export const jsonResponse =
  (body: unknown = [], status = 200, headers: Record<string, string> = {}): FetchLike =>
  async () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });
