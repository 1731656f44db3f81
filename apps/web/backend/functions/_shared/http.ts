/**
 * What Drive's functions answer with: JSON, and the CORS headers a browser needs to call them
 * from the page (`functions.invoke`). Shared by the functions through `../_shared/`, as the
 * hosted runtime bundles it.
 */

/**
 * The CORS headers for `methods` (and `extra` request headers a page may send, e.g.
 * `x-link-session`), and a JSON response carrying them.
 */
export function http(methods: string, extra = '') {
  const cors: Record<string, string> = {
    'access-control-allow-origin': '*',
    'access-control-allow-headers': `authorization, x-client-info, apikey, content-type${extra ? `, ${extra}` : ''}`,
    'access-control-allow-methods': methods,
  };
  const json = (status: number, body: unknown): Response =>
    new Response(JSON.stringify(body), {
      status,
      headers: { ...cors, 'content-type': 'application/json' },
    });
  return { cors, json };
}

/** A call to the backend (REST, storage, auth) that did not answer 2xx. */
export class Upstream extends Error {
  constructor(readonly status: number) {
    super(`upstream answered ${status}`);
  }
}
