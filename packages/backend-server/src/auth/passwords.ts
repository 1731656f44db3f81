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

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A valid, lower-cased email address, or the hosted 400 `validation_failed`. */
export function validateEmail(email: string): string {
  const trimmed = email.trim();
  if (trimmed === '') throw new AuthError(400, 'validation_failed', 'An email address is required');
  if (trimmed.length > 255) {
    throw new AuthError(400, 'validation_failed', 'An email address is too long');
  }
  if (!EMAIL.test(trimmed)) {
    throw new AuthError(
      400,
      'validation_failed',
      'Unable to validate email address: invalid format',
    );
  }
  return trimmed.toLowerCase();
}
