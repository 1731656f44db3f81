import { createHash, randomBytes, randomInt } from 'node:crypto';

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A random lower-case alphanumeric string (refresh tokens). */
export function secureAlphanumeric(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

/** A one-time code of `digits` digits (six by default). */
export const generateOtp = (digits = 6) => String(randomInt(0, 10 ** digits)).padStart(digits, '0');

/** The stored form of a one-time code: sha224 hex of the address and the code. */
export const tokenHash = (address: string, otp: string) =>
  createHash('sha224')
    .update(address.toLowerCase() + otp)
    .digest('hex');

/** base64url SHA-256, as PKCE's s256 method computes the challenge of a verifier. */
export const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** A random UUID-like auth code for PKCE flows. */
export const randomCode = () => randomBytes(16).toString('hex');
