import { verifyAccessToken } from '../../http/jwt';
import { type Caller, callerOfClaims, serviceCaller } from '../auth';
import type { StorageContext } from '../context';
import { type S3Body, s3Body } from './body';
import { S3ERR } from './errors';
import { s3KeySecret } from './keys';
import { checkTime, readSignature, verifySignature } from './sigv4';

/** The S3 protocol's settings, as resolved from `storage.s3Protocol`. */
export interface S3Settings {
  enabled: boolean;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The project's anon key: the secret of session-token credentials. */
  anonKey: string;
  /** The clock signatures are checked against (ms). */
  now: () => number;
}

/** What every S3 operation reads. */
export interface S3Context {
  s: StorageContext;
  settings: S3Settings;
}

/** One verified S3 request. */
export interface S3Call {
  req: Request;
  url: URL;
  caller: Caller;
  body: S3Body;
  /** `bucket/key` or `bucket`, for error answers. */
  resource: string;
}

/**
 * Verifies a request's AWS Signature V4 (header or presigned query) and says who it runs as:
 * the project's S3 access keys (the configured pair and those of `_auth.s3_access_keys`) are
 * the service role; session-token credentials (access key
 * id: anything, secret: the anon key, `X-Amz-Security-Token`: a user's JWT) are that user,
 * under RLS.
 */
export async function authorize(
  x: S3Context,
  req: Request,
  url: URL,
  path: string,
): Promise<{ caller: Caller; body: S3Body }> {
  const sig = readSignature(req, url.searchParams);
  if (!sig) throw S3ERR.accessDenied('Missing signature');
  checkTime(sig, x.settings.now());
  if (sig.sessionToken !== null) {
    const key = verifySignature(req, url, sig, x.settings.anonKey);
    if (!key) throw S3ERR.signatureDoesNotMatch(true);
    const result = await verifyAccessToken(sig.sessionToken, x.s.keys);
    if (!result.ok) throw S3ERR.accessDenied(result.detail);
    return { caller: callerOfClaims(req, path, result.claims), body: s3Body(req, sig, key) };
  }
  // The configured key pair, else a key made in the console or the CLI (read per request,
  // so a deleted one is refused at once everywhere).
  const secret =
    sig.accessKeyId === x.settings.accessKeyId
      ? x.settings.secretAccessKey
      : await s3KeySecret(x.s.db, sig.accessKeyId);
  if (secret === null) throw S3ERR.invalidAccessKeyId();
  const key = verifySignature(req, url, sig, secret);
  if (!key) throw S3ERR.signatureDoesNotMatch();
  return { caller: serviceCaller(req, path, null), body: s3Body(req, sig, key) };
}
