import { errors, jwtVerify, SignJWT } from 'jose';
import { ERR } from '../errors';

const encoder = new TextEncoder();

/** Claims of a signed download URL token. */
export interface DownloadClaims {
  url: string;
  /** Seconds since the epoch. */
  exp: number;
  /** Signed image transformations (render URLs), e.g. `height:200,width:200`. */
  transformations?: string;
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

/**
 * A signed download token `{url, scope: "download", iat, exp}` for `bucket/key`, with the
 * `transformations` (and `format`) of a render URL when given.
 */
export const signDownload = (
  url: string,
  secret: string,
  expiresIn: number,
  render: { transformations: string; format?: string } | null = null,
) =>
  sign(
    {
      ...(render?.transformations ? { transformations: render.transformations } : {}),
      ...(render?.format ? { format: render.format } : {}),
      url,
      scope: 'download',
    },
    secret,
    expiresIn,
  );

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
    // The hosted service answers with the JWT library's own words (jose, as here), also
    // for an expired token.
    throw ERR.invalidJwt(error instanceof errors.JOSEError ? error.message : 'Invalid JWT');
  }
}

/** Verifies a download token for `url`; returns its claims. */
export async function verifyDownload(
  token: string,
  secret: string,
  url: string,
): Promise<DownloadClaims> {
  const claims = await verify(token, secret);
  const download =
    claims.scope === 'download' || (claims.scope === undefined && !('upsert' in claims));
  if (!download) {
    throw ERR.invalidSignature('Token is not scoped for download');
  }
  if (claims.url !== url) throw ERR.invalidSignature();
  return {
    url,
    exp: typeof claims.exp === 'number' ? claims.exp : 0,
    ...(typeof claims.transformations === 'string'
      ? { transformations: claims.transformations }
      : {}),
  };
}

/** Verifies an upload token for `url`; returns its owner and upsert flag. */
export async function verifyUpload(
  token: string,
  secret: string,
  url: string,
): Promise<UploadClaims> {
  const claims = await verify(token, secret);
  const upload = claims.scope === 'upload' || (claims.scope === undefined && 'upsert' in claims);
  if (!upload) throw ERR.invalidSignature('Token is not scoped for upload');
  if (claims.url !== url) throw ERR.invalidSignature();
  return {
    url,
    owner: typeof claims.owner === 'string' ? claims.owner : null,
    upsert: claims.upsert === true,
  };
}
