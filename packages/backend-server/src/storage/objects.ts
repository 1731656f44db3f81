import { randomUUID } from 'node:crypto';
import {
  asRequest,
  type Database,
  type Queryable,
  readAsRequest,
  type Transaction,
} from '../db/index';
import { type Caller, ownerUuid } from './auth';
import type { ObjectBackend } from './backends/index';
import { ERR } from './errors';

/** A timestamp expression as the hosted JSON has it (`2026-01-02T03:04:05.678Z`). */
export const isoExpr = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A timestamp column in the hosted format, named `as`. */
export const iso = (column: string, as = column) => `${isoExpr(column)} as ${as}`;

/** The limits of a bucket, read as the platform (uploads check them before RLS). */
export interface BucketLimits {
  id: string;
  public: boolean;
  fileSizeLimit: number | null;
  allowedMimeTypes: string[] | null;
}

export async function bucketLimits(db: Queryable, bucket: string): Promise<BucketLimits> {
  const { rows } = await db.query<{
    id: string;
    public: boolean;
    file_size_limit: string | null;
    allowed_mime_types: string[] | null;
  }>(
    `select id, public, file_size_limit, to_jsonb(allowed_mime_types) as allowed_mime_types
       from storage.buckets where id = $1`,
    [bucket],
  );
  const row = rows[0];
  if (!row) throw ERR.noSuchBucket();
  return {
    id: row.id,
    public: row.public,
    fileSizeLimit: row.file_size_limit === null ? null : Number(row.file_size_limit),
    allowedMimeTypes: row.allowed_mime_types,
  };
}

/** The upload limit for a bucket: its own limit, capped by the server's. */
export const sizeLimit = (bucket: BucketLimits, global: number): number =>
  bucket.fileSizeLimit === null ? global : Math.min(bucket.fileSizeLimit, global);

/** A stored object row, as the routes need it. */
export interface ObjectRow {
  id: string;
  name: string;
  bucket_id: string;
  version: string;
  owner_id: string | null;
  metadata: ObjectMetadata | null;
  user_metadata: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
  last_accessed_at: string;
}

/** The system metadata written on upload. */
export interface ObjectMetadata {
  eTag: string;
  size: number;
  mimetype: string;
  cacheControl: string;
  lastModified: string;
  contentLength: number;
  httpStatusCode: number;
}

export const OBJECT_COLUMNS = `id, name, bucket_id, version, owner_id, metadata, user_metadata,
  ${iso('created_at')}, ${iso('updated_at')}, ${iso('last_accessed_at')}`;

const FIND_OBJECT = `select ${OBJECT_COLUMNS} from storage.objects where bucket_id = $1 and name = $2`;

/** One object by bucket and key, as whoever `q` runs as (RLS SELECT), or null. */
export async function findObject(
  q: Queryable,
  bucket: string,
  name: string,
): Promise<ObjectRow | null> {
  const { rows } = await q.query<ObjectRow>(FIND_OBJECT, [bucket, name]);
  return rows[0] ?? null;
}

/**
 * One object as the caller (RLS SELECT decides), or null: the request's role and claims and
 * the statement in one read-only round trip.
 */
export async function findAsCaller(
  db: Database,
  caller: Caller,
  bucket: string,
  name: string,
): Promise<ObjectRow | null> {
  const [result] = await readAsRequest(db, caller.ctx, [
    { text: FIND_OBJECT, params: [bucket, name] },
  ]);
  return (result?.rows[0] as ObjectRow | undefined) ?? null;
}

const FIND_PUBLIC = `select b.public as bucket_public, o.*
  from storage.buckets b
  left join lateral (${FIND_OBJECT.replace('$1', 'b.id')}) o on true
 where b.id = $1`;

/**
 * One object of a public bucket, read as the platform: NoSuchBucket when the bucket is
 * missing or not public, else the row or null (one statement).
 */
export async function findPublicObject(
  db: Database,
  bucket: string,
  name: string,
): Promise<ObjectRow | null> {
  // A read batch: its statements are prepared once per connection.
  const [result] = await db.readBatch([{ text: FIND_PUBLIC, params: [bucket, name] }]);
  if (!result?.ok) throw result?.error;
  const row = result.value.rows[0] as (ObjectRow & { bucket_public: boolean }) | undefined;
  if (!row?.bucket_public) throw ERR.noSuchBucket();
  const { bucket_public: _, ...object } = row;
  return object.id ? (object as ObjectRow) : null;
}

/** How a write treats an existing object. */
export type WriteMode = 'insert' | 'upsert' | 'update';

/** What a commit writes. */
export interface NewObject {
  bucket: string;
  name: string;
  version: string;
  size: number;
  md5: string;
  mimetype: string;
  cacheControl: string;
  userMetadata: Record<string, unknown> | null;
}

export const systemMetadata = (
  o: Pick<NewObject, 'md5' | 'size' | 'mimetype' | 'cacheControl'>,
): ObjectMetadata => ({
  eTag: `"${o.md5}"`,
  size: o.size,
  mimetype: o.mimetype,
  cacheControl: o.cacheControl,
  lastModified: new Date().toISOString(),
  contentLength: o.size,
  httpStatusCode: 200,
});

const INSERT = `insert into storage.objects
    (bucket_id, name, owner, owner_id, metadata, user_metadata, version, id)
  values ($1, $2, $3, $4, $5::text::jsonb, $6::text::jsonb, $7, $8)`;
const UPSERT = `${INSERT} on conflict (bucket_id, name) do update set
    owner = excluded.owner, owner_id = excluded.owner_id, metadata = excluded.metadata,
    user_metadata = excluded.user_metadata, version = excluded.version,
    updated_at = now(), last_accessed_at = now()
  returning id`;
const UPDATE = `update storage.objects set owner = $3, owner_id = $4, metadata = $5::text::jsonb,
    user_metadata = $6::text::jsonb, version = $7, updated_at = now(), last_accessed_at = now()
  where bucket_id = $1 and name = $2 and $8::uuid is not null
  returning id`;

/**
 * Writes the row of a new object version in `tx`, per `mode`; returns the object id.
 * A plain insert needs only the INSERT policy (no RETURNING, the id is ours); upsert and
 * update read the row back, as they need SELECT anyway.
 */
export async function writeRow(
  tx: Transaction,
  owner: string | null,
  o: NewObject,
  mode: WriteMode,
  metadata: ObjectMetadata | null = systemMetadata(o),
): Promise<string> {
  const id = randomUUID();
  const params = [
    o.bucket,
    o.name,
    ownerUuid(owner),
    owner,
    metadata === null ? null : JSON.stringify(metadata),
    o.userMetadata === null ? null : JSON.stringify(o.userMetadata),
    o.version,
    id,
  ];
  if (mode === 'upsert') {
    const { rows } = await tx.query<{ id: string }>(UPSERT, params);
    if (!rows[0]) throw ERR.rlsDenied();
    return rows[0].id;
  }
  if (mode === 'update') {
    const { rows } = await tx.query<{ id: string }>(UPDATE, params);
    if (rows[0]) return rows[0].id;
  }
  await tx.query(INSERT, params);
  return id;
}

class Rollback extends Error {}

/**
 * Checks that `caller` may write `bucket/name` (RLS INSERT; upsert: SELECT + INSERT +
 * UPDATE), without writing anything: the test row is rolled back.
 */
export async function canWrite(
  db: Database,
  caller: Caller,
  bucket: string,
  name: string,
  mode: WriteMode,
): Promise<void> {
  try {
    await asRequest(db, caller.ctx, async (tx) => {
      await writeRow(
        tx,
        caller.owner,
        {
          bucket,
          name,
          version: '',
          size: 0,
          md5: '',
          mimetype: '',
          cacheControl: '',
          userMetadata: null,
        },
        mode,
        null,
      );
      throw new Rollback();
    });
  } catch (error) {
    if (!(error instanceof Rollback)) throw error;
  }
}

/**
 * The one commit path of every write (plain upload, signed upload, tus, copy): the bytes
 * are already fsynced and in place as `o.version`; the row commits as the caller, so RLS
 * decides. If the row does not commit, the bytes are removed. Bytes of replaced versions
 * are removed after the commit.
 */
export async function commitObject(
  db: Database,
  disk: ObjectBackend,
  caller: Caller,
  o: NewObject,
  mode: WriteMode,
): Promise<string> {
  let id: string;
  try {
    id = await asRequest(db, caller.ctx, (tx) => writeRow(tx, caller.owner, o, mode));
  } catch (error) {
    await disk.remove(o.version);
    throw error;
  }
  await collectRetired(db, disk);
  return id;
}

/** Removes the bytes of every version whose row was deleted or replaced (committed). */
export async function collectRetired(db: Database, disk: ObjectBackend): Promise<void> {
  const { rows } = await db.query<{ version: string }>(
    'delete from storage.retired_versions returning version',
  );
  for (const { version } of rows) {
    try {
      await disk.remove(version);
    } catch {
      // Not a version id of ours (a row written by app SQL): nothing on disk.
    }
  }
}
