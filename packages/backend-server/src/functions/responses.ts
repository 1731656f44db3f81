/**
 * The answers the functions gateway and runtime give on their own (PROTOCOLS.md §5.3).
 * Gateway (relay) errors, produced before a function is reached, carry
 * `x-relay-error: true`, which supabase-js turns into `FunctionsRelayError`; runtime errors
 * (boot, worker, limit) and the router's 404 do not, so they surface as
 * `FunctionsHttpError`. Browsers may read every one of them (`access-control-allow-origin`).
 */

const json = (status: number, body: unknown, extra: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: {
      'content-type': 'application/json',
      'access-control-allow-origin': '*',
      ...extra,
    },
  });

const RELAY = { 'x-relay-error': 'true' };

/** 404 for a name with no function (the runtime router's plain-text answer). */
export const notFound = (): Response =>
  new Response('Function not found', {
    status: 404,
    headers: { 'content-type': 'text/plain', 'access-control-allow-origin': '*' },
  });

/** 401 from verify_jwt: no Authorization header. */
export const missingAuthorization = (): Response =>
  json(401, { code: 401, message: 'Missing authorization header' }, RELAY);

/** 401 from verify_jwt: a token that is not a valid JWT of this project. */
export const invalidJwt = (): Response => json(401, { code: 401, message: 'Invalid JWT' }, RELAY);

const BOOT_MESSAGE = 'Worker failed to boot (please check logs)';

/**
 * 503: the function could not be compiled, failed while loading, or has no handler.
 * `hint` (never a server path) follows the hosted message, e.g. which package to install.
 */
export const bootError = (hint?: string): Response =>
  json(503, { code: 'BOOT_ERROR', message: hint ? `${BOOT_MESSAGE}: ${hint}` : BOOT_MESSAGE });

/**
 * 501: the function called `Deno.upgradeHttp` (a connection upgrade that is not a
 * WebSocket), which this runtime does not support, as the hosted one does not.
 */
export const upgradeNotSupported = (): Response =>
  json(501, { code: 'NOT_SUPPORTED', message: 'Connection Upgrade is not supported' });

/** 500: the handler threw, or the worker died while answering. */
export const workerError = (): Response =>
  json(500, {
    code: 'WORKER_ERROR',
    message: 'Function exited due to an error (please check logs)',
  });

/** 546: the wall-clock or memory limit stopped the worker. */
export const workerLimit = (): Response =>
  json(546, {
    code: 'WORKER_LIMIT',
    message: 'Worker failed to respond due to a resource limit (please check logs)',
  });
