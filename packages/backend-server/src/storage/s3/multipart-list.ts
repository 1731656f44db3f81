import { checkBucketName } from '../names';
import { bucketLimits } from '../objects';
import type { S3Call, S3Context } from './auth';
import { S3ERR } from './errors';
import { findUpload, listPartRows, listUploadRows } from './multipart-store';
import { checkNames } from './objects';
import { el, xmlDocument, xmlResponse } from './xml';

function bounded(value: string | null, name: string, max: number): number {
  if (value === null) return max;
  if (!/^\d+$/.test(value)) throw S3ERR.invalidArgument(`Provided ${name} not an integer`);
  return Math.min(Number(value), max);
}

const optional = (name: string, value: string | null | undefined) =>
  value ? el(name, value) : null;

/** ListMultipartUploads: prefix, key-marker, upload-id-marker, max-uploads (no delimiter). */
export async function listMultipartUploads(
  x: S3Context,
  call: S3Call,
  bucket: string,
): Promise<Response> {
  checkBucketName(bucket);
  await bucketLimits(x.s.db, bucket);
  const q = call.url.searchParams;
  const prefix = q.get('prefix') ?? '';
  const keyMarker = q.get('key-marker') ?? '';
  const idMarker = q.get('upload-id-marker') ?? '';
  const limit = bounded(q.get('max-uploads'), 'max-uploads', 1000);
  const rows =
    limit === 0
      ? []
      : await listUploadRows(x.s.db, call.caller, bucket, prefix, keyMarker, idMarker, limit + 1);
  const page = rows.slice(0, limit);
  const truncated = rows.length > limit;
  const last = page[page.length - 1];
  return xmlResponse(
    xmlDocument(
      'ListMultipartUploadsResult',
      el('Bucket', bucket),
      el('KeyMarker', keyMarker),
      el('UploadIdMarker', idMarker),
      optional('NextKeyMarker', truncated ? last?.key : null),
      optional('NextUploadIdMarker', truncated ? last?.id : null),
      el('Prefix', prefix),
      el('MaxUploads', limit),
      el('IsTruncated', truncated),
      page.map((u) =>
        el(
          'Upload',
          el('Key', u.key),
          el('UploadId', u.id),
          el('Initiator', el('ID', u.owner_id ?? ''), el('DisplayName', u.owner_id ?? '')),
          el('Owner', el('ID', u.owner_id ?? ''), el('DisplayName', u.owner_id ?? '')),
          el('StorageClass', 'STANDARD'),
          el('Initiated', u.created_at),
        ),
      ),
    ),
  );
}

/** ListParts: part-number-marker, max-parts. */
export async function listParts(
  x: S3Context,
  call: S3Call,
  bucket: string,
  key: string,
): Promise<Response> {
  checkNames(bucket, key);
  const q = call.url.searchParams;
  const upload = await findUpload(x.s.db, call.caller, bucket, key, q.get('uploadId') ?? '');
  const marker = bounded(q.get('part-number-marker'), 'part-number-marker', 10_000);
  const markerGiven = q.get('part-number-marker') !== null;
  const limit = bounded(q.get('max-parts'), 'max-parts', 1000);
  const rows = await listPartRows(x.s.db, upload.id, markerGiven ? marker : 0, limit + 1);
  const page = rows.slice(0, limit);
  const truncated = rows.length > limit;
  return xmlResponse(
    xmlDocument(
      'ListPartsResult',
      el('Bucket', bucket),
      el('Key', key),
      el('UploadId', upload.id),
      el('PartNumberMarker', markerGiven ? marker : 0),
      optional(
        'NextPartNumberMarker',
        truncated ? String(page[page.length - 1]?.part_number) : null,
      ),
      el('MaxParts', limit),
      el('IsTruncated', truncated),
      el('StorageClass', 'STANDARD'),
      page.map((p) =>
        el(
          'Part',
          el('PartNumber', p.part_number),
          el('LastModified', p.created_at),
          el('ETag', p.etag),
          el('Size', p.size),
        ),
      ),
    ),
  );
}
