/**
 * `getClaims()`: the verified claims of an access token. Tokens signed with an asymmetric
 * key (ES256, RS256) are verified here with WebCrypto and the project's cached JWKS; tokens
 * signed with a shared secret (HS256), without a `kid`, or where WebCrypto is missing are
 * checked by the auth server (`GET /user`), as the hosted client does.
 */
import { AuthError } from '../errors';
import type { Http } from '../http/index';
import { fromBase64url, toAuthError } from './api';
import { findJwk, type Jwk } from './jwks';

/** The claims of an access token (custom claims of an access-token hook included). */
export interface JwtPayload {
  sub: string;
  role: string;
  aud?: string | string[];
  exp?: number;
  iat?: number;
  iss?: string;
  email?: string;
  phone?: string;
  session_id?: string;
  aal?: string;
  amr?: { method: string; timestamp: number }[];
  is_anonymous?: boolean;
  app_metadata?: Record<string, unknown>;
  user_metadata?: Record<string, unknown>;
  [claim: string]: unknown;
}

/** The protected header of a JWT. */
export interface JwtHeader {
  alg: string;
  kid?: string;
  typ?: string;
  [member: string]: unknown;
}

/** What {@link getClaims} resolves to. */
export type ClaimsResult =
  | { data: { claims: JwtPayload; header: JwtHeader; signature: Uint8Array }; error: null }
  | { data: null; error: AuthError }
  | { data: null; error: null };

/** Options of `getClaims`. */
export interface GetClaimsOptions {
  /**
   * Accept an expired token (its `exp` is not checked).
   *
   * @example
   * await auth.getClaims(oldToken, { allowExpired: true });
   */
  allowExpired?: boolean;
  /**
   * A key set to use before the project's (e.g. one bundled with a server).
   *
   * @example
   * await auth.getClaims(token, { jwks: { keys: [publicJwk] } });
   */
  jwks?: { keys: Jwk[] };
}

const invalid = (message: string) => new AuthError(message, { status: 400, code: 'invalid_jwt' });

function bytes(part: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(part)) throw invalid('Invalid JWT structure');
  return fromBase64url(part);
}

const json = (part: string) => JSON.parse(new TextDecoder().decode(bytes(part)));

/** Splits and decodes a compact JWT (no verification). */
export function decodeJwt(token: string) {
  const parts = token.split('.');
  if (parts.length !== 3) throw invalid('Invalid JWT structure');
  const [head, body, sig] = parts as [string, string, string];
  try {
    return {
      header: json(head) as JwtHeader,
      payload: json(body) as JwtPayload,
      signature: bytes(sig),
      signed: new TextEncoder().encode(`${head}.${body}`),
    };
  } catch {
    throw invalid('Invalid JWT structure');
  }
}

/** WebCrypto parameters of a JWS algorithm, or null for one verified by the server. */
function algorithmOf(alg: string) {
  if (alg === 'RS256') return { name: 'RSASSA-PKCS1-v1_5', hash: { name: 'SHA-256' } };
  if (alg === 'ES256') return { name: 'ECDSA', namedCurve: 'P-256', hash: { name: 'SHA-256' } };
  return null;
}

/**
 * Verifies `token` and returns its claims, header and signature (see the module comment);
 * `serverCheck` asks the auth server about tokens that cannot be verified here.
 */
export async function verifyClaims(
  http: Http,
  token: string,
  now: number,
  serverCheck: (token: string) => Promise<AuthError | null>,
  options: GetClaimsOptions = {},
): Promise<ClaimsResult> {
  try {
    const { header, payload, signature, signed } = decodeJwt(token);
    if (!options.allowExpired) {
      const exp = payload.exp;
      if (typeof exp !== 'number' || !exp) throw invalid('Missing exp claim');
      if (exp <= Math.floor(now / 1000)) throw invalid('JWT has expired');
    }
    const algorithm = algorithmOf(header.alg);
    const subtle = globalThis.crypto?.subtle;
    const jwk =
      algorithm && header.kid && subtle ? await findJwk(http, header.kid, now, options.jwks) : null;
    if (jwk && algorithm && subtle) {
      const key = await subtle.importKey('jwk', jwk as JsonWebKey, algorithm, true, ['verify']);
      const valid = await subtle.verify(
        algorithm,
        key,
        signature as BufferSource,
        signed as BufferSource,
      );
      if (!valid) throw invalid('Invalid JWT signature');
    } else {
      const error = await serverCheck(token);
      if (error) throw error;
    }
    return { data: { claims: payload, header, signature }, error: null };
  } catch (e) {
    return { data: null, error: toAuthError(e) };
  }
}
