import { UploadError } from './errors';

/** Default delays (ms) before each retry of a failed upload step. */
export const DEFAULT_RETRY_DELAYS: readonly number[] = [0, 1000, 3000, 5000];

/**
 * Whether a failed upload step is worth retrying: network failures, 5xx, 409 (offset
 * conflict, resolved by asking the server for its offset) and 423 (locked).
 *
 * @example
 * isRetryable(new UploadError('Locked', { status: 423 })); // true
 */
export function isRetryable(error: unknown): boolean {
  if (!(error instanceof UploadError)) return false;
  const { status, code } = error;
  if (code === 'aborted') return false;
  return status === 0
    ? code === 'network_error'
    : status >= 500 || code === 'offset_mismatch' || status === 423;
}

/** False only in a browser that knows it is offline. */
export const isOnline = (): boolean =>
  typeof navigator === 'undefined' || (navigator as { onLine?: boolean }).onLine !== false;

/**
 * The delay before retry number `attempt` (0-based), or `undefined` when retries are spent.
 *
 * @example
 * retryDelay([0, 1000], 1); // 1000
 * retryDelay([0, 1000], 2); // undefined
 */
export const retryDelay = (delays: readonly number[], attempt: number): number | undefined =>
  delays[attempt];
