import { pgError } from '../db/index';

/**
 * A storage error in the hosted shape: `{statusCode: "<logical status>", code, error,
 * message}`. The HTTP status is 400 for every logical status except 500 (and the explicit
 * overrides: role enforcement 403, invalid range 416, database timeout 544).
 */
export class StorageError extends Error {
  constructor(
    /** Error code, e.g. `NoSuchKey`. */
    readonly code: string,
    /** The legacy `error` label. */
    readonly label: string,
    /** The logical status, sent as a string in `statusCode`. */
    readonly status: number,
    message: string,
    /** HTTP status when it is not the default (400, or 500 for 500). */
    readonly httpStatus?: number,
  ) {
    super(message);
  }

  /** The HTTP status the hosted service answers with. */
  get http(): number {
    return this.httpStatus ?? (this.status === 500 ? 500 : 400);
  }

  /** The JSON body. */
  toJSON() {
    return {
      statusCode: String(this.status),
      code: this.code,
      error: this.label,
      message: this.message,
    };
  }
}

const e = (code: string, label: string, status: number, message: string, http?: number) =>
  new StorageError(code, label, status, message, http);

/** The error catalogue of the hosted storage service (the ones this server raises). */
export const ERR = {
  noSuchBucket: () => e('NoSuchBucket', 'Bucket not found', 404, 'Bucket not found'),
  noSuchKey: () => e('NoSuchKey', 'not_found', 404, 'Object not found'),
  duplicate: () => e('Duplicate', 'Duplicate', 409, 'The resource already exists'),
  bucketNotEmpty: () =>
    e('ResourceNotEmpty', 'Resource Not Empty', 409, 'The bucket you tried to delete is not empty'),
  invalidBucketName: (name: string) =>
    e('InvalidBucketName', 'Invalid Input', 400, `Bucket name invalid: ${name}`),
  invalidKey: (key: string) => e('InvalidKey', 'Invalid Input', 400, `Invalid key: ${key}`),
  entityTooLarge: () =>
    e('EntityTooLarge', 'Payload too large', 413, 'The object exceeded the maximum allowed size'),
  invalidMimeType: (type: string) =>
    e('InvalidMimeType', 'invalid_mime_type', 415, `mime type ${type} is not supported`),
  accessDenied: (message = 'Access denied') => e('AccessDenied', 'Unauthorized', 403, message),
  invalidRole: () => e('AccessDenied', 'Unauthorized', 403, 'Access denied: Invalid role', 403),
  rlsDenied: () =>
    e('AccessDenied', 'Unauthorized', 403, 'new row violates row-level security policy'),
  invalidJwt: (message: string) => e('InvalidJWT', 'InvalidJWT', 400, message),
  invalidSignature: (message = 'Invalid signature') =>
    e('InvalidSignature', 'InvalidSignature', 400, message),
  invalidRange: () =>
    e('InvalidRange', 'Invalid Range', 416, 'The requested range is not satisfiable', 416),
  invalidRequest: (message: string) => e('InvalidRequest', 'Bad Request', 400, message),
  missingParameter: (message: string) => e('MissingParameter', 'Bad Request', 400, message),
  invalidParameter: (message: string) => e('InvalidParameter', 'Bad Request', 400, message),
  resourceLocked: () => e('ResourceLocked', 'resource_locked', 423, 'The resource is locked'),
  databaseTimeout: () => e('DatabaseTimeout', 'database_timeout', 544, 'Query timed out', 544),
  clientAbort: () => e('AbortedTerminate', 'Aborted', 499, 'The client aborted the request', 499),
  internal: () => e('InternalError', 'Internal', 500, 'Internal Server Error'),
  notFoundRoute: (method: string, path: string) =>
    e('NotFound', 'Not Found', 404, `Route ${method}:${path} not found`, 404),
};

/** The storage error for a database error (RLS, unique violation, …), or null. */
export function fromPg(error: unknown): StorageError | null {
  const pg = pgError(error);
  if (!pg) return null;
  switch (pg.code) {
    case '42501':
      return /row-level security/.test(pg.message) ? ERR.rlsDenied() : ERR.accessDenied(pg.message);
    case '23505':
      return ERR.duplicate();
    case '23503':
      return ERR.noSuchBucket();
    case '22P02':
      return ERR.invalidParameter(pg.message);
    case '55P03':
      return ERR.resourceLocked();
    case '57014':
      return ERR.databaseTimeout();
    case '22023':
    case '42704':
      // set_config('role', …) with a role the database does not have.
      return ERR.accessDenied(pg.message);
    default:
      return null;
  }
}

/** Any thrown value as a storage error; unexpected ones are logged and become a bare 500. */
export function toStorageError(error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  const mapped = fromPg(error);
  if (mapped) return mapped;
  const code = (error as { code?: unknown; name?: unknown } | null)?.code;
  if (code === 'ECONNRESET' || (error as { name?: unknown } | null)?.name === 'AbortError') {
    return ERR.clientAbort();
  }
  console.error('[backend-server] storage:', error);
  return ERR.internal();
}

/** The hosted error response for `error`. */
export function errorResponse(error: unknown, method = 'GET'): Response {
  const err = toStorageError(error);
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (err.code === 'NoSuchKey') headers['cache-control'] = 'no-store';
  const body = method === 'HEAD' ? null : JSON.stringify(err.toJSON());
  return new Response(body, { status: err.http, headers });
}
