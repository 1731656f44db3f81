import { ERR } from '../errors';
import { openObject, parseRange } from '../http/download';
import { bucketLimits, findAsCaller, type ObjectRow } from '../objects';
import type { S3Call, S3Context } from './auth';
import { S3ERR } from './errors';
import { checkNames } from './objects';

/** `response-*` query parameters that override a GetObject answer's headers. */
const OVERRIDES = [
  'content-type',
  'content-disposition',
  'cache-control',
  'content-encoding',
  'content-language',
  'expires',
];

/** The headers S3 answers an object with: type, caching, ETag, dates, `x-amz-meta-*`. */
export function objectResponseHeaders(row: ObjectRow): Record<string, string> {
  const meta = row.metadata;
  const headers: Record<string, string> = {
    'content-type': meta?.mimetype ?? 'application/octet-stream',
    'cache-control': meta?.cacheControl ?? 'no-cache',
    etag: meta?.eTag ?? `"${row.version}"`,
    'last-modified': new Date(meta?.lastModified ?? row.updated_at).toUTCString(),
    'accept-ranges': 'bytes',
  };
  let missing = 0;
  for (const [name, value] of Object.entries(row.user_metadata ?? {})) {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    // Header values are ASCII; S3 counts metadata it cannot send in `x-amz-missing-meta`.
    if (/^[\x20-\x7e]*$/.test(text) && /^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)) {
      headers[`x-amz-meta-${name}`] = text;
    } else {
      missing++;
    }
  }
  if (missing > 0) headers['x-amz-missing-meta'] = String(missing);
  return headers;
}

/** 304 / 412 for the conditional headers, else null. */
function preconditions(req: Request, etag: string, lastModified: string): number | null {
  const h = (name: string) => req.headers.get(name);
  const matches = (list: string) =>
    list.split(',').some((t) => {
      const tag = t.trim().replace(/^W\//, '');
      return tag === '*' || tag === etag || `"${tag}"` === etag;
    });
  const modified = Date.parse(lastModified);
  const ifMatch = h('if-match');
  if (ifMatch !== null && !matches(ifMatch)) return 412;
  const ifUnmodified = h('if-unmodified-since');
  if (ifMatch === null && ifUnmodified !== null && modified > Date.parse(ifUnmodified)) return 412;
  const ifNoneMatch = h('if-none-match');
  if (ifNoneMatch !== null) return matches(ifNoneMatch) ? 304 : null;
  const ifModified = h('if-modified-since');
  if (ifModified !== null && modified <= Date.parse(ifModified)) return 304;
  return null;
}

/** GetObject / HeadObject as the caller (RLS SELECT): Range, conditionals, `response-*`. */
export async function getObject(
  x: S3Context,
  call: S3Call,
  bucket: string,
  key: string,
): Promise<Response> {
  checkNames(bucket, key);
  const { s } = x;
  let opened: Awaited<ReturnType<typeof openObject>>;
  try {
    opened = await openObject(s, () => findAsCaller(s.db, call.caller, bucket, key));
  } catch (error) {
    // A missing bucket is NoSuchBucket, not NoSuchKey.
    if ((error as { code?: string }).code === 'NoSuchKey') await bucketLimits(s.db, bucket);
    throw error;
  }
  const { row, file } = opened;
  const headers = objectResponseHeaders(row);
  const size = row.metadata?.size ?? file.size;
  const condition = preconditions(call.req, headers.etag ?? '', headers['last-modified'] ?? '');
  if (condition !== null) {
    await file.close();
    if (condition === 412) throw S3ERR.preconditionFailed();
    return new Response(null, { status: 304, headers });
  }
  const partNumber = call.url.searchParams.get('partNumber');
  const range = parseRange(partNumber === null ? call.req.headers.get('range') : null, size);
  if (range === 'bad') {
    await file.close();
    throw ERR.invalidRange();
  }
  for (const name of OVERRIDES) {
    const value = call.url.searchParams.get(`response-${name}`);
    if (value !== null) headers[name] = value;
  }
  const start = range?.start ?? 0;
  const length = range ? range.end - range.start + 1 : size;
  headers['content-length'] = String(length);
  if (range) headers['content-range'] = `bytes ${range.start}-${range.end}/${size}`;
  const status = range ? 206 : 200;
  if (call.req.method === 'HEAD') {
    await file.close();
    return new Response(null, { status, headers });
  }
  return new Response(file.stream(start, length), { status, headers });
}
