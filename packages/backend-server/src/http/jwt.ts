import { errors, jwtVerify } from 'jose';

export type JwtClaims = Record<string, unknown> & { role?: string; sub?: string; exp?: number };

export type JwtResult =
  | { ok: true; claims: JwtClaims }
  | {
      ok: false;
      reason: 'expired' | 'invalid' | 'malformed';
      message: string;
      /** The JWT library's own message (jose), as services built on it answer. */
      detail: string;
    };

const encoder = new TextEncoder();
const keys = new Map<string, Uint8Array>();

/**
 * Verifies an HS256 JWT with the project secret. `alg: none`, other algorithms, a wrong
 * signature or a token that is not a JWT are rejected; an expired one says so.
 */
export async function verifyJwt(token: string, secret: string): Promise<JwtResult> {
  if (token.split('.').length !== 3) {
    return {
      ok: false,
      reason: 'malformed',
      message: 'token is malformed',
      detail: 'Invalid Compact JWS',
    };
  }
  let key = keys.get(secret);
  if (!key) {
    key = encoder.encode(secret);
    keys.set(secret, key);
  }
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] });
    return { ok: true, claims: payload as JwtClaims };
  } catch (error) {
    const detail = error instanceof Error ? error.message : 'Invalid JWT';
    if (error instanceof errors.JWTExpired) {
      return {
        ok: false,
        reason: 'expired',
        message: 'token has invalid claims: token is expired',
        detail,
      };
    }
    if (error instanceof errors.JWSSignatureVerificationFailed) {
      return { ok: false, reason: 'invalid', message: 'signature is invalid', detail };
    }
    if (error instanceof errors.JOSEAlgNotAllowed) {
      return { ok: false, reason: 'invalid', message: 'signing method is not allowed', detail };
    }
    return { ok: false, reason: 'malformed', message: 'token is malformed', detail };
  }
}

/** The bearer token of an `Authorization` header, or null. */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}
