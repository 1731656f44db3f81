import type { PgErrorFields } from '../db/index';

/** The body every REST error carries: all four keys, `details`/`hint` may be null. */
export interface RestErrorBody {
  code: string;
  message: string;
  details: unknown;
  hint: string | null;
}

/** A PostgREST-shaped error with its HTTP status and extra headers. */
export class RestError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  readonly hint: string | null;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    message: string,
    details: unknown = null,
    hint: string | null = null,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.hint = hint;
    this.headers = headers;
  }

  body(): RestErrorBody {
    return { code: this.code, message: this.message, details: this.details, hint: this.hint };
  }
}

/** Query-string / select parse error (PGRST100). */
export const parseError = (message: string, details: string) =>
  new RestError(400, 'PGRST100', message, details);

/** HTTP status for a SQLSTATE, as the hosted REST service maps it. */
export function statusForSqlState(code: string, message: string, authenticated: boolean): number {
  if (code.startsWith('PT') && /^PT\d{3}$/.test(code)) return Number(code.slice(2));
  const two = code.slice(0, 2);
  switch (code) {
    case '23503':
    case '23505':
      return 409;
    case '25006':
      return 405;
    case '21000':
      return message.endsWith('requires a WHERE clause') ? 400 : 500;
    case '22023':
      return /^role .* does not exist$/.test(message) ? 401 : 400;
    case '53400':
      return 500;
    case '57P01':
      return 503;
    case 'P0001':
      return 400;
    case '42883':
      return message.includes('xmlagg') ? 406 : 404;
    case '42P01':
      return 404;
    case '42P17':
      return 500;
    case '42501':
      return authenticated ? 403 : 401;
  }
  if (two === '08') return 503;
  if (two === '09') return 500;
  if (two === '0L' || two === '0P') return 403;
  if (two === '25') return 500;
  if (two === '28') return 403;
  if (['2D', '38', '39', '3B', '40', '54', '55', '57', '58', 'F0', 'HV', 'XX', 'P0'].includes(two))
    return 500;
  if (two === '53') return 503;
  return 400;
}

function parseJsonObject(text: string | undefined): Record<string, unknown> | null {
  if (text === undefined) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** A database error as the REST error the client sees (incl. `RAISE SQLSTATE 'PGRST'`). */
export function fromPgError(e: PgErrorFields, authenticated: boolean): RestError {
  if (e.code === 'PGRST') {
    const body = parseJsonObject(e.message);
    const detail = e.detail === undefined ? {} : parseJsonObject(e.detail);
    const status = detail?.status;
    if (
      !body ||
      !detail ||
      typeof body.code !== 'string' ||
      typeof body.message !== 'string' ||
      (status !== undefined && typeof status !== 'number')
    ) {
      return new RestError(
        500,
        'PGRST121',
        'Could not parse JSON in the "RAISE SQLSTATE \'PGRST\'" error',
        'Invalid JSON value for MESSAGE or DETAIL',
        "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'. DETAIL must be a JSON object with obligatory keys: 'status' and optional keys: 'status_text', 'headers'.",
      );
    }
    const headers: Record<string, string> = {};
    if (typeof detail.headers === 'object' && detail.headers !== null) {
      for (const [k, v] of Object.entries(detail.headers)) headers[k] = String(v);
    }
    return new RestError(
      typeof status === 'number' ? status : 400,
      body.code,
      body.message,
      body.details ?? null,
      typeof body.hint === 'string' ? body.hint : null,
      headers,
    );
  }
  const status = statusForSqlState(e.code, e.message, authenticated);
  return new RestError(status, e.code, e.message, e.detail ?? null, e.hint ?? null);
}

/** The Response for an error: JSON body, Proxy-Status, WWW-Authenticate on 401. */
export function errorResponse(error: RestError, base: Record<string, string> = {}): Response {
  const headers = new Headers(base);
  headers.set('content-type', 'application/json; charset=utf-8');
  headers.set('proxy-status', `PostgREST; error=${error.code}`);
  if (error.status === 401 && !error.headers['www-authenticate']) {
    headers.set('www-authenticate', 'Bearer');
  }
  for (const [k, v] of Object.entries(error.headers)) headers.set(k, v);
  return new Response(JSON.stringify(error.body()), { status: error.status, headers });
}
