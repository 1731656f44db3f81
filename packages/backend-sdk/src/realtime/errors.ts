import { BackendError, type ErrorKind } from '../errors';

/**
 * A realtime failure: a join refused by the server (`code` is the server's reason code, e.g.
 * `Unauthorized`), a timeout (`timeout`), a heartbeat timeout, or an `httpSend` rejected
 * (`status` is the HTTP status).
 */
export class RealtimeError extends BackendError {
  override name = 'RealtimeError';
  override readonly kind: ErrorKind = 'realtime';
}
