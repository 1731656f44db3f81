/**
 * Every difference between supabase-js 2.109.0 and this SDK that the wire-parity test
 * (`parity.test.ts`) finds, with the reason we keep it. Reviewed like code: the test fails on
 * a difference that is not listed here, and on an entry here that no longer occurs, so this
 * list is always the true list. The README's "Coming from supabase-js" table is its summary
 * for users.
 *
 * `path` is where the difference is in the compared record of a scenario:
 * `requests[i].method|path|query|headers.<name>|body`, `result.…` (the resolved value; an
 * error's fields under `$error`), `frames.out[i]…` / `frames.in[i]…` (WebSocket messages,
 * refs renumbered) and `frames.urls[i]…`.
 */

export interface IntendedDifference {
  /** Scenario ids (see `scenarios/*.ts`) in which this difference occurs. */
  scenarios: string[];
  /** Where, exactly; or, ending in `.**`, everything under that path. */
  path: string;
  /** Why we keep it. */
  reason: string;
}

/**
 * Rules applied to every scenario before comparing (each must apply at least once). They hide
 * differences that are by design everywhere, so they are not repeated per scenario.
 */
export const globalRules: Record<string, string> = {
  'x-client-info':
    'The X-Client-Info header names the client library and its version (supabase-js-node/2.109.0 vs backend-sdk-js/<version>); servers only log it.',
};

export const intendedDifferences: IntendedDifference[] = [
  // auth
  {
    scenarios: ['auth.get-user-signed-out', 'auth.identities.list-signed-out'],
    path: 'result.error.code',
    reason:
      'Client-side failures carry a code (session_missing) where supabase-js leaves code undefined; name, message and status are the same (AuthSessionMissingError, 400).',
  },
  {
    scenarios: ['auth.oauth.id-token-refused', 'auth.identities.link-id-token-refused'],
    path: 'result.error.code',
    reason:
      'An OAuth-shaped error body ({error, error_description}, as the ID-token grant answers "Bad ID token") has no code: ours is "" (an SDK error code is always a string), supabase-js leaves it undefined; name, message and status are the same.',
  },
  {
    scenarios: [
      'auth.get-user-signed-out',
      'auth.identities.list-signed-out',
      'auth.oauth.id-token-refused',
      'auth.identities.link-id-token-refused',
    ],
    path: 'result.error.$json.length',
    reason:
      'The same code difference as above, seen in JSON: supabase-js leaves code undefined, so JSON.stringify drops it; ours has the key (name, message and status as theirs).',
  },
  {
    scenarios: ['auth.set-session'],
    path: 'result.data.session.expires_in',
    reason:
      'setSession: supabase-js computes expires_in from Date.now() with its milliseconds (3599.36…); ours is whole seconds, as every session the server returns.',
  },
  // REST
  {
    scenarios: ['rest.filter.in-strings'],
    path: 'requests[0].query[1][1]',
    reason:
      'in() quotes a value containing a double quote (and . : \\ or edge spaces) as PostgREST requires; supabase-js sends x"y bare, which PostgREST misreads.',
  },
  {
    scenarios: ['rest.modifier.abort'],
    path: 'requests.length',
    reason:
      'With a signal that is already aborted, ours does not call fetch at all; supabase-js calls fetch, which rejects at once. Neither reaches the network.',
  },
  ...['message', 'details', 'hint', 'code'].map((field) => ({
    scenarios: ['rest.modifier.abort'],
    path: `result.error.${field}`,
    reason:
      'An aborted request is a RestError with code "aborted" and message "The request was aborted" (status 0, the AbortError as cause), like every client-side failure of the SDK; supabase-js puts the AbortError text and its stack in message/details and a hint.',
  })),
  // storage
  ...[
    [
      'storage.upload.blob-options',
      [
        'headers.content-type',
        'headers.cache-control',
        'headers.x-metadata',
        'body.multipart',
        'body.json',
      ],
    ],
    [
      'storage.upload.file',
      ['headers.content-type', 'headers.cache-control', 'body.multipart', 'body.text'],
    ],
  ].flatMap(([scenario, paths]) =>
    (paths as string[]).map((path) => ({
      scenarios: [scenario as string],
      path: `requests[0].${path}`,
      reason:
        'A Blob/File is uploaded as the raw body with Content-Type, Cache-Control and x-metadata headers (streamed, with upload progress, never copied into a form); supabase-js wraps it in multipart/form-data. The server stores the same object either way.',
    })),
  ),
  {
    scenarios: ['storage.upload.typed-array'],
    path: 'requests[0].headers.content-type',
    reason:
      'Bytes without a contentType are stored as application/octet-stream; supabase-js labels them text/plain;charset=UTF-8.',
  },
  {
    scenarios: ['storage.exists'],
    path: 'result.missing.error',
    reason:
      'exists() of a missing object resolves { data: false, error: null }: not existing is the answer, not a failure. supabase-js also returns the 400 StorageApiError of the HEAD request.',
  },
  // functions
  ...['requests[0].headers.content-type', 'result.data.contentType'].map((path) => ({
    scenarios: ['functions.blob'],
    path,
    reason:
      'A Blob body is sent with its own type (text/x-custom here), as protocol §5.1 says; supabase-js 2.109 sends every Blob as application/octet-stream.',
  })),
  ...[
    [
      'functions.typed-array',
      'A typed array is sent as its bytes (application/octet-stream); supabase-js JSON-serialises it as an object of indices ({"0":104,"1":105}).',
    ],
    [
      'functions.url-search-params',
      'URLSearchParams are sent form-encoded, as fetch sends them; supabase-js JSON-serialises them as {}.',
    ],
    [
      'functions.stream',
      'A ReadableStream body is streamed as it is; supabase-js JSON-serialises it as {}.',
    ],
  ].flatMap(([scenario, reason]) =>
    [
      'requests[0].headers.content-type',
      'requests[0].body.json',
      'requests[0].body.text',
      'result.data.contentType',
      'result.data.text',
    ].map((path) => ({ scenarios: [scenario as string], path, reason: reason as string })),
  ),
  // new API keys
  {
    scenarios: [
      'keys.publishable.rest',
      'keys.publishable.functions',
      'keys.publishable.storage',
      'keys.publishable.auth-sign-in',
      'keys.secret.admin',
      'keys.secret.rest',
    ],
    path: 'requests[0].headers.authorization',
    reason:
      'A publishable or secret key (sb_…) is not a JWT: it goes in the apikey header only, and Authorization carries a user token or nothing, as the hosted API gateway expects; supabase-js 2.109 also sends the key as a Bearer token.',
  },
  // MFA
  {
    scenarios: ['auth.admin.mfa.delete-factor'],
    path: 'result.data.**',
    reason:
      "admin.mfa.deleteFactor resolves the deleted factor as data, as the official client's types say; supabase-js 2.109 nests it in a second { data, error } at run time.",
  },
  // realtime
  ...['requests[0].query.length', 'requests[0].headers.x-client-info'].map((path) => ({
    scenarios: ['realtime.http-send', 'realtime.send-not-joined'],
    path,
    reason:
      "Broadcast over HTTP goes through the SDK's one HTTP layer: the key in the apikey header and X-Client-Info as on every request; supabase-js copies the socket URL's query (apikey, vsn) onto it and sends no X-Client-Info.",
  })),
  {
    scenarios: ['realtime.private-refused', 'realtime.set-auth-expired'],
    path: 'frames.out.length',
    reason:
      'removeChannel() of a channel whose join the server refused sends no phx_leave (there is nothing to leave); supabase-js sends one anyway.',
  },
];
