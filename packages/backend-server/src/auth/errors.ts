import type { Context } from 'hono';
import { pgError } from '../db/index';
import type { AppEnv } from '../service-module';

const API_VERSION_HEADER = 'x-supabase-api-version';
const API_VERSION_2024 = '2024-01-01';

/** An auth error with the hosted status, error code and message. */
export class AuthError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra body fields (e.g. `weak_password`). */
    readonly extra: Record<string, unknown> = {},
    /** The database error behind it (legacy responses show publicly safe ones). */
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

/** An OAuth-shaped error: `{error, error_description}`, always 400. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (code: string, message: string) => new AuthError(400, code, message);
export const forbidden = (code: string, message: string) => new AuthError(403, code, message);
export const unprocessable = (code: string, message: string) => new AuthError(422, code, message);
export const notFound = (code: string, message: string) => new AuthError(404, code, message);
/** GoTrue's answer to a new user while sign-ups are disabled (`DISABLE_SIGNUP`). */
export const SIGNUP_DISABLED = () =>
  unprocessable('signup_disabled', 'Signups not allowed for this instance');
/** A 500 whose message is safe to show; the cause stays on the server. */
export const internal = (message: string, cause?: unknown) =>
  new AuthError(500, 'unexpected_failure', message, {}, cause);

/** Requests that ask for the 2024-01-01 error shape (what auth-js sends). */
function wantsNewShape(c: Context<AppEnv>): boolean {
  const version = c.req.header(API_VERSION_HEADER);
  return (
    version !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= API_VERSION_2024
  );
}

/** PostgreSQL errors the hosted service shows in legacy responses (raised by app triggers). */
const PUBLIC_PG_CODES = new Set([
  'P0001',
  '23000',
  '23001',
  '23502',
  '23503',
  '23505',
  '23514',
  '23P01',
]);

function publicPgError(cause: unknown): { status: number; body: Record<string, unknown> } | null {
  const pg = pgError(cause);
  if (!pg) return null;
  let status = 0;
  if (PUBLIC_PG_CODES.has(pg.code)) status = 500;
  else if (/^PT\d{3}$/.test(pg.code)) status = Number(pg.code.slice(2));
  if (status < 100 || status > 599) return null;
  return {
    status,
    body: {
      code: pg.code,
      message: pg.message,
      ...(pg.hint ? { hint: pg.hint } : {}),
      ...(pg.detail ? { detail: pg.detail } : {}),
    },
  };
}

/**
 * The hosted error response: `{code, message}` with the echoed `X-Supabase-Api-Version`
 * for clients that send 2024-01-01, else the legacy `{code: status, error_code, msg}`.
 * Both carry `x-sb-error-code`. Unknown errors become a generic 500 (logged, not shown).
 */
export function errorResponse(c: Context<AppEnv>, error: unknown): Response {
  if (error instanceof OAuthError) {
    return c.json({ error: error.error, error_description: error.message }, 400);
  }
  let e: AuthError;
  if (error instanceof AuthError) e = error;
  else {
    console.error(`[backend-server] auth ${c.req.method} ${c.req.path}:`, error);
    e = internal('Unexpected failure, please check server logs for more information', error);
  }
  if (e.status >= 500 && e.cause) {
    console.error(`[backend-server] auth ${c.req.method} ${c.req.path}: ${e.message}:`, e.cause);
  }
  // Errors without a code of their own (hook errors) get none in the header, and GoTrue's
  // fallback in the body.
  const code = e.code || (e.status === 500 ? 'unexpected_failure' : 'unknown');
  const headers: Record<string, string> = e.code ? { 'x-sb-error-code': e.code } : {};
  if (wantsNewShape(c)) {
    headers[API_VERSION_HEADER] = API_VERSION_2024;
    return Response.json({ code, message: e.message, ...e.extra }, { status: e.status, headers });
  }
  const pg = e.status >= 500 ? publicPgError(e.cause) : null;
  if (pg) return Response.json(pg.body, { status: pg.status, headers });
  return Response.json(
    { code: e.status, error_code: code, msg: e.message, ...e.extra },
    { status: e.status, headers },
  );
}
