import { errors, jwtVerify, SignJWT } from 'jose';
import { ERR } from './errors';

const encoder = new TextEncoder();

/** Claims of a signed download URL token. */
export interface DownloadClaims {
  url: string;
}

/** Claims of a signed upload URL token. */
export interface UploadClaims {
  url: string;
  owner: string | null;
  upsert: boolean;
}

async function sign(payload: Record<string, unknown>, secret: string, expiresIn: number) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(now)
    .setExpirationTime(now + Math.floor(expiresIn))
    .sign(encoder.encode(secret));
}

/** A signed download token `{url, iat, exp}` for `bucket/key`. */
export const signDownload = (url: string, secret: string, expiresIn: number) =>
  sign({ url }, secret, expiresIn);

/** A signed upload token `{owner, url, upsert, scope: "upload", iat, exp}`. */
export const signUpload = (claims: UploadClaims, secret: string, expiresIn: number) =>
  sign(
    {
      ...(claims.owner ? { owner: claims.owner } : {}),
      url: claims.url,
      upsert: claims.upsert,
      scope: 'upload',
    },
    secret,
    expiresIn,
  );

async function verify(token: string, secret: string): Promise<Record<string, unknown>> {
  try {
    const { payload } = await jwtVerify(token, encoder.encode(secret), { algorithms: ['HS256'] });
    return payload as Record<string, unknown>;
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw ERR.expiredToken();
    throw ERR.invalidJwt(
      error instanceof errors.JWSSignatureVerificationFailed
        ? 'invalid signature'
        : 'jwt malformed',
    );
  }
}

/** Verifies a download token for `url`; returns its `exp` (seconds). */
export async function verifyDownload(token: string, secret: string, url: string): Promise<number> {
  const claims = await verify(token, secret);
  if (claims.scope !== undefined && claims.scope !== 'download') throw ERR.invalidSignature();
  if (claims.url !== url) throw ERR.invalidSignature();
  return typeof claims.exp === 'number' ? claims.exp : 0;
}

/** Verifies an upload token for `url`; returns its owner and upsert flag. */
export async function verifyUpload(
  token: string,
  secret: string,
  url: string,
): Promise<UploadClaims> {
  const claims = await verify(token, secret);
  if (claims.scope !== 'upload' || claims.url !== url) throw ERR.invalidSignature();
  return {
    url,
    owner: typeof claims.owner === 'string' ? claims.owner : null,
    upsert: claims.upsert === true,
  };
}
