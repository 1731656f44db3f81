import { decodeJwt } from 'jose';
import type { ServerConfig } from '../config/index';
import { keyToken } from '../http/gateway';
import { type JwtClaims, verifyAccessToken } from '../http/jwt';

/** Why a realtime token was refused, with the hosted service's code and message. */
export interface TokenError {
  /** Log code the hosted service prefixes join errors with, e.g. `InvalidJWTToken`. */
  code: 'InvalidJWTToken' | 'MalformedJWT' | 'JwtSignatureError';
  message: string;
  /** The HTTP handshake message for the same failure. */
  connectMessage: string;
}

export type TokenResult = { ok: true; claims: JwtClaims } | { ok: false; error: TokenError };

/**
 * Checks a realtime token as the hosted service does: a JWT signed with one of the
 * project's keys, with `role` and `exp` claims, not expired. A project API key stands for
 * the JWT the gateway derives from it (publishable and secret keys are not JWTs).
 */
export async function checkToken(token: string, config: ServerConfig): Promise<TokenResult> {
  const cleaned = decodeURIComponentSafe(token).replace(/\s/g, '');
  const result = await verifyAccessToken(keyToken(config, cleaned) ?? cleaned, config.signingKeys);
  if (result.ok) {
    const { claims } = result;
    if (typeof claims.role !== 'string' || typeof claims.exp !== 'number') {
      const message = 'Fields `role` and `exp` are required in JWT';
      return { ok: false, error: { code: 'InvalidJWTToken', message, connectMessage: message } };
    }
    return { ok: true, claims };
  }
  if (result.reason === 'expired') {
    let ago = 0;
    try {
      const exp = decodeJwt(cleaned).exp;
      if (typeof exp === 'number') ago = Math.max(0, Math.floor(Date.now() / 1000) - exp);
    } catch {
      // Expired tokens always decode; keep 0 otherwise.
    }
    return {
      ok: false,
      error: {
        code: 'InvalidJWTToken',
        message: `Token has expired ${ago} seconds ago`,
        connectMessage: 'Token has expired',
      },
    };
  }
  if (result.reason === 'invalid') {
    const message = 'Failed to validate JWT signature';
    return { ok: false, error: { code: 'JwtSignatureError', message, connectMessage: message } };
  }
  const message = 'The token provided is not a valid JWT';
  return { ok: false, error: { code: 'MalformedJWT', message, connectMessage: message } };
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Seconds until the token's `exp`, from its claims. */
export function secondsLeft(claims: JwtClaims): number {
  return (claims.exp ?? 0) - Math.floor(Date.now() / 1000);
}
