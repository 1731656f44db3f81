/**
 * What the backend hands back when a password-recovery link cannot sign in (expired or
 * already used): its redirect to `/reset-password` carries the error in the URL fragment
 * (`#error_code=…&error_description=…`). A link that works carries a session instead, which
 * the SDK takes in by itself (`detectSessionInUrl`) before the app renders.
 */

/**
 * The error code of a failed recovery redirect; null when there is none.
 *
 * @example
 * readRecoveryError('#error=access_denied&error_code=otp_expired') // 'otp_expired'
 */
export function readRecoveryError(hash: string): string | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  return params.get('error_code') || params.get('error') || null;
}
