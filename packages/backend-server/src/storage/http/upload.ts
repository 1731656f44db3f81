import { type Caller, serviceCaller } from '../auth';
import { callerOf, json, type StorageContext, type StorageRequest } from '../context';
import { ERR } from '../errors';
import { checkBucketName, checkKey } from '../names';
import { bucketLimits, canWrite, commitObject, sizeLimit, type WriteMode } from '../objects';
import { receiveUpload } from './body';
import { signUpload, verifyUpload } from './tokens';

/**
 * Receives a body into the store as `bucket/key`: bucket limits, an RLS check up front
 * (nothing is received for a caller who may not write), the bytes streamed to a temp file
 * and fsynced, renamed into place, then the row committed as the caller.
 */
async function store(
  s: StorageContext,
  req: Request,
  caller: Caller,
  bucket: string,
  key: string,
  mode: WriteMode,
): Promise<string> {
  const limits = await bucketLimits(s.db, bucket);
  await canWrite(s.db, caller, bucket, key, mode);
  const file = await receiveUpload(req, {
    objects: s.objects,
    limit: sizeLimit(limits, s.globalLimit),
    allowedMimeTypes: limits.allowedMimeTypes,
  });
  const version = file.temp.version;
  try {
    await file.temp.commit();
  } catch (error) {
    await file.temp.discard();
    throw error;
  }
  return commitObject(
    s.db,
    s.objects,
    caller,
    {
      bucket,
      name: key,
      version,
      size: file.size,
      md5: file.md5,
      mimetype: file.mimetype,
      cacheControl: file.cacheControl,
      userMetadata: file.userMetadata,
    },
    mode,
  );
}

/** POST (upload; `x-upsert`) and PUT (update) /object/:bucket/:key → `{Id, Key}`. */
export async function uploadObject(
  s: StorageContext,
  r: StorageRequest,
  bucket: string,
  key: string,
): Promise<Response> {
  checkBucketName(bucket);
  checkKey(key);
  const caller = await callerOf(s, r);
  const mode: WriteMode =
    r.req.method === 'PUT'
      ? 'update'
      : r.req.headers.get('x-upsert') === 'true'
        ? 'upsert'
        : 'insert';
  const id = await store(s, r.req, caller, bucket, key, mode);
  return json({ Id: id, Key: `${bucket}/${key}` });
}

/** POST /object/upload/sign/:bucket/:key → `{url, token}` (RLS INSERT checked now). */
export async function createSignedUpload(
  s: StorageContext,
  r: StorageRequest,
  bucket: string,
  key: string,
): Promise<Response> {
  checkBucketName(bucket);
  checkKey(key);
  const caller = await callerOf(s, r);
  const upsert = r.req.headers.get('x-upsert') === 'true';
  await bucketLimits(s.db, bucket);
  await canWrite(s.db, caller, bucket, key, upsert ? 'upsert' : 'insert');
  const url = `${bucket}/${key}`;
  const token = await signUpload(
    { url, owner: caller.owner, upsert },
    s.secret,
    s.signedUploadExpiry,
  );
  return json({ url: `/object/upload/sign/${url}?token=${token}`, token });
}

/** PUT /object/upload/sign/:bucket/:key?token= → `{Key}`: the token authorises, not RLS. */
export async function uploadToSignedUrl(
  s: StorageContext,
  r: StorageRequest,
  bucket: string,
  key: string,
): Promise<Response> {
  checkBucketName(bucket);
  checkKey(key);
  const token = r.query.get('token');
  if (!token) throw ERR.invalidRequest("querystring must have required property 'token'");
  const claims = await verifyUpload(token, s.secret, `${bucket}/${key}`);
  const caller = serviceCaller(r.req, r.path, claims.owner);
  await store(s, r.req, caller, bucket, key, claims.upsert ? 'upsert' : 'insert');
  return json({ Key: `${bucket}/${key}` });
}
