import { BackendError, type BackendErrorOptions, type ErrorKind } from '../errors';

/**
 * A realtime failure: a join refused by the server (`code` is the server's reason code, e.g.
 * `Unauthorized`), a timeout (`timeout`), a heartbeat timeout, or an `httpSend` rejected
 * (`status` is the HTTP status).
 */
export class RealtimeError extends BackendError {
  constructor(message: string, options?: BackendErrorOptions) {
    super(message, options);
    this.name = 'RealtimeError';
    this.shape(['name', 'status', 'code', 'details']);
  }

  override get kind(): ErrorKind {
    return 'realtime';
  }
}
