import { isBackendError } from '@app/backend-sdk';

/**
 * A short, safe text for an error, for places that must show something.
 * SDK errors show their message; anything else shows a generic sentence, because
 * its text may not be meant for people.
 *
 * @example
 * <p role="alert">{errorMessage(error)}</p>
 */
export function errorMessage(error: unknown, fallback = 'Something went wrong'): string {
  if (isBackendError(error) && error.message) return error.message;
  return fallback;
}
