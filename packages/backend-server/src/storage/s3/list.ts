import { asRequest } from '../../db/index';
import { checkBucketName } from '../names';
import { bucketLimits, type ObjectMetadata } from '../objects';
import type { S3Call, S3Context } from './auth';
import { S3ERR } from './errors';
import { uriEncode } from './sigv4';
import { el, type XmlChild, xmlDocument, xmlResponse } from './xml';

const likeEscape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * One page of keys under `prefix` after `after` (bytewise), as the caller sees them (RLS
 * SELECT). With a delimiter, keys with it past the prefix roll up into one common prefix
 * (`prefix…delimiter`), which sorts and pages where its keys would.
 */
const PAGE = `
select key, is_prefix, metadata,
       to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at
  from (
    select distinct on (key) key, is_prefix, metadata, updated_at
      from (
        select case when $3 <> '' and strpos(substr(name, length($2) + 1), $3) > 0
                    then substr(name, 1, length($2) + strpos(substr(name, length($2) + 1), $3) + length($3) - 1)
                    else name end collate "C" as key,
               ($3 <> '' and strpos(substr(name, length($2) + 1), $3) > 0) as is_prefix,
               metadata, updated_at
          from storage.objects
         where bucket_id = $1 and name like $4 escape '\\' and name collate "C" > $5
      ) keyed
     where key > $5
     order by key, is_prefix
  ) page
 order by key
 limit $6`;

interface Entry {
  key: string;
  is_prefix: boolean;
  metadata: ObjectMetadata | null;
  updated_at: string;
}

interface Page {
  entries: Entry[];
  truncated: boolean;
}

function maxKeys(value: string | null): number {
  if (value === null) return 1000;
  if (!/^\d+$/.test(value))
    throw S3ERR.invalidArgument('Provided max-keys not an integer or within integer range');
  return Math.min(Number(value), 1000);
}

async function page(
  x: S3Context,
  call: S3Call,
  bucket: string,
  prefix: string,
  delimiter: string,
  after: string,
  limit: number,
): Promise<Page> {
  checkBucketName(bucket);
  await bucketLimits(x.s.db, bucket);
  if (limit === 0) return { entries: [], truncated: false };
  const rows = await asRequest(
    x.s.db,
    call.caller.ctx,
    async (tx) =>
      (
        await tx.query<Entry>(PAGE, [
          bucket,
          prefix,
          delimiter,
          `${likeEscape(prefix)}%`,
          after,
          limit + 1,
        ])
      ).rows,
    { readOnly: true },
  );
  return { entries: rows.slice(0, limit), truncated: rows.length > limit };
}

function entriesXml(entries: Entry[], encode: (s: string) => string): XmlChild[] {
  const contents = entries
    .filter((e) => !e.is_prefix)
    .map((e) =>
      el(
        'Contents',
        el('Key', encode(e.key)),
        el('LastModified', e.metadata?.lastModified ?? e.updated_at),
        el('ETag', e.metadata?.eTag ?? ''),
        el('Size', e.metadata?.size ?? 0),
        el('StorageClass', 'STANDARD'),
      ),
    );
  const prefixes = entries
    .filter((e) => e.is_prefix)
    .map((e) => el('CommonPrefixes', el('Prefix', encode(e.key))));
  return [contents, prefixes];
}

function params(call: S3Call) {
  const q = call.url.searchParams;
  const encodingType = q.get('encoding-type');
  if (encodingType !== null && encodingType !== 'url') {
    throw S3ERR.invalidArgument('Invalid Encoding Method specified in Request');
  }
  const encode =
    encodingType === 'url' ? (s: string) => uriEncode(s).replace(/%2F/g, '/') : (s: string) => s;
  return {
    prefix: q.get('prefix') ?? '',
    delimiter: q.get('delimiter') ?? '',
    limit: maxKeys(q.get('max-keys')),
    encodingType,
    encode,
    q,
  };
}

const optional = (name: string, value: string | null | undefined) =>
  value ? el(name, value) : null;

/** ListObjectsV2: prefix, delimiter, max-keys, continuation-token, start-after. */
export async function listObjectsV2(x: S3Context, call: S3Call, bucket: string): Promise<Response> {
  const p = params(call);
  const token = p.q.get('continuation-token');
  const startAfter = p.q.get('start-after') ?? '';
  let after = startAfter;
  if (token !== null) {
    after = Buffer.from(token, 'base64url').toString('utf8');
    if (token === '' || Buffer.from(after).toString('base64url') !== token) {
      throw S3ERR.invalidArgument('The continuation token provided is incorrect');
    }
  }
  const { entries, truncated } = await page(x, call, bucket, p.prefix, p.delimiter, after, p.limit);
  const last = entries[entries.length - 1]?.key;
  return xmlResponse(
    xmlDocument(
      'ListBucketResult',
      el('Name', bucket),
      el('Prefix', p.encode(p.prefix)),
      optional('Delimiter', p.delimiter && p.encode(p.delimiter)),
      el('MaxKeys', p.limit),
      el('KeyCount', entries.length),
      el('IsTruncated', truncated),
      optional('ContinuationToken', token),
      optional(
        'NextContinuationToken',
        truncated && last ? Buffer.from(last).toString('base64url') : null,
      ),
      optional('StartAfter', startAfter && p.encode(startAfter)),
      optional('EncodingType', p.encodingType),
      entriesXml(entries, p.encode),
    ),
  );
}

/** ListObjects (v1): prefix, delimiter, max-keys, marker. */
export async function listObjectsV1(x: S3Context, call: S3Call, bucket: string): Promise<Response> {
  const p = params(call);
  const marker = p.q.get('marker') ?? '';
  const { entries, truncated } = await page(
    x,
    call,
    bucket,
    p.prefix,
    p.delimiter,
    marker,
    p.limit,
  );
  const last = entries[entries.length - 1]?.key;
  return xmlResponse(
    xmlDocument(
      'ListBucketResult',
      el('Name', bucket),
      el('Prefix', p.encode(p.prefix)),
      el('Marker', p.encode(marker)),
      optional('Delimiter', p.delimiter && p.encode(p.delimiter)),
      el('MaxKeys', p.limit),
      el('IsTruncated', truncated),
      optional('NextMarker', truncated && last ? p.encode(last) : null),
      optional('EncodingType', p.encodingType),
      entriesXml(entries, p.encode),
    ),
  );
}
