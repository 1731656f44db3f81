import type { Caller } from '../auth';
import type { StoredObject } from '../backends/index';
import { callerOf, json, type StorageContext, type StorageRequest } from '../context';
import { ERR } from '../errors';
import { checkBucketName, checkKey } from '../names';
import {
  bucketLimits,
  findAsCaller,
  findObject,
  findPublicObject,
  type ObjectRow,
} from '../objects';
import { verifyDownload } from './tokens';

/** How a download finds its row: as the caller (RLS), or as the platform. */
export type Lookup = () => Promise<ObjectRow | null>;

/** The row and its bytes, opened (a version gone meanwhile is looked up again). */
export async function openObject(
  s: StorageContext,
  lookup: Lookup,
): Promise<{ row: ObjectRow; file: StoredObject }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const row = await lookup();
    if (!row?.version) throw ERR.noSuchKey();
    try {
      return { row, file: await s.objects.open(row.version) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw ERR.noSuchKey();
}

/** A single `bytes=` range of a `size`-byte object, null when there is none, 'bad' when unsatisfiable. */
export function parseRange(
  header: string | null,
  size: number,
): { start: number; end: number } | null | 'bad' {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return 'bad';
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'bad';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) return 'bad';
  return { start, end };
}

/** `Content-Disposition` for `?download=<name>` (an empty name: a bare `attachment;`). */
export function contentDisposition(download: string): string {
  if (download === '') return 'attachment;';
  const name = encodeURIComponent(download);
  return `attachment; filename=${name}; filename*=UTF-8''${name}`;
}

/** Serves an object: conditional GET (304), Range (206/416), download disposition, HEAD. */
async function serve(
  s: StorageContext,
  r: StorageRequest,
  lookup: Lookup,
  extra: Record<string, string> = {},
): Promise<Response> {
  const { row, file } = await openObject(s, lookup);
  const meta = row.metadata;
  const size = meta?.size ?? file.size;
  const etag = meta?.eTag ?? `"${row.version}"`;
  const lastModified = new Date(meta?.lastModified ?? row.updated_at).toUTCString();
  const headers: Record<string, string> = {
    'content-type': meta?.mimetype ?? 'application/octet-stream',
    'cache-control': meta?.cacheControl ?? 'no-cache',
    etag,
    'last-modified': lastModified,
    'accept-ranges': 'bytes',
    'x-robots-tag': 'none',
    ...extra,
  };
  const download = r.query.get('download');
  if (download !== null) headers['content-disposition'] = contentDisposition(download);
  const ifNoneMatch = r.req.headers.get('if-none-match');
  const ifModifiedSince = r.req.headers.get('if-modified-since');
  const notModified = ifNoneMatch
    ? ifNoneMatch.split(',').some((t) => {
        const tag = t.trim().replace(/^W\//, '');
        return tag === '*' || tag === etag;
      })
    : ifModifiedSince !== null && Date.parse(lastModified) <= Date.parse(ifModifiedSince);
  if (notModified) {
    await file.close();
    return new Response(null, { status: 304, headers });
  }
  const range = parseRange(r.req.headers.get('range'), size);
  if (range === 'bad') {
    await file.close();
    const err = ERR.invalidRange();
    return json(err.toJSON(), err.http, { 'content-range': `bytes */${size}` });
  }
  const start = range?.start ?? 0;
  const length = range ? range.end - range.start + 1 : size;
  headers['content-length'] = String(length);
  if (range) headers['content-range'] = `bytes ${range.start}-${range.end}/${size}`;
  const status = range ? 206 : 200;
  if (r.req.method === 'HEAD') {
    await file.close();
    return new Response(null, { status, headers });
  }
  return new Response(file.stream(start, length), { status, headers });
}

function names(bucket: string, key: string) {
  checkBucketName(bucket);
  checkKey(key);
}

/** The lookup of `bucket/key` as the request's caller: RLS SELECT decides. */
export async function callerLookup(
  s: StorageContext,
  r: StorageRequest,
  bucket: string,
  key: string,
): Promise<Lookup> {
  names(bucket, key);
  const caller = await callerOf(s, r);
  return () => findAsCaller(s.db, caller, bucket, key);
}

/** GET/HEAD /object[/authenticated]/:bucket/:key — as the caller (RLS SELECT). */
export async function downloadAuthenticated(
  s: StorageContext,
  r: StorageRequest,
  bucket: string,
  key: string,
) {
  return serve(s, r, await callerLookup(s, r, bucket, key));
}

/** The lookup of `bucket/key` in a public bucket (no caller; NoSuchBucket when not public). */
export function publicLookup(bucket: string, key: string, s: StorageContext): Lookup {
  names(bucket, key);
  return () => findPublic(s, bucket, key);
}

const findPublic = (s: StorageContext, bucket: string, key: string) =>
  findPublicObject(s.db, bucket, key);

/** GET/HEAD /object/public/:bucket/:key — no auth; the bucket must be public. */
export async function downloadPublic(
  s: StorageContext,
  r: StorageRequest,
  bucket: string,
  key: string,
) {
  return serve(s, r, publicLookup(bucket, key, s));
}

/** A signed URL's token checked for `bucket/key`: the lookup, expiry and signed claims. */
export async function signedLookup(
  s: StorageContext,
  r: StorageRequest,
  bucket: string,
  key: string,
) {
  names(bucket, key);
  const token = r.query.get('token');
  if (!token) throw ERR.invalidRequest("querystring must have required property 'token'");
  const claims = await verifyDownload(token, s.secret, `${bucket}/${key}`);
  const lookup: Lookup = () => findObject(s.db, bucket, key);
  return { lookup, expires: new Date(claims.exp * 1000).toUTCString(), claims };
}

/** GET/HEAD /object/sign/:bucket/:key?token= — the token authorises. */
export async function downloadSigned(
  s: StorageContext,
  r: StorageRequest,
  bucket: string,
  key: string,
) {
  const { lookup, expires } = await signedLookup(s, r, bucket, key);
  return serve(s, r, lookup, { expires });
}

/**
 * GET /object/info/{authenticated|public}/:bucket/:key, and /object/info/:bucket/:key
 * (`any`: a missing or bad token reads as anon there), as the hosted service: objects of a
 * public bucket are read as the platform, others as the caller (RLS); without a valid token
 * only public buckets answer.
 */
export async function objectInfo(
  s: StorageContext,
  r: StorageRequest,
  access: 'authenticated' | 'public' | 'any',
  bucket: string,
  key: string,
): Promise<Response> {
  names(bucket, key);
  const limits = await bucketLimits(s.db, bucket);
  let caller: Caller | null = null;
  if (access === 'authenticated') caller = await callerOf(s, r);
  else if (access === 'any') caller = await callerOf(s, r).catch(() => null);
  if (!caller && !limits.public) throw ERR.noSuchBucket();
  const row =
    limits.public || !caller
      ? await findObject(s.db, bucket, key)
      : await findAsCaller(s.db, caller, bucket, key);
  if (!row) throw ERR.noSuchKey();
  const meta = row.metadata;
  return json({
    id: row.id,
    name: row.name,
    version: row.version,
    bucket_id: row.bucket_id,
    size: meta?.size ?? null,
    content_type: meta?.mimetype ?? null,
    cache_control: meta?.cacheControl ?? null,
    etag: meta?.eTag ?? null,
    metadata: row.user_metadata,
    last_modified: row.updated_at,
    created_at: row.created_at,
  });
}
