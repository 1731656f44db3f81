import { ERR } from '../errors';
import { drain } from '../http/body';
import { authorize, type S3Call, type S3Context } from './auth';
import {
  bucketLocation,
  bucketVersioning,
  createBucket,
  deleteBucket,
  headBucket,
  listBuckets,
} from './buckets';
import { S3ERR, s3ErrorResponse } from './errors';
import { getObject } from './get';
import { listObjectsV1, listObjectsV2 } from './list';
import {
  abortMultipartUpload,
  completeMultipartUpload,
  createMultipartUpload,
  uploadPart,
} from './multipart';
import { listMultipartUploads, listParts } from './multipart-list';
import { copyObject, deleteObject, deleteObjects, putObject } from './objects';

/** Where the S3 protocol is served (path-style: `/storage/v1/s3/<bucket>/<key>`). */
export const S3_PATH = '/storage/v1/s3';

type Handler = () => Promise<Response>;

/** Bucket and object sub-resources S3 has and this server does not. */
const BUCKET_EXTRAS = [
  'acl',
  'cors',
  'policy',
  'policyStatus',
  'lifecycle',
  'tagging',
  'encryption',
  'website',
  'logging',
  'notification',
  'replication',
  'object-lock',
  'ownershipControls',
  'publicAccessBlock',
  'accelerate',
  'requestPayment',
  'analytics',
  'metrics',
  'inventory',
  'intelligent-tiering',
  'versions',
];
const OBJECT_EXTRAS = [
  'acl',
  'tagging',
  'retention',
  'legal-hold',
  'torrent',
  'attributes',
  'restore',
  'select',
];

function unsupported(q: URLSearchParams, extras: string[], m: string): void {
  const extra = extras.find((name) => q.has(name));
  if (extra) throw S3ERR.notImplemented(`${m} ?${extra}`);
}

function bucketRoute(x: S3Context, c: S3Call, m: string, bucket: string): Handler {
  const q = c.url.searchParams;
  if (m === 'GET') {
    if (q.has('location')) return () => bucketLocation(x, c, bucket);
    if (q.has('versioning')) return () => bucketVersioning(x, c, bucket);
    if (q.has('uploads')) return () => listMultipartUploads(x, c, bucket);
    unsupported(q, BUCKET_EXTRAS, m);
    if (q.get('list-type') === '2') return () => listObjectsV2(x, c, bucket);
    return () => listObjectsV1(x, c, bucket);
  }
  if (m === 'HEAD') return () => headBucket(x, c, bucket);
  if (m === 'POST' && q.has('delete')) return () => deleteObjects(x, c, bucket);
  unsupported(q, BUCKET_EXTRAS, m);
  if (m === 'PUT') return () => createBucket(x, c, bucket);
  if (m === 'DELETE') return () => deleteBucket(x, c, bucket);
  throw S3ERR.methodNotAllowed();
}

function objectRoute(x: S3Context, c: S3Call, m: string, bucket: string, key: string): Handler {
  const q = c.url.searchParams;
  if (m === 'GET' && q.has('uploadId')) return () => listParts(x, c, bucket, key);
  if (m === 'PUT' && (q.has('partNumber') || q.has('uploadId'))) {
    return () => uploadPart(x, c, bucket, key);
  }
  if (m === 'POST' && q.has('uploads')) return () => createMultipartUpload(x, c, bucket, key);
  if (m === 'POST' && q.has('uploadId')) return () => completeMultipartUpload(x, c, bucket, key);
  if (m === 'DELETE' && q.has('uploadId')) return () => abortMultipartUpload(x, c, bucket, key);
  unsupported(q, OBJECT_EXTRAS, m);
  if (m === 'GET' || m === 'HEAD') return () => getObject(x, c, bucket, key);
  if (m === 'PUT' && c.req.headers.has('x-amz-copy-source')) {
    return () => copyObject(x, c, bucket, key);
  }
  if (m === 'PUT') return () => putObject(x, c, bucket, key);
  if (m === 'DELETE') return () => deleteObject(x, c, bucket, key);
  throw S3ERR.methodNotAllowed();
}

/** Bucket and key of a path under {@link S3_PATH} (either may be empty). */
function target(path: string): { bucket: string; key: string } {
  const rest = path.replace(/^\//, '');
  const at = rest.indexOf('/');
  const rawBucket = at < 0 ? rest : rest.slice(0, at);
  const rawKey = at < 0 ? '' : rest.slice(at + 1);
  try {
    return { bucket: decodeURIComponent(rawBucket), key: decodeURIComponent(rawKey) };
  } catch {
    throw ERR.invalidKey(rest);
  }
}

/**
 * One S3 request: signature checked (service role or session token), routed by method,
 * path and sub-resource, answered in S3's shapes; every error as `<Error>` XML.
 */
export async function handleS3(x: S3Context, req: Request): Promise<Response> {
  const url = new URL(req.url);
  const path = url.pathname.slice(S3_PATH.length);
  let resource = '';
  let call: S3Call | null = null;
  try {
    if (!x.settings.enabled) throw S3ERR.disabled();
    const { bucket, key } = target(path);
    resource = key ? `${bucket}/${key}` : bucket;
    const { caller, body } = await authorize(x, req, url, `/s3${path}`);
    call = { req, url, caller, body, resource };
    const handler = !bucket
      ? req.method === 'GET'
        ? () => listBuckets(x, call as S3Call)
        : null
      : key
        ? objectRoute(x, call, req.method, bucket, key)
        : bucketRoute(x, call, req.method, bucket);
    if (!handler) throw S3ERR.methodNotAllowed();
    return await handler();
  } catch (error) {
    if (call) await call.body.drain();
    else if (req.body && !req.bodyUsed && !req.body.locked) await drain(req.body.getReader());
    return s3ErrorResponse(error, req.method, resource);
  }
}
