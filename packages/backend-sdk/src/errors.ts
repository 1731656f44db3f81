/**
 * The SDK's one error hierarchy. Every failure the SDK reports is a `BackendError`
 * (or a subclass per capability, added as capabilities land).
 *
 * Guards are brand-based (`Symbol.for`), so they also work across realms and across
 * duplicate copies of the SDK in one bundle, where `instanceof` would not.
 */

const BRAND: unique symbol = Symbol.for('@app/backend-sdk/error') as never;

/** Options accepted by every error class of the SDK. */
export interface BackendErrorOptions {
  /**
   * HTTP status of the response that caused the error, or 0 when no response arrived
   * (network failure, abort, bad input caught before sending).
   *
   * @example
   * new BackendError('Not found', { status: 404 })
   */
  status?: number;
  /**
   * A machine-readable code from the backend (`PGRST116`, `invalid_credentials`, …)
   * or from the SDK itself (`network_error`, `invalid_argument`, …).
   *
   * @example
   * new BackendError('Invalid login credentials', { code: 'invalid_credentials' })
   */
  code?: string;
  /**
   * Extra detail from the backend, as it sent it.
   *
   * @example
   * new BackendError('Duplicate', { details: 'Key (id)=(1) already exists.' })
   */
  details?: unknown;
  /**
   * The underlying error, when there is one.
   *
   * @example
   * new BackendError('Network failure', { cause: new TypeError('fetch failed') })
   */
  cause?: unknown;
}

/** Which capability raised an error; the brand guards read it. */
export type ErrorKind = 'backend' | 'auth' | 'rest' | 'functions' | (string & {});

/** Base class of every error the SDK returns or throws. */
export class BackendError extends Error {
  readonly [BRAND] = true;
  override name = 'BackendError';
  /** The capability that raised the error (`'auth'`, `'rest'`, `'functions'`, …). */
  readonly kind: ErrorKind = 'backend';
  /** HTTP status, or 0 when there was no response. */
  readonly status: number;
  /** Machine-readable code, or `''` when the backend sent none. */
  readonly code: string;
  /** Extra detail from the backend. */
  readonly details: unknown;

  constructor(message: string, options: BackendErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status ?? 0;
    this.code = options.code ?? '';
    this.details = options.details ?? null;
  }

  /** A plain object for logging and `JSON.stringify`. */
  toJSON(): { name: string; message: string; status: number; code: string; details: unknown } {
    return {
      name: this.name,
      message: this.message,
      status: this.status,
      code: this.code,
      details: this.details,
    };
  }
}

/**
 * True for any error produced by this SDK, whatever realm or copy of the SDK made it.
 *
 * @example
 * const { error } = await client.from('files').select();
 * if (isBackendError(error)) console.log(error.status, error.code);
 */
export function isBackendError(value: unknown): value is BackendError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[BRAND] === true
  );
}

const guard =
  <T extends BackendError>(kind: string) =>
  (value: unknown): value is T =>
    isBackendError(value) && value.kind === kind;

/** An error of the auth capability (GoTrue): `code` is the server's error code. */
export class AuthError extends BackendError {
  override name = 'AuthError';
  override readonly kind: ErrorKind = 'auth';
}

/** Options of {@link RestError}: PostgREST's `hint` on top of the base options. */
export interface RestErrorOptions extends BackendErrorOptions {
  /**
   * PostgREST's hint, or null.
   *
   * @example
   * new RestError('Invalid schema: x', { code: 'PGRST106', hint: 'Only the following schemas are exposed: public' })
   */
  hint?: string | null;
}

/** An error of the REST capability: PostgREST/Postgres `code`, `details` and `hint`. */
export class RestError extends BackendError {
  override name = 'RestError';
  override readonly kind: ErrorKind = 'rest';
  /** PostgREST's hint, or null. */
  readonly hint: string | null;
  constructor(message: string, options: RestErrorOptions = {}) {
    super(message, options);
    this.hint = options.hint ?? null;
  }
}

/** How a function invocation failed: relay (gateway), HTTP (non-2xx) or fetch (no response). */
export type FunctionsErrorType = 'relay' | 'http' | 'fetch';

/** Options of {@link FunctionsError}. */
export interface FunctionsErrorOptions extends BackendErrorOptions {
  /**
   * How the invocation failed.
   *
   * @example
   * new FunctionsError('Edge Function returned a non-2xx status code', { type: 'http', status: 500 })
   */
  type: FunctionsErrorType;
  /**
   * The parsed response body (JSON, text, …), when a response arrived.
   *
   * @example
   * new FunctionsError('…', { type: 'http', body: { error: 'bad input' } })
   */
  body?: unknown;
  /**
   * The raw response, when one arrived (its body already read into `body`).
   *
   * @example
   * new FunctionsError('…', { type: 'relay', response })
   */
  response?: Response;
}

/** An error of the functions capability, carrying the parsed body of the response. */
export class FunctionsError extends BackendError {
  override name = 'FunctionsError';
  override readonly kind: ErrorKind = 'functions';
  /** `relay`, `http` or `fetch`. */
  readonly type: FunctionsErrorType;
  /** The parsed response body, or null when no response arrived. */
  readonly body: unknown;
  /** The raw response, when one arrived. */
  readonly response: Response | null;
  constructor(message: string, options: FunctionsErrorOptions) {
    super(message, options);
    this.type = options.type;
    this.body = options.body ?? null;
    this.response = options.response ?? null;
  }
}

/**
 * True for an {@link AuthError} from any realm or copy of the SDK.
 *
 * @example
 * if (isAuthError(error) && error.code === 'invalid_credentials') showLoginError();
 */
export const isAuthError: (value: unknown) => value is AuthError = /* @__PURE__ */ guard('auth');

/**
 * True for a {@link RestError} from any realm or copy of the SDK.
 *
 * @example
 * if (isRestError(error) && error.code === '23505') console.log('duplicate');
 */
export const isRestError: (value: unknown) => value is RestError = /* @__PURE__ */ guard('rest');

/**
 * True for a {@link FunctionsError} from any realm or copy of the SDK.
 *
 * @example
 * if (isFunctionsError(error) && error.type === 'http') console.log(error.body);
 */
export const isFunctionsError: (value: unknown) => value is FunctionsError =
  /* @__PURE__ */ guard('functions');

/** How the HTTP layer builds a capability's error for a request that got no response. */
export type ErrorFactory = (message: string, options: BackendErrorOptions) => BackendError;
