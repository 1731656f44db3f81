/**
 * PKCE: a random code verifier and its S256 challenge (plain where WebCrypto is missing).
 */

/** Bytes as base64url without padding. */
export const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** A new code verifier: 64 hex characters from 32 random bytes. */
export function createVerifier(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The challenge and method for `verifier`: `s256` (base64url SHA-256), or `plain`. */
export async function challengeOf(verifier: string): Promise<[string, 's256' | 'plain']> {
  if (!crypto.subtle) return [verifier, 'plain'];
  const hash = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return [base64url(new Uint8Array(hash)), 's256'];
}
