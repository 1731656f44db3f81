import type { Database } from '../../db/index';
import type { Caller } from '../auth';
import { S3ERR } from './errors';

/** A multipart upload as stored. */
export interface UploadRow {
  id: string;
  bucket_id: string;
  key: string;
  version: string;
  owner_id: string | null;
  created_at: string;
  user_metadata: Record<string, unknown> | null;
  metadata: { mimetype: string; cacheControl: string } | null;
}

/** One stored part. */
export interface PartRow {
  part_number: number;
  size: string;
  etag: string;
  version: string;
  created_at: string;
}

const ISO = (c: string) => `to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Records a new upload. */
export async function insertUpload(db: Database, row: Omit<UploadRow, 'created_at'>) {
  await db.query(
    `insert into storage.s3_multipart_uploads
       (id, bucket_id, key, version, owner_id, user_metadata, metadata)
     values ($1, $2, $3, $4, $5, $6::text::jsonb, $7::text::jsonb)`,
    [
      row.id,
      row.bucket_id,
      row.key,
      row.version,
      row.owner_id,
      JSON.stringify(row.user_metadata),
      JSON.stringify(row.metadata),
    ],
  );
}

/**
 * The upload `id` of `bucket/key`, or NoSuchUpload; AccessDenied when it is another user's
 * (the service role sees every upload).
 */
export async function findUpload(
  db: Database,
  caller: Caller,
  bucket: string,
  key: string,
  id: string,
): Promise<UploadRow> {
  const { rows } = await db.query<UploadRow>(
    `select id, bucket_id, key, version, owner_id, ${ISO('created_at')} as created_at,
            user_metadata, metadata
       from storage.s3_multipart_uploads where id = $1 and bucket_id = $2 and key = $3`,
    [id, bucket, key],
  );
  const row = rows[0];
  if (!row) throw S3ERR.noSuchUpload();
  if (caller.role !== 'service_role' && row.owner_id !== caller.owner) throw S3ERR.accessDenied();
  return row;
}

/** The parts of an upload in part order, from `after` on, at most `limit`. */
export async function listPartRows(
  db: Database,
  uploadId: string,
  after = 0,
  limit = 10_001,
): Promise<PartRow[]> {
  const { rows } = await db.query<PartRow>(
    `select part_number, size, etag, version, ${ISO('created_at')} as created_at
       from storage.s3_multipart_uploads_parts
      where upload_id = $1 and part_number > $2 order by part_number limit $3`,
    [uploadId, after, limit],
  );
  return rows;
}

/** Bytes of an upload's parts other than `partNumber`. */
export async function otherPartsSize(db: Database, uploadId: string, partNumber: number) {
  const { rows } = await db.query<{ total: string }>(
    `select coalesce(sum(size), 0) as total from storage.s3_multipart_uploads_parts
      where upload_id = $1 and part_number <> $2`,
    [uploadId, partNumber],
  );
  return Number(rows[0]?.total ?? 0);
}

/**
 * Records a part (replacing one of the same number); returns the version it replaced, whose
 * bytes the caller removes. NoSuchUpload when the upload went away meanwhile.
 */
export async function putPartRow(
  db: Database,
  upload: UploadRow,
  part: { number: number; size: number; etag: string; version: string },
): Promise<string | null> {
  try {
    return await db.transaction(async (tx) => {
      // The upload row's lock orders this against a completion claiming it.
      const claimed = await tx.query<{ completing: boolean }>(
        `select ${FRESH_CLAIM} as completing from storage.s3_multipart_uploads
          where id = $1 for update`,
        [upload.id],
      );
      if (claimed.rows[0]?.completing) throw S3ERR.completing();
      const old = await tx.query<{ version: string }>(
        `select version from storage.s3_multipart_uploads_parts
          where upload_id = $1 and part_number = $2 for update`,
        [upload.id, part.number],
      );
      await tx.query(
        `insert into storage.s3_multipart_uploads_parts
           (upload_id, part_number, size, etag, version, bucket_id, key, owner_id)
         values ($1, $2, $3, $4, $5, $6, $7, $8)
         on conflict (upload_id, part_number) do update set size = excluded.size,
           etag = excluded.etag, version = excluded.version, created_at = now()`,
        [
          upload.id,
          part.number,
          part.size,
          part.etag,
          part.version,
          upload.bucket_id,
          upload.key,
          upload.owner_id,
        ],
      );
      await tx.query(
        `update storage.s3_multipart_uploads set in_progress_size =
           (select coalesce(sum(size), 0) from storage.s3_multipart_uploads_parts where upload_id = $1)
         where id = $1`,
        [upload.id],
      );
      return old.rows[0]?.version ?? null;
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23503') throw S3ERR.noSuchUpload();
    throw error;
  }
}

/** A completion's claim on an upload, unless a fresher one holds it (15 minutes). */
const FRESH_CLAIM = `coalesce(completing_at > now() - interval '15 minutes', false)`;

/**
 * Claims an upload for one CompleteMultipartUpload: false when another completion holds it.
 * Parts are refused while it is held ({@link putPartRow}); {@link releaseUpload} lets go after
 * a completion that failed.
 */
export async function claimUpload(db: Database, uploadId: string): Promise<boolean> {
  const { rows } = await db.query(
    `update storage.s3_multipart_uploads set completing_at = now()
      where id = $1 and not ${FRESH_CLAIM} returning id`,
    [uploadId],
  );
  return rows.length > 0;
}

export async function releaseUpload(db: Database, uploadId: string): Promise<void> {
  await db.query('update storage.s3_multipart_uploads set completing_at = null where id = $1', [
    uploadId,
  ]);
}

/** Deletes an upload and its parts; returns the part versions whose bytes are to go. */
export async function deleteUpload(db: Database, uploadId: string): Promise<string[]> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ version: string }>(
      'delete from storage.s3_multipart_uploads_parts where upload_id = $1 returning version',
      [uploadId],
    );
    await tx.query('delete from storage.s3_multipart_uploads where id = $1', [uploadId]);
    return rows.map((r) => r.version);
  });
}

/** Uploads of a bucket under `prefix`, after the markers, as `caller` may see them. */
export async function listUploadRows(
  db: Database,
  caller: Caller,
  bucket: string,
  prefix: string,
  keyMarker: string,
  idMarker: string,
  limit: number,
): Promise<UploadRow[]> {
  const { rows } = await db.query<UploadRow>(
    `select id, bucket_id, key, version, owner_id, ${ISO('created_at')} as created_at,
            user_metadata, metadata
       from storage.s3_multipart_uploads
      where bucket_id = $1 and starts_with(key, $2)
        and (key > $3 or (key = $3 and $4 <> '' and id > $4))
        and ($5::boolean or owner_id is not distinct from $6)
      order by key, id limit $7`,
    [bucket, prefix, keyMarker, idMarker, caller.role === 'service_role', caller.owner, limit],
  );
  return rows;
}
