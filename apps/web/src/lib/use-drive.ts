import { useBackendClient } from '@app/backend-react';
import { isOnline } from '../offline/online';
import type { DriveClient } from './client-types';
import { toUserError, type UserError } from './errors';

/** The SDK client of the app. */
export function useDrive(): DriveClient {
  return useBackendClient<DriveClient>();
}

const seen = new WeakMap<object, UserError>();

/** The user-facing error for an error value, computed (and logged) once per error. */
export function userErrorOf(error: unknown): UserError {
  if (typeof error === 'object' && error !== null) {
    const cached = seen.get(error);
    if (cached) return cached;
    const mapped = toUserError(error, { online: isOnline() });
    seen.set(error, mapped);
    return mapped;
  }
  return toUserError(error);
}
