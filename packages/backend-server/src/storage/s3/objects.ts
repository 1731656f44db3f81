import { randomUUID } from 'node:crypto';
import { asRequest } from '../../db/index';
import { type ObjectWriter, SizeLimitExceeded } from '../backends/index';
import { ERR } from '../errors';
import { cacheControlFrom, checkBucketName, checkKey, checkMime } from '../names';
import {
  bucketLimits,
  canWrite,
  collectRetired,
  commitObject,
  findAsCaller,
  type ObjectRow,
  sizeLimit,
} from '../objects';
import type { S3Call, S3Context } from './auth';
import { readSmall, withChecksum } from './body';
import { S3ERR } from './errors';
import { children, childText, el, parseXml, xmlDocument, xmlResponse } from './xml';

/** Names checked as the storage API checks them. */
export function checkNames(bucket: string, key: string): void {
  checkBucketName(bucket);
  checkKey(key);
}

/** What a write request says about its object: type, caching, `x-amz-meta-*`. */
export function objectHeaders(req: Request) {
  const userMetadata: Record<string, string> = {};
  req.headers.forEach((value, name) => {
    if (name.startsWith('x-amz-meta-')) userMetadata[name.slice(11)] = value;
  });
  return {
    mimetype: req.headers.get('content-type') || 'application/octet-stream',
    cacheControl: cacheControlFrom(req.headers.get('cache-control')),
    userMetadata,
  };
}

/**
 * Streams a request's payload into a temp file of the store, within `limit` bytes; checks
 * `Content-MD5` when sent. The file is fsynced, not yet in place.
 */
export async function receive(
  x: S3Context,
  call: S3Call,
  limit: number,
): Promise<{ temp: ObjectWriter; size: number; md5: string }> {
  if (call.body.length !== null && call.body.length > limit) throw ERR.entityTooLarge();
  const md5 = call.req.headers.get('content-md5');
  return writeChunks(x, limit, call.body.chunks, (done) => {
    if (md5 && Buffer.from(done.md5, 'hex').toString('base64') !== md5) throw S3ERR.badDigest();
  });
}

/**
 * Writes `chunks` as a new version of the store within `limit` bytes, checked by `check`
 * once finished; discarded on any failure (past the limit: EntityTooLarge).
 */
export async function writeChunks(
  x: S3Context,
  limit: number,
  chunks: AsyncIterable<Uint8Array>,
  check: (done: { size: number; md5: string }) => void = () => {},
): Promise<{ temp: ObjectWriter; size: number; md5: string }> {
  const temp = await x.s.objects.createWriter(limit);
  try {
    for await (const chunk of chunks) await temp.write(chunk);
    const done = await temp.finish();
    check(done);
    return { temp, ...done };
  } catch (error) {
    await temp.discard();
    if (error instanceof SizeLimitExceeded) throw ERR.entityTooLarge();
    throw error;
  }
}

/** PutObject: the same checks and commit as a REST upload with `x-upsert: true`. */
export async function putObject(
  x: S3Context,
  call: S3Call,
  bucket: string,
  key: string,
): Promise<Response> {
  checkNames(bucket, key);
  const { s } = x;
  const limits = await bucketLimits(s.db, bucket);
  const meta = objectHeaders(call.req);
  checkMime(meta.mimetype, limits.allowedMimeTypes);
  await canWrite(s.db, call.caller, bucket, key, 'upsert');
  const file = await receive(x, call, sizeLimit(limits, s.globalLimit));
  const { version } = file.temp;
  try {
    await file.temp.commit();
  } catch (error) {
    await file.temp.discard();
    throw error;
  }
  const o = { bucket, name: key, version, size: file.size, md5: file.md5, ...meta };
  await commitObject(s.db, s.objects, call.caller, o, 'upsert');
  const headers = withChecksum(call, { etag: `"${file.md5}"` });
  return new Response(null, { status: 200, headers });
}

/** `x-amz-copy-source` as bucket and key (`/bucket/key`, `bucket/key?versionId=…`). */
export function copySource(header: string): { bucket: string; key: string } {
  let text: string;
  try {
    text = decodeURIComponent(header.replace(/\?versionId=.*$/, ''));
  } catch {
    throw S3ERR.invalidArgument('Invalid copy source encoding');
  }
  text = text.replace(/^\//, '');
  const at = text.indexOf('/');
  if (at <= 0 || at === text.length - 1) {
    throw S3ERR.invalidArgument(
      'Copy Source must mention the source bucket and key: sourcebucket/sourcekey',
    );
  }
  const source = { bucket: text.slice(0, at), key: text.slice(at + 1) };
  checkNames(source.bucket, source.key);
  return source;
}

/** The source object of a copy, as the caller (RLS SELECT), or NoSuchKey. */
export async function findSource(x: S3Context, call: S3Call, header: string): Promise<ObjectRow> {
  const source = copySource(header);
  const row = await findAsCaller(x.s.db, call.caller, source.bucket, source.key);
  if (!row?.version) {
    await bucketLimits(x.s.db, source.bucket);
    throw ERR.noSuchKey();
  }
  return row;
}

/** CopyObject: new bytes and row at the destination (x-amz-metadata-directive COPY|REPLACE). */
export async function copyObject(
  x: S3Context,
  call: S3Call,
  bucket: string,
  key: string,
): Promise<Response> {
  checkNames(bucket, key);
  const { s } = x;
  const source = await findSource(x, call, call.req.headers.get('x-amz-copy-source') ?? '');
  const replace = call.req.headers.get('x-amz-metadata-directive')?.toUpperCase() === 'REPLACE';
  if (!replace && source.bucket_id === bucket && source.name === key) {
    throw S3ERR.invalidRequest(
      "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
    );
  }
  const limits = await bucketLimits(s.db, bucket);
  const size = source.metadata?.size ?? 0;
  if (size > sizeLimit(limits, s.globalLimit)) throw ERR.entityTooLarge();
  const meta = replace
    ? objectHeaders(call.req)
    : {
        mimetype: source.metadata?.mimetype ?? 'application/octet-stream',
        cacheControl: source.metadata?.cacheControl ?? 'no-cache',
        userMetadata: source.user_metadata ?? {},
      };
  checkMime(meta.mimetype, limits.allowedMimeTypes);
  await canWrite(s.db, call.caller, bucket, key, 'upsert');
  const version = randomUUID();
  try {
    await s.objects.copy(source.version, version);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw ERR.noSuchKey();
    throw error;
  }
  const md5 = (source.metadata?.eTag ?? '').replace(/"/g, '');
  await commitObject(
    s.db,
    s.objects,
    call.caller,
    { bucket, name: key, version, size, md5, ...meta },
    'upsert',
  );
  return xmlResponse(
    xmlDocument(
      'CopyObjectResult',
      el('LastModified', new Date().toISOString()),
      el('ETag', `"${md5}"`),
    ),
  );
}

/** Deletes keys of a bucket as the caller (RLS SELECT + DELETE); returns the names deleted. */
async function deleteKeys(x: S3Context, call: S3Call, bucket: string, keys: string[]) {
  await bucketLimits(x.s.db, bucket);
  const rows = await asRequest(x.s.db, call.caller.ctx, async (tx) => {
    const { rows } = await tx.query<{ name: string }>(
      `delete from storage.objects
        where bucket_id = $1 and name in (select jsonb_array_elements_text($2::text::jsonb))
        returning name`,
      [bucket, JSON.stringify(keys)],
    );
    return rows;
  });
  await collectRetired(x.s.db, x.s.objects);
  return rows.map((r) => r.name);
}

/** DeleteObject: 204 whether or not the key existed (as S3). */
export async function deleteObject(
  x: S3Context,
  call: S3Call,
  bucket: string,
  key: string,
): Promise<Response> {
  checkNames(bucket, key);
  await deleteKeys(x, call, bucket, [key]);
  return new Response(null, { status: 204 });
}

/** DeleteObjects: `<Delete><Quiet/><Object><Key/></Object>…</Delete>`, at most 1000 keys. */
export async function deleteObjects(x: S3Context, call: S3Call, bucket: string): Promise<Response> {
  checkBucketName(bucket);
  const doc = parseXml(await readSmall(call.body));
  const objects = doc.name === 'Delete' ? children(doc, 'Object') : [];
  const keys = objects.map((o) => children(o, 'Key')[0]?.text ?? '');
  if (objects.length === 0 || objects.length > 1000 || keys.some((k) => k === '')) {
    throw S3ERR.malformedXml();
  }
  const quiet = childText(doc, 'Quiet') === 'true';
  const valid = keys.filter((k) => {
    try {
      checkKey(k);
      return true;
    } catch {
      return false;
    }
  });
  await deleteKeys(x, call, bucket, valid);
  const entries = keys.map((k) =>
    valid.includes(k)
      ? quiet
        ? null
        : el('Deleted', el('Key', k))
      : el('Error', el('Key', k), el('Code', 'InvalidKey'), el('Message', `Invalid key: ${k}`)),
  );
  return xmlResponse(xmlDocument('DeleteResult', entries));
}
