import { BackendError, type BackendErrorOptions, type ErrorKind } from '../errors';

/**
 * A storage failure. `status` is the HTTP status (storage answers most client errors with
 * HTTP 400), `statusCode` the logical status the body carries (`"404"`, `"409"`, …), `code`
 * the storage error code (`NoSuchKey`, `Duplicate`-class `ResourceAlreadyExists`, …).
 */
export class StorageError extends BackendError {
  /** The logical status from the body, as a string (`"404"`), or the HTTP status. */
  declare readonly statusCode: string;
  /** What the official client's `isStorageError()` looks for. */
  declare readonly __isStorageError: true;
  /** The official client's error namespace. */
  declare readonly namespace: 'storage';
  constructor(message: string, options: BackendErrorOptions & { statusCode?: string } = {}) {
    super(message, options);
    Object.assign(this, {
      __isStorageError: true,
      namespace: 'storage',
      name: options.status ? 'StorageApiError' : 'StorageUnknownError',
      statusCode: options.statusCode ?? String(options.status ?? 0),
    });
    this.shape(['__isStorageError', 'namespace', 'name', 'status', 'statusCode']);
  }

  override get kind(): ErrorKind {
    return 'storage';
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
