import { asRequest } from '../../db/index';
import { ownerUuid } from '../auth';
import { ERR } from '../errors';
import { checkBucketName } from '../names';
import type { S3Call, S3Context } from './auth';
import { readSmall } from './body';
import { S3ERR } from './errors';
import { el, parseXml, xmlDocument, xmlResponse } from './xml';

/** ListBuckets: the buckets the caller may see (RLS SELECT). */
export async function listBuckets(x: S3Context, call: S3Call): Promise<Response> {
  const rows = await asRequest(
    x.s.db,
    call.caller.ctx,
    async (tx) =>
      (
        await tx.query<{ id: string; created_at: string }>(
          `select id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at
             from storage.buckets order by id collate "C"`,
        )
      ).rows,
    { readOnly: true },
  );
  return xmlResponse(
    xmlDocument(
      'ListAllMyBucketsResult',
      el('Owner', el('ID', call.caller.owner ?? ''), el('DisplayName', call.caller.owner ?? '')),
      el(
        'Buckets',
        rows.map((r) => el('Bucket', el('Name', r.id), el('CreationDate', r.created_at))),
      ),
    ),
  );
}

/** Whether the caller sees the bucket (RLS SELECT); NoSuchBucket when not. */
async function seeBucket(x: S3Context, call: S3Call, bucket: string): Promise<void> {
  checkBucketName(bucket);
  const found = await asRequest(
    x.s.db,
    call.caller.ctx,
    async (tx) =>
      (await tx.query('select 1 from storage.buckets where id = $1', [bucket])).rows.length,
    { readOnly: true },
  );
  if (found === 0) throw ERR.noSuchBucket();
}

/** HeadBucket: 200 with the region, 404 when the caller does not see it. */
export async function headBucket(x: S3Context, call: S3Call, bucket: string): Promise<Response> {
  await seeBucket(x, call, bucket);
  return new Response(null, { headers: { 'x-amz-bucket-region': x.settings.region } });
}

/** GetBucketLocation: the configured region. */
export async function bucketLocation(
  x: S3Context,
  call: S3Call,
  bucket: string,
): Promise<Response> {
  await seeBucket(x, call, bucket);
  return xmlResponse(xmlDocument('LocationConstraint', x.settings.region));
}

/** GetBucketVersioning: never enabled (an empty configuration, as S3 for such buckets). */
export async function bucketVersioning(
  x: S3Context,
  call: S3Call,
  bucket: string,
): Promise<Response> {
  await seeBucket(x, call, bucket);
  return xmlResponse(xmlDocument('VersioningConfiguration'));
}

/** CreateBucket (RLS INSERT); `x-amz-acl: public-read` makes it public. */
export async function createBucket(x: S3Context, call: S3Call, bucket: string): Promise<Response> {
  checkBucketName(bucket);
  const text = await readSmall(call.body);
  if (text.trim() !== '') {
    const doc = parseXml(text);
    if (doc.name !== 'CreateBucketConfiguration') throw S3ERR.malformedXml();
  }
  const acl = call.req.headers.get('x-amz-acl');
  const owner = call.caller.owner;
  await asRequest(x.s.db, call.caller.ctx, (tx) =>
    tx.query(
      `insert into storage.buckets (id, name, owner, owner_id, public) values ($1, $1, $2, $3, $4)`,
      [bucket, ownerUuid(owner), owner, acl === 'public-read' || acl === 'public-read-write'],
    ),
  ).catch(async (error: unknown) => {
    if ((error as { code?: string }).code !== '23505') throw error;
    const { rows } = await x.s.db.query<{ owner_id: string | null }>(
      'select owner_id from storage.buckets where id = $1',
      [bucket],
    );
    const mine = call.caller.role === 'service_role' || rows[0]?.owner_id === owner;
    throw mine ? S3ERR.bucketOwnedByYou() : S3ERR.bucketExists();
  });
  return new Response(null, { headers: { location: `/${bucket}` } });
}

/** DeleteBucket: BucketNotEmpty while it has objects or multipart uploads (RLS SELECT + DELETE). */
export async function deleteBucket(x: S3Context, call: S3Call, bucket: string): Promise<Response> {
  checkBucketName(bucket);
  const { rows } = await x.s.db.query(
    `select 1 from storage.objects where bucket_id = $1
     union all select 1 from storage.s3_multipart_uploads where bucket_id = $1 limit 1`,
    [bucket],
  );
  const deleted = await asRequest(x.s.db, call.caller.ctx, async (tx) => {
    const seen = await tx.query('select 1 from storage.buckets where id = $1', [bucket]);
    if (seen.rows.length === 0) throw ERR.noSuchBucket();
    if (rows.length > 0) throw ERR.bucketNotEmpty();
    return (await tx.query('delete from storage.buckets where id = $1 returning id', [bucket])).rows
      .length;
  }).catch((error: unknown) => {
    if ((error as { code?: string }).code === '23503') throw ERR.bucketNotEmpty();
    throw error;
  });
  if (deleted === 0) throw ERR.accessDenied();
  return new Response(null, { status: 204 });
}
