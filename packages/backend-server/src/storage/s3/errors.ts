import { type StorageError, toStorageError } from '../errors';
import { xmlEscape } from './xml';

/** An S3 error: its code, HTTP status and message, answered as `<Error>` XML. */
export class S3Error extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const e = (code: string, status: number, message: string) => new S3Error(code, status, message);

/** The S3 error catalogue (codes and statuses as S3 answers them). */
export const S3ERR = {
  accessDenied: (message = 'Access Denied') => e('AccessDenied', 403, message),
  disabled: () => e('AccessDenied', 403, 'The S3 protocol is not enabled on this server'),
  invalidAccessKeyId: () =>
    e(
      'InvalidAccessKeyId',
      403,
      'The AWS Access Key Id you provided does not exist in our records.',
    ),
  signatureDoesNotMatch: (session = false) =>
    e(
      'SignatureDoesNotMatch',
      403,
      session
        ? 'The request signature we calculated does not match the signature you provided, Check your credentials. The session token should be a valid JWT token'
        : 'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    ),
  timeTooSkewed: () =>
    e(
      'RequestTimeTooSkewed',
      403,
      'The difference between the request time and the server time is too large.',
    ),
  expired: () => e('AccessDenied', 403, 'Request has expired'),
  malformedAuth: (message: string) => e('AuthorizationHeaderMalformed', 400, message),
  malformedQueryAuth: (message: string) => e('AuthorizationQueryParametersError', 400, message),
  invalidArgument: (message: string) => e('InvalidArgument', 400, message),
  invalidRequest: (message: string) => e('InvalidRequest', 400, message),
  malformedXml: () =>
    e(
      'MalformedXML',
      400,
      'The XML you provided was not well-formed or did not validate against our published schema.',
    ),
  sha256Mismatch: () =>
    e(
      'XAmzContentSHA256Mismatch',
      400,
      "The provided 'x-amz-content-sha256' header does not match what was computed.",
    ),
  badDigest: () =>
    e('BadDigest', 400, 'The Content-MD5 you specified did not match what we received.'),
  checksumMismatch: (algorithm: string) =>
    e('BadDigest', 400, `The ${algorithm} you specified did not match the calculated checksum.`),
  incompleteBody: () =>
    e('IncompleteBody', 400, 'You did not provide the number of bytes specified by the header.'),
  noSuchUpload: () =>
    e(
      'NoSuchUpload',
      404,
      'The specified multipart upload does not exist. The upload ID might be invalid, or the multipart upload might have been aborted or completed.',
    ),
  completing: () =>
    e(
      'OperationAborted',
      409,
      'A conflicting conditional operation is currently in progress against this resource. Please try again.',
    ),
  invalidPart: (message = 'One or more of the specified parts could not be found.') =>
    e('InvalidPart', 400, message),
  invalidPartOrder: () =>
    e('InvalidPartOrder', 400, 'The list of parts was not in ascending order.'),
  preconditionFailed: () =>
    e('PreconditionFailed', 412, 'At least one of the pre-conditions you specified did not hold'),
  notImplemented: (what: string) =>
    e('NotImplemented', 501, `${what} is not implemented by this server`),
  methodNotAllowed: () =>
    e('MethodNotAllowed', 405, 'The specified method is not allowed against this resource.'),
  bucketOwnedByYou: () =>
    e(
      'BucketAlreadyOwnedByYou',
      409,
      'The bucket you tried to create already exists, and you own it.',
    ),
  bucketExists: () =>
    e(
      'BucketAlreadyExists',
      409,
      'The requested bucket name is not available. The bucket namespace is shared by all users of the system.',
    ),
};

/** S3 codes and statuses for the errors the storage layer raises. */
const FROM_STORAGE: Record<string, [string, number]> = {
  NoSuchBucket: ['NoSuchBucket', 404],
  NoSuchKey: ['NoSuchKey', 404],
  Duplicate: ['BucketAlreadyExists', 409],
  ResourceNotEmpty: ['BucketNotEmpty', 409],
  InvalidBucketName: ['InvalidBucketName', 400],
  InvalidKey: ['InvalidKey', 400],
  EntityTooLarge: ['EntityTooLarge', 400],
  InvalidMimeType: ['InvalidMimeType', 415],
  AccessDenied: ['AccessDenied', 403],
  InvalidJWT: ['AccessDenied', 403],
  InvalidRange: ['InvalidRange', 416],
  InvalidRequest: ['InvalidRequest', 400],
  MissingParameter: ['InvalidArgument', 400],
  InvalidParameter: ['InvalidArgument', 400],
  ResourceLocked: ['OperationAborted', 409],
  DatabaseTimeout: ['SlowDown', 503],
  AbortedTerminate: ['RequestTimeout', 400],
};

/** Any thrown value as an S3 error (storage and database errors mapped; others a logged 500). */
export function toS3Error(error: unknown): S3Error {
  if (error instanceof S3Error) return error;
  const storage: StorageError = toStorageError(error);
  const mapped = FROM_STORAGE[storage.code];
  if (mapped) return new S3Error(mapped[0], mapped[1], storage.message);
  return new S3Error('InternalError', 500, 'We encountered an internal error. Please try again.');
}

/** The `<Error>` answer for `error` (no body for HEAD, as S3). */
export function s3ErrorResponse(error: unknown, method: string, resource: string): Response {
  const err = toS3Error(error);
  const body =
    method === 'HEAD'
      ? null
      : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${xmlEscape(err.code)}</Code><Message>${xmlEscape(err.message)}</Message><Resource>${xmlEscape(resource)}</Resource></Error>`;
  return new Response(body, { status: err.status, headers: { 'content-type': 'application/xml' } });
}
