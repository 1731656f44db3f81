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
  declare name: string;
  /** HTTP status, or 0 when there was no response. */
  declare readonly status: number;
  /** Machine-readable code, or `''` when the backend sent none. */
  declare readonly code: string;
  /** Extra detail from the backend. */
  declare readonly details: unknown;

  constructor(message: string, options: BackendErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BackendError';
    this.status = options.status ?? 0;
    this.code = options.code ?? '';
    this.details = options.details ?? null;
  }

  /** The capability that raised the error (`'auth'`, `'rest'`, `'functions'`, …). */
  get kind(): ErrorKind {
    return 'backend';
  }

  /** Always true: what {@link isBackendError} looks for, through any copy of the SDK. */
  get [BRAND](): true {
    return true;
  }

  /**
   * Makes `keys` the error's own enumerable properties, in that order, and hides the others,
   * so that `Object.keys`, spreads and `JSON.stringify` see what the official client's error
   * of the same kind has.
   */
  protected shape(keys: string[]): void {
    const self = this as unknown as Record<string, unknown>;
    for (const k of Object.keys(self))
      if (!keys.includes(k)) Object.defineProperty(self, k, { enumerable: false });
    for (const k of keys) {
      const value = self[k];
      delete self[k];
      self[k] = value;
    }
  }

  /**
   * A plain object for logging and `JSON.stringify`: `name`, `message` and the error's own
   * enumerable fields, as the official client's errors serialise.
   */
  toJSON(): Record<string, unknown> & { name: string; message: string } {
    const out: Record<string, unknown> & { name: string; message: string } = {
      name: this.name,
      message: this.message,
    };
    for (const [k, v] of Object.entries(this)) if (!/^(__is|namespace$)/.test(k)) out[k] = v;
    return out;
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

/** Options of {@link AuthError}. */
export interface AuthErrorOptions extends BackendErrorOptions {
  /**
   * Why a password was refused (`weak_password`): `length`, `characters`, `pwned`.
   *
   * @example
   * new AuthError('Password should be at least 8 characters.', { status: 422, code: 'weak_password', reasons: ['length'] })
   */
  reasons?: string[];
}

/**
 * An error of the auth capability (GoTrue): `code` is the server's error code. `name` is the
 * official client's class name for the same failure (`AuthApiError`, `AuthWeakPasswordError`,
 * `AuthRetryableFetchError`, `AuthSessionMissingError`), so code that reads it ports as is.
 */
export class AuthError extends BackendError {
  /** What the official client's `isAuthError()` looks for. */
  declare readonly __isAuthError: true;
  /** For `weak_password`: why the password was refused (`length`, `characters`, `pwned`). */
  declare readonly reasons?: string[];
  constructor(message: string, options: AuthErrorOptions = {}) {
    super(message, options);
    const { status = 0, code } = options;
    (this as { __isAuthError: true }).__isAuthError = true;
    this.name =
      code === 'weak_password'
        ? 'AuthWeakPasswordError'
        : code === 'session_missing'
          ? 'AuthSessionMissingError'
          : status >= 500 || (status === 0 && /^(network_error|timeout|aborted)$/.test(code ?? ''))
            ? 'AuthRetryableFetchError'
            : status >= 400
              ? 'AuthApiError'
              : 'AuthError';
    const keys = ['__isAuthError', 'name', 'status', 'code'];
    if (code === 'weak_password') {
      (this as { reasons?: string[] }).reasons = options.reasons ?? [];
      keys.push('reasons');
    }
    this.shape(keys);
  }

  override get kind(): ErrorKind {
    return 'auth';
  }
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

/**
 * An error of the REST capability: PostgREST/Postgres `code`, `details` and `hint`. Its
 * `name` is `PostgrestError`, as the official client's.
 */
export class RestError extends BackendError {
  /** PostgREST's hint, or null. */
  declare readonly hint: string | null;
  constructor(message: string, options: RestErrorOptions = {}) {
    super(message, options);
    this.name = 'PostgrestError';
    this.hint = options.hint ?? null;
    this.shape(['name', 'details', 'hint', 'code']);
  }

  override get kind(): ErrorKind {
    return 'rest';
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
   * The raw response, when one arrived, with its body unread (`body` has it parsed).
   *
   * @example
   * new FunctionsError('…', { type: 'relay', response })
   */
  response?: Response;
}

/**
 * An error of the functions capability, carrying the parsed body of the response. As in the
 * official client, `context` is the raw `Response` (body unread) for `http` and `relay`
 * errors, and what `fetch` threw for `fetch` errors; `name` is `FunctionsHttpError`,
 * `FunctionsRelayError` or `FunctionsFetchError`.
 */
export class FunctionsError extends BackendError {
  /** `relay`, `http` or `fetch`. */
  declare readonly type: FunctionsErrorType;
  /** The parsed response body, or null when no response arrived. */
  declare readonly body: unknown;
  /** The raw response (body unread), when one arrived. */
  declare readonly response: Response | null;
  /** The raw response (body unread) for `http`/`relay`; the fetch failure for `fetch`. */
  declare readonly context: unknown;
  constructor(message: string, options: FunctionsErrorOptions) {
    super(message, options);
    const { type } = options;
    this.name = `Functions${type[0]?.toUpperCase()}${type.slice(1)}Error`;
    this.type = type;
    this.body = options.body ?? null;
    this.response = options.response ?? null;
    this.context = options.response ?? options.cause ?? null;
    this.shape(['name', 'context']);
  }

  override get kind(): ErrorKind {
    return 'functions';
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
