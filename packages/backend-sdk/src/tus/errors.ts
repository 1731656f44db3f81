import { BackendError, type ErrorKind } from '../errors';

/**
 * A resumable upload failed. `status` is the HTTP status of the failing tus response (0 for
 * a network failure or an abort), `code` one of `network_error`, `aborted`, `upload_gone`,
 * `offset_mismatch`, `stream_not_seekable`, `invalid_argument` or `http_<status>`, and
 * `details` the server's plain-text error body.
 */
export class UploadError extends BackendError {
  override name = 'UploadError';
  override readonly kind: ErrorKind = 'upload';
}
