import { createHash, randomUUID } from 'node:crypto';
import type { StoredObject } from '../backends/index';
import { ERR } from '../errors';
import { checkMime } from '../names';
import { bucketLimits, canWrite, commitObject, sizeLimit } from '../objects';
import type { S3Call, S3Context } from './auth';
import { readSmall, withChecksum } from './body';
import { S3ERR } from './errors';
import {
  claimUpload,
  deleteUpload,
  findUpload,
  insertUpload,
  listPartRows,
  otherPartsSize,
  type PartRow,
  putPartRow,
  releaseUpload,
} from './multipart-store';
import { checkNames, findSource, objectHeaders, receive, writeChunks } from './objects';
import { children, childText, el, parseXml, xmlDocument, xmlResponse } from './xml';

const uploadIdOf = (call: S3Call) => call.url.searchParams.get('uploadId') ?? '';

/** CreateMultipartUpload: RLS (as an upsert) and the bucket's MIME types checked now. */
export async function createMultipartUpload(
  x: S3Context,
  call: S3Call,
  bucket: string,
  key: string,
): Promise<Response> {
  checkNames(bucket, key);
  const limits = await bucketLimits(x.s.db, bucket);
  const meta = objectHeaders(call.req);
  checkMime(meta.mimetype, limits.allowedMimeTypes);
  await canWrite(x.s.db, call.caller, bucket, key, 'upsert');
  const id = randomUUID();
  await insertUpload(x.s.db, {
    id,
    bucket_id: bucket,
    key,
    version: randomUUID(),
    owner_id: call.caller.owner,
    user_metadata: meta.userMetadata,
    metadata: { mimetype: meta.mimetype, cacheControl: meta.cacheControl },
  });
  return xmlResponse(
    xmlDocument(
      'InitiateMultipartUploadResult',
      el('Bucket', bucket),
      el('Key', key),
      el('UploadId', id),
    ),
  );
}

/** A `bytes=a-b` copy range within `size`, or the whole object. */
function copyRange(header: string | null, size: number): { start: number; length: number } {
  if (header === null) return { start: 0, length: size };
  const m = /^bytes=(\d+)-(\d+)$/.exec(header.trim());
  const start = Number(m?.[1]);
  const end = Number(m?.[2]);
  if (!m || start > end || end >= size) throw ERR.invalidRange();
  return { start, length: end - start + 1 };
}

/** The bytes of a part copied from an object (UploadPartCopy) into a temp file. */
async function receiveCopy(x: S3Context, call: S3Call, limit: number) {
  const source = await findSource(x, call, call.req.headers.get('x-amz-copy-source') ?? '');
  const range = copyRange(
    call.req.headers.get('x-amz-copy-source-range'),
    source.metadata?.size ?? 0,
  );
  const handle = await x.s.objects.open(source.version);
  const stream = handle.stream(range.start, range.length);
  try {
    return await writeChunks(x, limit, stream as unknown as AsyncIterable<Uint8Array>);
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}

/** UploadPart and UploadPartCopy: the part's bytes become a file of the store. */
export async function uploadPart(
  x: S3Context,
  call: S3Call,
  bucket: string,
  key: string,
): Promise<Response> {
  checkNames(bucket, key);
  const number = Number(call.url.searchParams.get('partNumber'));
  if (!Number.isInteger(number) || number < 1 || number > 10_000) {
    throw S3ERR.invalidArgument('Part number must be an integer between 1 and 10000, inclusive');
  }
  const { db, objects } = x.s;
  const upload = await findUpload(db, call.caller, bucket, key, uploadIdOf(call));
  const limits = await bucketLimits(db, bucket);
  const limit = sizeLimit(limits, x.s.globalLimit) - (await otherPartsSize(db, upload.id, number));
  if (limit < 0) throw ERR.entityTooLarge();
  const copy = call.req.headers.has('x-amz-copy-source');
  const file = copy ? await receiveCopy(x, call, limit) : await receive(x, call, limit);
  const { version } = file.temp;
  try {
    await file.temp.commit();
  } catch (error) {
    await file.temp.discard();
    throw error;
  }
  const etag = `"${file.md5}"`;
  let replaced: string | null;
  try {
    replaced = await putPartRow(db, upload, { number, size: file.size, etag, version });
  } catch (error) {
    await objects.remove(version);
    throw error;
  }
  if (replaced) await objects.remove(replaced);
  if (!copy) return new Response(null, { headers: withChecksum(call, { etag }) });
  return xmlResponse(
    xmlDocument('CopyPartResult', el('LastModified', new Date().toISOString()), el('ETag', etag)),
  );
}

/** The `<Part>`s of a CompleteMultipartUpload body, checked for order. */
function requestedParts(text: string): { number: number; etag: string }[] {
  const doc = parseXml(text);
  if (doc.name !== 'CompleteMultipartUpload') throw S3ERR.malformedXml();
  const parts = children(doc, 'Part').map((p) => ({
    number: Number(childText(p, 'PartNumber')),
    etag: (childText(p, 'ETag') ?? '').replace(/"/g, ''),
  }));
  if (parts.length === 0 || parts.some((p) => !Number.isInteger(p.number))) {
    throw S3ERR.malformedXml();
  }
  parts.forEach((p, i) => {
    if (i > 0 && p.number <= (parts[i - 1]?.number ?? 0)) throw S3ERR.invalidPartOrder();
  });
  return parts;
}

/**
 * CompleteMultipartUpload: the listed parts are joined into one new file, committed as the
 * caller (RLS decides, as for PutObject); ETag `"<md5 of the parts' md5s>-<count>"`. The
 * upload and all its parts' bytes go afterwards.
 */
export async function completeMultipartUpload(
  x: S3Context,
  call: S3Call,
  bucket: string,
  key: string,
): Promise<Response> {
  checkNames(bucket, key);
  const { db, objects } = x.s;
  const upload = await findUpload(db, call.caller, bucket, key, uploadIdOf(call));
  if (!(await claimUpload(db, upload.id))) throw S3ERR.completing();
  let etag: string;
  try {
    const wanted = requestedParts(await readSmall(call.body));
    const stored = new Map((await listPartRows(db, upload.id)).map((p) => [p.part_number, p]));
    const parts = wanted.map((w) => {
      const part = stored.get(w.number);
      if (!part || part.etag.replace(/"/g, '') !== w.etag) throw S3ERR.invalidPart();
      return part;
    });
    const joined = await joinParts(x, bucket, parts);
    etag = joined.etag;
    await commitObject(
      db,
      objects,
      call.caller,
      {
        bucket,
        name: key,
        version: joined.version,
        size: joined.size,
        md5: etag,
        mimetype: upload.metadata?.mimetype ?? 'application/octet-stream',
        cacheControl: upload.metadata?.cacheControl ?? 'no-cache',
        userMetadata: upload.user_metadata ?? {},
      },
      'upsert',
    );
  } catch (error) {
    await releaseUpload(db, upload.id).catch(() => {});
    throw error;
  }
  for (const v of await deleteUpload(db, upload.id)) await objects.remove(v);
  return xmlResponse(
    xmlDocument(
      'CompleteMultipartUploadResult',
      el('Location', `${call.url.origin}${call.url.pathname}`),
      el('Bucket', bucket),
      el('Key', key),
      el('ETag', `"${etag}"`),
    ),
  );
}

/** The parts' bytes joined into one new version of the store, with S3's multipart ETag. */
async function joinParts(
  x: S3Context,
  bucket: string,
  parts: PartRow[],
): Promise<{ version: string; size: number; etag: string }> {
  const { db, objects } = x.s;
  const limit = sizeLimit(await bucketLimits(db, bucket), x.s.globalLimit);
  const size = parts.reduce((sum, p) => sum + Number(p.size), 0);
  if (size > limit) throw ERR.entityTooLarge();
  const temp = await objects.createWriter(limit);
  const md5s = createHash('md5');
  let handle: StoredObject | null = null;
  try {
    for (const part of parts) {
      md5s.update(Buffer.from(part.etag.replace(/"/g, ''), 'hex'));
      handle = await objects.open(part.version);
      const stream = handle.stream(0, Number(part.size));
      for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
        await temp.write(chunk);
      }
    }
    await temp.finish();
  } catch (error) {
    await handle?.close().catch(() => {});
    await temp.discard();
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw S3ERR.noSuchUpload();
    throw error;
  }
  try {
    await temp.commit();
  } catch (error) {
    await temp.discard();
    throw error;
  }
  return { version: temp.version, size, etag: `${md5s.digest('hex')}-${parts.length}` };
}

/** AbortMultipartUpload: the upload and its parts' bytes go (204). */
export async function abortMultipartUpload(
  x: S3Context,
  call: S3Call,
  bucket: string,
  key: string,
): Promise<Response> {
  checkNames(bucket, key);
  const upload = await findUpload(x.s.db, call.caller, bucket, key, uploadIdOf(call));
  for (const v of await deleteUpload(x.s.db, upload.id)) await x.s.objects.remove(v);
  return new Response(null, { status: 204 });
}
