import { randomUUID } from 'node:crypto';
import { asRequest } from '../../db/index';
import {
  callerOf,
  json,
  optionalInt,
  readJson,
  requireString,
  type StorageContext,
  type StorageRequest,
} from '../context';
import { ERR } from '../errors';
import { checkBucketName, checkKey } from '../names';
import {
  bucketLimits,
  collectRetired,
  commitObject,
  findAsCaller,
  OBJECT_COLUMNS,
  sizeLimit,
} from '../objects';
import { hasTransform, parseTransform, signTransform } from '../render/transform';
import { signDownload } from './tokens';

/** DELETE /object/:bucket/:key → `{message}`; NoSuchKey when the caller sees nothing to delete. */
export async function deleteObject(
  s: StorageContext,
  r: StorageRequest,
  bucket: string,
  key: string,
) {
  checkBucketName(bucket);
  checkKey(key);
  const caller = await callerOf(s, r);
  const deleted = await asRequest(
    s.db,
    caller.ctx,
    async (tx) =>
      (
        await tx.query(
          'delete from storage.objects where bucket_id = $1 and name = $2 returning id',
          [bucket, key],
        )
      ).rows.length,
  );
  if (deleted === 0) throw ERR.noSuchKey();
  await collectRetired(s.db, s.objects);
  return json({ message: 'Successfully deleted' });
}

/** DELETE /object/:bucket `{prefixes}` → the rows actually deleted (missing ones skipped). */
export async function deleteObjects(s: StorageContext, r: StorageRequest, bucket: string) {
  const caller = await callerOf(s, r);
  const body = await readJson(r.req);
  const prefixes = body.prefixes;
  if (!Array.isArray(prefixes) || prefixes.some((p) => typeof p !== 'string')) {
    throw ERR.invalidRequest("body must have required property 'prefixes'");
  }
  if (prefixes.length < 1 || prefixes.length > 1000) {
    throw ERR.invalidRequest('body/prefixes must have between 1 and 1000 items');
  }
  const rows = await asRequest(
    s.db,
    caller.ctx,
    async (tx) =>
      (
        await tx.query(
          `delete from storage.objects
          where bucket_id = $1 and name in (select jsonb_array_elements_text($2::text::jsonb))
          returning ${OBJECT_COLUMNS}, owner`,
          [bucket, JSON.stringify(prefixes)],
        )
      ).rows,
  );
  await collectRetired(s.db, s.objects);
  return json(rows);
}

function moveBody(body: Record<string, unknown>) {
  const bucket = checkBucketName(requireString(body, 'bucketId'));
  const source = checkKey(requireString(body, 'sourceKey'));
  const destination = checkKey(requireString(body, 'destinationKey'));
  const target =
    typeof body.destinationBucket === 'string' && body.destinationBucket !== ''
      ? checkBucketName(body.destinationBucket)
      : bucket;
  return { bucket, source, destination, target };
}

/** POST /object/move — renames the row (RLS SELECT + UPDATE); the bytes stay where they are. */
export async function moveObject(s: StorageContext, r: StorageRequest): Promise<Response> {
  const caller = await callerOf(s, r);
  const m = moveBody(await readJson(r.req));
  if (m.target !== m.bucket) await bucketLimits(s.db, m.target);
  const moved = await asRequest(s.db, caller.ctx, async (tx) => {
    const { rows } = await tx.query<{ id: string; version: string | null }>(
      `update storage.objects set bucket_id = $3, name = $4, updated_at = now()
        where bucket_id = $1 and name = $2 returning id, version`,
      [m.bucket, m.source, m.target, m.destination],
    );
    return rows[0];
  });
  if (!moved) throw ERR.noSuchKey();
  // Rendered variants are keyed by version, which a move keeps: drop them all the same.
  if (moved.version) await s.render?.cache.dropVersion(moved.version);
  return json({ message: 'Successfully moved', Id: moved.id, Key: m.destination });
}

/** POST /object/copy — new bytes and row at the destination (RLS SELECT + INSERT). */
export async function copyObject(s: StorageContext, r: StorageRequest): Promise<Response> {
  const caller = await callerOf(s, r);
  const body = await readJson(r.req);
  const m = moveBody(body);
  const upsert = r.req.headers.get('x-upsert') === 'true';
  const source = await findAsCaller(s.db, caller, m.bucket, m.source);
  if (!source?.version) throw ERR.noSuchKey();
  const limits = await bucketLimits(s.db, m.target);
  const meta = source.metadata;
  const size = meta?.size ?? 0;
  if (size > sizeLimit(limits, s.globalLimit)) throw ERR.entityTooLarge();
  let userMetadata = body.copyMetadata === false ? null : source.user_metadata;
  if (body.metadata && typeof body.metadata === 'object')
    userMetadata = body.metadata as Record<string, unknown>;
  const version = randomUUID();
  try {
    await s.objects.copy(source.version, version);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw ERR.noSuchKey();
    throw error;
  }
  const id = await commitObject(
    s.db,
    s.objects,
    caller,
    {
      bucket: m.target,
      name: m.destination,
      version,
      size,
      md5: (meta?.eTag ?? '').replace(/"/g, ''),
      mimetype: meta?.mimetype ?? 'application/octet-stream',
      cacheControl: meta?.cacheControl ?? 'no-cache',
      userMetadata,
    },
    upsert ? 'upsert' : 'insert',
  );
  return json({ Id: id, Key: `${m.target}/${m.destination}` });
}

function expiresIn(body: Record<string, unknown>): number {
  const value = optionalInt(body, 'expiresIn', 1);
  if (value === undefined) throw ERR.invalidRequest("body must have required property 'expiresIn'");
  return value;
}

/** The `transform` of a sign request body, validated as the render query is. */
function transformOf(body: Record<string, unknown>) {
  const t = body.transform;
  if (t === undefined || t === null) return {};
  if (typeof t !== 'object' || Array.isArray(t)) {
    throw ERR.invalidRequest('body/transform must be object');
  }
  const options = t as Record<string, unknown>;
  return parseTransform((name) => options[name], 'body/transform');
}

/**
 * POST /object/sign/:bucket/:key `{expiresIn, transform?}` → `{signedURL}` relative to
 * /storage/v1 (RLS SELECT). With a transform, a `/render/image/sign/…` URL whose token
 * carries it.
 */
export async function signObject(
  s: StorageContext,
  r: StorageRequest,
  bucket: string,
  key: string,
) {
  checkBucketName(bucket);
  checkKey(key);
  const caller = await callerOf(s, r);
  const body = await readJson(r.req);
  const seconds = expiresIn(body);
  const transform = transformOf(body);
  const row = await findAsCaller(s.db, caller, bucket, key);
  if (!row) throw ERR.noSuchKey();
  const url = `${bucket}/${key}`;
  const render = s.render && hasTransform(transform);
  const token = await signDownload(
    url,
    s.secret,
    seconds,
    render ? { transformations: signTransform(transform), format: transform.format } : null,
  );
  return json({ signedURL: `/${render ? 'render/image' : 'object'}/sign/${url}?token=${token}` });
}

/** POST /object/sign/:bucket `{expiresIn, paths}` → one entry per path, in order. */
export async function signObjects(s: StorageContext, r: StorageRequest, bucket: string) {
  checkBucketName(bucket);
  const caller = await callerOf(s, r);
  const body = await readJson(r.req);
  const seconds = expiresIn(body);
  const paths = body.paths;
  if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string')) {
    throw ERR.invalidRequest("body must have required property 'paths'");
  }
  const found = await asRequest(
    s.db,
    caller.ctx,
    async (tx) =>
      new Set(
        (
          await tx.query<{ name: string }>(
            `select name from storage.objects
              where bucket_id = $1 and name in (select jsonb_array_elements_text($2::text::jsonb))`,
            [bucket, JSON.stringify(paths)],
          )
        ).rows.map((row) => row.name),
      ),
    { readOnly: true },
  );
  const out = [];
  for (const path of paths as string[]) {
    if (!found.has(path)) {
      out.push({
        error: 'Either the object does not exist or you do not have access to it',
        path,
        signedURL: null,
      });
      continue;
    }
    const url = `${bucket}/${path}`;
    const token = await signDownload(url, s.secret, seconds);
    out.push({ error: null, path, signedURL: `/object/sign/${url}?token=${token}` });
  }
  return json(out);
}
