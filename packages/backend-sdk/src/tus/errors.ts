import { BackendError, type BackendErrorOptions, type ErrorKind } from '../errors';

/**
 * A resumable upload failed. `status` is the HTTP status of the failing tus response (0 for
 * a network failure or an abort), `code` one of `network_error`, `aborted`, `upload_gone`,
 * `offset_mismatch`, `stream_not_seekable`, `invalid_argument` or `http_<status>`, and
 * `details` the server's plain-text error body.
 */
export class UploadError extends BackendError {
  constructor(message: string, options?: BackendErrorOptions) {
    super(message, options);
    this.name = 'UploadError';
    this.shape(['name', 'status', 'code', 'details']);
  }

  override get kind(): ErrorKind {
    return 'upload';
  }
}
