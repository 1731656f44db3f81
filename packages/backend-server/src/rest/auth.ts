import type { GatewayInfo } from '../http/gateway';
import { type JwtClaims, verifyAccessToken } from '../http/jwt';
import type { SigningKeys } from '../http/signing-keys';
import { RestError } from './errors';

/** Who the request runs as. */
export interface Principal {
  role: string;
  claims: JwtClaims;
  /** A non-anonymous role: permission errors (42501) become 403 instead of 401. */
  authenticated: boolean;
}

const tokenError = (code: string, message: string) =>
  new RestError(401, code, message, null, null, {
    'www-authenticate': `Bearer error="invalid_token", error_description="${message}"`,
  });

function decodePart(part: string | undefined): unknown {
  try {
    return JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Why a well-formed token was refused: its claims (PGRST303) or its encoding (PGRST301). */
function claimsError(token: string): RestError {
  const [header, payload] = token.split('.');
  const head = decodePart(header) as Record<string, unknown> | undefined;
  if (!head || typeof head !== 'object')
    return tokenError('PGRST301', 'JWT cryptographic operation failed');
  if (head.alg !== 'HS256' && head.alg !== 'ES256' && head.alg !== 'RS256')
    return tokenError('PGRST301', 'Wrong or unsupported encoding algorithm');
  const claims = decodePart(payload) as Record<string, unknown> | undefined;
  if (!claims || typeof claims !== 'object') return tokenError('PGRST303', 'Parsing claims failed');
  const now = Date.now() / 1000;
  if (claims.exp !== undefined && typeof claims.exp !== 'number')
    return tokenError('PGRST303', "The JWT 'exp' claim must be a number");
  if (typeof claims.nbf === 'number' && claims.nbf > now + 30)
    return tokenError('PGRST303', 'JWT not yet valid');
  if (typeof claims.iat === 'number' && claims.iat > now + 30)
    return tokenError('PGRST303', 'JWT issued at future');
  return tokenError('PGRST301', 'JWT cryptographic operation failed');
}

/**
 * The role and claims of a request from the gateway's token, verified with the project's
 * signing keys by `kid` (PGRST301 bad token, PGRST303 bad claims).
 */
export async function authenticate(
  gateway: GatewayInfo | undefined,
  keys: SigningKeys,
): Promise<Principal> {
  const token = gateway?.token ?? null;
  if (!token) return { role: 'anon', claims: {}, authenticated: false };
  const parts = token.split('.').length;
  if (parts !== 3) throw tokenError('PGRST301', `Expected 3 parts in JWT; got ${parts}`);
  const result = await verifyAccessToken(token, keys);
  if (!result.ok) {
    if (result.reason === 'expired') throw tokenError('PGRST303', 'JWT expired');
    if (result.reason === 'malformed') throw claimsError(token);
    throw tokenError('PGRST301', 'JWT cryptographic operation failed');
  }
  const claims = result.claims;
  const role = typeof claims.role === 'string' && claims.role ? claims.role : 'anon';
  return { role, claims, authenticated: role !== 'anon' };
}
