import { hash, verify } from '@node-rs/bcrypt';
import { AuthError } from './errors';

/** bcrypt at cost 10, as the hosted service stores passwords. Never call inside a transaction. */
export const hashPassword = (password: string) => hash(password, { cost: 10 });

/** Checks a password against a stored bcrypt hash (false for an empty or foreign hash). */
export async function checkPassword(password: string, stored: string | null): Promise<boolean> {
  if (!stored?.startsWith('$2')) return false;
  try {
    return await verify(password, stored);
  } catch {
    return false;
  }
}

/** 422 `weak_password` when the password is shorter than the minimum length. */
export function checkStrength(password: string, minLength: number): void {
  if ([...password].length < minLength) {
    const message = `Password should be at least ${minLength} characters.`;
    throw new AuthError(422, 'weak_password', message, {
      weak_password: { reasons: ['length'] },
    });
  }
}

/**
 * GoTrue's email format (it uses checkmail's pattern): a local part of letters, digits and
 * ``.!#$%&'*+/=?^_`{|}~-``, then `@` and dot-separated host labels of letters, digits and
 * inner hyphens (at most 63 characters each). No surrounding spaces, no top-level domain needed.
 */
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** A valid, lower-cased email address, or GoTrue's 400 `validation_failed`. */
export function validateEmail(email: string): string {
  if (email === '') throw new AuthError(400, 'validation_failed', 'An email address is required');
  if (email.length > 255) {
    throw new AuthError(400, 'validation_failed', 'An email address is too long');
  }
  if (!EMAIL.test(email)) {
    throw new AuthError(
      400,
      'validation_failed',
      'Unable to validate email address: invalid format',
    );
  }
  return email.toLowerCase();
}
