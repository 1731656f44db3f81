import { createHmac, timingSafeEqual, verify } from 'node:crypto';
import type { KeyEntry, SigningKeys } from './signing-keys';
import { IssuerUnreachable } from './third-party';

export type JwtClaims = Record<string, unknown> & { role?: string; sub?: string; exp?: number };

export type JwtResult =
  | { ok: true; claims: JwtClaims }
  | {
      ok: false;
      reason: 'expired' | 'invalid' | 'malformed';
      /** GoTrue's words (auth, REST, realtime answer with these). */
      message: string;
      /** The same failure in the words of jose, the JWT library storage-api answers with. */
      detail: string;
    };

/** Most tokens remembered as verified per project. */
const CACHE_MAX = 10_000;

const fail = (
  reason: 'expired' | 'invalid' | 'malformed',
  message: string,
  detail: string,
): JwtResult => ({ ok: false, reason, message, detail });

const JOSE = {
  compact: 'Invalid Compact JWS',
  header: 'JWS Protected Header is invalid',
  alg: '"alg" (Algorithm) Header Parameter value not allowed',
  noKey: 'no applicable key found in the JSON Web Key Set',
  signature: 'signature verification failed',
  claims: 'JWT Claims Set must be a top-level JSON object',
  exp: '"exp" claim timestamp check failed',
  nbf: '"nbf" claim timestamp check failed',
} as const;

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function decodeJson(part: string): Record<string, unknown> | null {
  if (!BASE64URL.test(part)) return null;
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

function signatureValid(key: KeyEntry, input: string, signature: Buffer): boolean {
  if (key.alg === 'HS256') {
    const expected = createHmac('sha256', key.verifyKey as Buffer)
      .update(input)
      .digest();
    return expected.length === signature.length && timingSafeEqual(expected, signature);
  }
  try {
    if (key.alg === 'ES256') {
      if (signature.length !== 64) return false;
      return verify(
        'sha256',
        Buffer.from(input),
        { key: key.verifyKey as never, dsaEncoding: 'ieee-p1363' },
        signature,
      );
    }
    return verify('sha256', Buffer.from(input), key.verifyKey as never, signature);
  } catch {
    return false;
  }
}

interface Decoded {
  input: string;
  body: string;
  sig: string;
  alg: string;
  kid: string | undefined;
}

/** The parts and header of a compact JWS, or why it is not one. */
function decode(token: string): Decoded | JwtResult {
  const parts = token.split('.');
  if (parts.length !== 3)
    return fail('malformed', 'token contains an invalid number of segments', JOSE.compact);
  const [head, body, sig] = parts as [string, string, string];
  const header = decodeJson(head);
  if (!header) return fail('malformed', 'could not JSON decode header', JOSE.header);
  const alg = header.alg;
  const kid = header.kid;
  if (typeof alg !== 'string' || (kid !== undefined && typeof kid !== 'string')) {
    return fail('malformed', 'invalid token header', JOSE.header);
  }
  if (alg.toLowerCase() === 'none')
    return fail('invalid', "'none' signature type is not allowed", JOSE.alg);
  return { input: `${head}.${body}`, body, sig, alg, kid };
}

/** The signature and claims of a decoded token against the key it names. */
function check(d: Decoded, key: KeyEntry | undefined, now: number): JwtResult {
  if (!key || key.status === 'standby') {
    return fail(
      'invalid',
      `unrecognized JWT kid ${d.kid ?? '<nil>'} for algorithm ${d.alg}`,
      JOSE.noKey,
    );
  }
  if (key.status === 'revoked')
    return fail('invalid', `signing key ${d.kid ?? '(legacy secret)'} is revoked`, JOSE.noKey);
  if (d.alg !== key.alg) return fail('invalid', `signing method ${d.alg} is invalid`, JOSE.alg);
  if (!BASE64URL.test(d.sig))
    return fail('malformed', 'could not base64 decode signature', JOSE.compact);
  if (!signatureValid(key, d.input, Buffer.from(d.sig, 'base64url'))) {
    return fail('invalid', 'signature is invalid', JOSE.signature);
  }
  const claims = decodeJson(d.body) as JwtClaims | null;
  if (!claims) return fail('malformed', 'could not JSON decode claim', JOSE.claims);
  const seconds = now / 1000;
  const { exp, nbf, iat } = claims;
  if (
    (exp !== undefined && typeof exp !== 'number') ||
    (iat !== undefined && typeof iat !== 'number')
  ) {
    return fail('malformed', 'token has invalid claims', JOSE.claims);
  }
  if (typeof exp === 'number' && exp <= seconds) {
    return fail('expired', 'token has invalid claims: token is expired', JOSE.exp);
  }
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > seconds)) {
    return fail('malformed', 'token has invalid claims: token is not valid yet', JOSE.nbf);
  }
  return { ok: true, claims };
}

function remember(
  keys: SigningKeys,
  token: string,
  result: JwtResult,
  thirdParty = false,
): JwtResult {
  if (!result.ok) return result;
  const { verified } = keys;
  if (verified.size >= CACHE_MAX) verified.delete(verified.keys().next().value as string);
  // Shared by every request that presents this token: nobody may change it.
  Object.freeze(result.claims);
  const { exp } = result.claims;
  verified.set(token, {
    claims: result.claims,
    until: typeof exp === 'number' ? exp * 1000 : Number.POSITIVE_INFINITY,
    thirdParty,
  });
  return result;
}

/** A token verified before; a third-party one only when `thirdParty` may be (not for auth). */
function cached(
  keys: SigningKeys,
  token: string,
  now: number,
  thirdParty: boolean,
): JwtResult | null {
  const hit = keys.verified.get(token);
  if (!hit || (hit.thirdParty && !thirdParty)) return null;
  if (hit.until > now) return { ok: true, claims: hit.claims as JwtClaims };
  keys.verified.delete(token);
  return null;
}

/**
 * The project's own tokens, as the auth service accepts them (third-party tokens are not
 * its tokens). The key is chosen by the token's `kid` among the project's signing keys
 * (no `kid`: the legacy secret, HS256 only), and the token's `alg` must be that key's
 * algorithm, so `alg: none`, an unknown or standby `kid`, a revoked key and algorithm
 * confusion (an HS256 token "signed" with a public key) are all refused. Verified tokens
 * are remembered until they expire or a key changes status.
 */
export function verifyJwt(token: string, keys: SigningKeys): JwtResult {
  const now = Date.now();
  const hit = cached(keys, token, now, false);
  if (hit) return hit;
  const d = decode(token);
  if (!('input' in d)) return d;
  const key =
    d.kid === undefined ? (d.alg === 'HS256' ? keys.find(null) : undefined) : keys.find(d.kid);
  return remember(keys, token, check(d, key, now));
}

/** Roles a third-party token may not ask for: they bypass row level security. */
const PRIVILEGED = new Set(['service_role', 'supabase_admin', 'postgres']);

/**
 * The one verifier of REST, storage, realtime and functions (`verify_jwt`): the project's
 * own tokens as {@link verifyJwt}, and tokens of a configured third-party issuer
 * (`keys.thirdParty`, by their `iss`) against that issuer's published keys, with the same
 * signature and claim checks. A third-party token may not name a role that bypasses row
 * level security; an issuer that cannot be reached makes its tokens invalid (never a 500).
 */
export async function verifyAccessToken(token: string, keys: SigningKeys): Promise<JwtResult> {
  const third = keys.thirdParty;
  if (!third) return verifyJwt(token, keys);
  const now = Date.now();
  const hit = cached(keys, token, now, true);
  if (hit) return hit;
  const d = decode(token);
  if (!('input' in d)) return d;
  const issuer =
    d.kid !== undefined && d.alg !== 'HS256' && !keys.find(d.kid)
      ? third.issuer(decodeJson(d.body)?.iss)
      : undefined;
  if (!issuer) return verifyJwt(token, keys);
  let key: KeyEntry | undefined;
  try {
    key = await issuer.key(d.kid as string);
  } catch (error) {
    if (!(error instanceof IssuerUnreachable)) throw error;
    return fail('invalid', `unable to fetch the keys of ${issuer.issuer}`, JOSE.noKey);
  }
  const result = check(d, key, Date.now());
  if (result.ok && PRIVILEGED.has(result.claims.role as string)) {
    return fail(
      'invalid',
      `role ${result.claims.role} is not allowed in a third-party token`,
      JOSE.claims,
    );
  }
  return remember(keys, token, result, true);
}

/** The decoded header of a JWT, or null when it is not one. */
export function jwtHeader(token: string): Record<string, unknown> | null {
  const head = token.split('.')[0];
  return head ? decodeJson(head) : null;
}

/** The bearer token of an `Authorization` header, or null. */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}
