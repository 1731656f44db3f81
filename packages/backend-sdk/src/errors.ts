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

/** Base class of every error the SDK returns or throws. */
export class BackendError extends Error {
  readonly [BRAND] = true;
  override name = 'BackendError';
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
