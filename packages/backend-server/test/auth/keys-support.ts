import { createHmac, createPublicKey } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importJWK, SignJWT } from 'jose';
import type { SigningKeyJwk } from '../../src/http/signing-keys';

const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** The key material of a JWK (WebCrypto refuses `key_ops: ["sign", "verify"]` on a private key). */
function privateMaterial(jwk: SigningKeyJwk): Record<string, unknown> {
  const {
    key_ops: _ops,
    use: _use,
    ext: _ext,
    status: _status,
    alg: _alg,
    kid: _kid,
    ...material
  } = jwk;
  return material;
}

/** A token signed with a private JWK (its `kid` in the header unless `kid` says otherwise). */
export async function signWith(
  jwk: SigningKeyJwk,
  claims: Record<string, unknown>,
  header: { kid?: string | null } = {},
): Promise<string> {
  const alg = String(jwk.alg);
  const key =
    jwk.kty === 'oct'
      ? Buffer.from(String(jwk.k), 'base64url')
      : await importJWK(privateMaterial(jwk) as never, alg);
  const kid = header.kid === undefined ? jwk.kid : header.kid;
  return new SignJWT(claims)
    .setProtectedHeader({ alg, typ: 'JWT', ...(kid ? { kid } : {}) })
    .sign(key);
}

/** A compact JWT with any header, signed by `sign` over `header.payload` (or unsigned). */
export function rawToken(
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  sign: (input: string) => Buffer = () => Buffer.alloc(0),
): string {
  const input = `${b64(JSON.stringify(header))}.${b64(JSON.stringify(claims))}`;
  return `${input}.${b64(sign(input))}`;
}

/** An HS256 MAC with `secret` (for algorithm-confusion tokens keyed by a public key). */
export const hmacWith = (secret: string | Buffer) => (input: string) =>
  createHmac('sha256', secret).update(input).digest();

/** The PEM of a JWK's public part. */
export const publicPem = (jwk: SigningKeyJwk): string =>
  createPublicKey({ key: jwk as never, format: 'jwk' }).export({
    type: 'spki',
    format: 'pem',
  }) as string;

/** Claims of a user token for `sub`, valid for an hour (or expired `ago` seconds back). */
export function userClaims(sub: string, options: { expiredAgo?: number } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const exp = options.expiredAgo ? now - options.expiredAgo : now + 3600;
  return {
    aud: 'authenticated',
    sub,
    role: 'authenticated',
    email: `${sub}@example.com`,
    iat: now - (options.expiredAgo ? options.expiredAgo + 60 : 0),
    exp,
  };
}

/** A functions dir with one function (`echo`, verify_jwt on by default) answering `{ ok }`. */
export async function echoFunctionDir(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'auth-keys-'));
  const dir = join(root, 'functions', 'echo');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'index.ts'), 'export default () => Response.json({ ok: true });\n');
  return join(root, 'functions');
}
