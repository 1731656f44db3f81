/**
 * What the backend hands back when someone follows the link of a password-recovery email:
 * its redirect to `/reset-password` carries either a session (`#access_token=…&
 * refresh_token=…&type=recovery`) or an error (`#error_code=…&error_description=…`) in the
 * URL fragment.
 */
export type RecoveryLink =
  | { kind: 'session'; access_token: string; refresh_token: string }
  | { kind: 'error'; code: string };

/**
 * Reads a recovery redirect's fragment; null when there is none (the page was opened
 * directly, to enter the code from the email).
 *
 * @example
 * const link = readRecoveryHash(window.location.hash);
 * if (link?.kind === 'session') await auth.setSession(link);
 */
export function readRecoveryHash(hash: string): RecoveryLink | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const access = params.get('access_token');
  const refresh = params.get('refresh_token');
  if (access && refresh && params.get('type') === 'recovery') {
    return { kind: 'session', access_token: access, refresh_token: refresh };
  }
  const error = params.get('error_code') || params.get('error');
  if (error) return { kind: 'error', code: error };
  return null;
}
