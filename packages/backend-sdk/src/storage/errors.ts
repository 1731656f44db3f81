import { BackendError, type BackendErrorOptions, type ErrorKind } from '../errors';

/**
 * A storage failure. `status` is the HTTP status (storage answers most client errors with
 * HTTP 400), `statusCode` the logical status the body carries (`"404"`, `"409"`, …), `code`
 * the storage error code (`NoSuchKey`, `Duplicate`-class `ResourceAlreadyExists`, …).
 */
export class StorageError extends BackendError {
  /** `StorageApiError` when the server answered, else `StorageUnknownError` (as supabase-js). */
  declare name: string;
  override readonly kind: ErrorKind = 'storage';
  /** The logical status from the body, as a string (`"404"`), or the HTTP status. */
  readonly statusCode: string;
  /** What the official client's `isStorageError()` looks for. */
  readonly __isStorageError = true;
  /** The official client's error namespace. */
  readonly namespace = 'storage';
  constructor(message: string, options: BackendErrorOptions & { statusCode?: string } = {}) {
    super(message, options);
    this.name = options.status ? 'StorageApiError' : 'StorageUnknownError';
    this.statusCode = options.statusCode ?? String(options.status ?? 0);
  }
}

/** Builds the `StorageError` of a failed response from its JSON (or text) body. */
export async function storageFailure(res: Response): Promise<StorageError> {
  const text = await res.text().catch(() => '');
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text);
  } catch {}
  const message =
    body.message ?? body.msg ?? body.error_description ?? body.error ?? (text || res.statusText);
  return new StorageError(String(message || `HTTP ${res.status}`), {
    status: res.status,
    statusCode: body.statusCode ? String(body.statusCode) : String(res.status),
    code: String(body.code ?? body.error ?? ''),
    details: body.error ?? null,
  });
}
