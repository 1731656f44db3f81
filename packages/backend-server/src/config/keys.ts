/**
 * The project's keys: the legacy API keys (HS256 JWTs of the JWT secret) and the local
 * tooling's defaults, the opaque publishable and secret keys, and new signing keys. Part of
 * the settings layer: `resolveConfig` derives and checks the keys with these.
 */
import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { SigningKeyJwk } from '../http/signing-keys';

/** The JWT secret the hosted backend's local tooling uses, so tools set up for it work unchanged. */
export const DEFAULT_JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';

/** Expiry of the default API keys (as the hosted backend's local tooling issues them). */
const API_KEY_EXP = 1983812996;

/** The two API keys of a project: HS256 JWTs whose `role` claim selects the database role. */
export interface ApiKeys {
  anonKey: string;
  serviceRoleKey: string;
}

function apiKey(role: 'anon' | 'service_role', secret: Uint8Array): Promise<string> {
  return new SignJWT({ iss: 'supabase-demo', role, exp: API_KEY_EXP })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(secret);
}

/** The anon and service_role keys for a JWT secret. */
export async function createApiKeys(jwtSecret: string = DEFAULT_JWT_SECRET): Promise<ApiKeys> {
  const secret = new TextEncoder().encode(jwtSecret);
  const [anonKey, serviceRoleKey] = await Promise.all([
    apiKey('anon', secret),
    apiKey('service_role', secret),
  ]);
  return { anonKey, serviceRoleKey };
}

/** The publishable key of the hosted backend's local tooling. */
export const DEFAULT_PUBLISHABLE_KEY = 'sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH';
/** The secret key of the hosted backend's local tooling. */
export const DEFAULT_SECRET_KEY = 'sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz';

/** The kinds of opaque API keys and the role each stands for. */
export const OPAQUE_KEY_ROLES = { publishable: 'anon', secret: 'service_role' } as const;
export type OpaqueKeyKind = keyof typeof OPAQUE_KEY_ROLES;

const OPAQUE_KEY = /^sb_(publishable|secret)_[A-Za-z0-9_-]{16,}$/;

/** Checks a configured `sb_publishable_…` / `sb_secret_…` key; throws naming the problem. */
export function checkOpaqueKey(key: string, kind: OpaqueKeyKind): string {
  const match = typeof key === 'string' ? OPAQUE_KEY.exec(key) : null;
  if (!match || match[1] !== kind) {
    throw new Error(`not a ${kind} key (expected sb_${kind}_ followed by at least 16 characters)`);
  }
  return key;
}

/**
 * A new random opaque API key in the hosted format: the prefix, 16 random bytes and a short
 * checksum, base64url.
 *
 * @example
 * startServer({ secretKeys: [generateOpaqueKey('secret')] });
 */
export function generateOpaqueKey(kind: OpaqueKeyKind): string {
  const body = randomBytes(16).toString('base64url');
  const check = createHash('sha256')
    .update(`sb_${kind}_${body}`)
    .digest()
    .subarray(0, 6)
    .toString('base64url');
  return `sb_${kind}_${body}_${check}`;
}

/**
 * A new private signing key as a JWK, in the shape `supabase gen signing-key` prints (and
 * `signingKeys` / GoTrue's `GOTRUE_JWT_KEYS` read): a random UUID `kid`, `use: "sig"`,
 * `key_ops: ["sign", "verify"]`. ES256 is a P-256 key, RS256 a 2048-bit RSA key.
 *
 * @example
 * const key = generateSigningKey('ES256');
 * await startServer({ signingKeys: [key] });
 */
export function generateSigningKey(algorithm: 'ES256' | 'RS256' = 'ES256'): SigningKeyJwk {
  const pair =
    algorithm === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : algorithm === 'RS256'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : null;
  if (!pair) throw new Error(`unsupported algorithm: ${String(algorithm)} (ES256 or RS256)`);
  const { kty, ...material } = pair.privateKey.export({ format: 'jwk' }) as Record<string, string>;
  return {
    kty: kty as string,
    kid: randomUUID(),
    use: 'sig',
    key_ops: ['sign', 'verify'],
    alg: algorithm,
    ext: true,
    ...material,
  };
}

/** The local S3 protocol access key id (public, like the local API keys). */
export const DEFAULT_S3_ACCESS_KEY_ID = 'backendlocals3key000';
/** The local S3 protocol secret access key (public, like the local API keys). */
export const DEFAULT_S3_SECRET_ACCESS_KEY = 'backend-local-s3-secret-0000000000000000';
