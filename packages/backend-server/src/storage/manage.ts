import { randomUUID } from 'node:crypto';
import { asRequest } from '../db/index';
import {
  callerOf,
  json,
  optionalInt,
  readJson,
  requireString,
  type StorageContext,
  type StorageRequest,
} from './context';
import { ERR } from './errors';
import { checkBucketName, checkKey } from './names';
import {
  bucketLimits,
  collectRetired,
  commitObject,
  findObject,
  iso,
  isoExpr,
  OBJECT_COLUMNS,
  sizeLimit,
} from './objects';
import { signDownload } from './tokens';

/** `text` for a LIKE pattern, with its wildcards escaped. */
const likeEscape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

function sortOf(body: Record<string, unknown>, columns: readonly string[]) {
  const sortBy = (body.sortBy ?? {}) as Record<string, unknown>;
  const column = (sortBy.column as string | undefined) ?? 'name';
  const order = String(sortBy.order ?? 'asc').toLowerCase();
  if (!columns.includes(column)) {
    throw ERR.invalidRequest('body/sortBy/column must be equal to one of the allowed values');
  }
  if (order !== 'asc' && order !== 'desc') {
    throw ERR.invalidRequest('body/sortBy/order must be equal to one of the allowed values');
  }
  return { column, order };
}

/**
 * POST /object/list/:bucket — one folder level under `prefix`: folders first (`id: null`),
 * then files, names relative to the prefix; limit/offset over both; RLS SELECT.
 */
export async function listObjects(
  s: StorageContext,
  r: StorageRequest,
  bucket: string,
): Promise<Response> {
  const caller = await callerOf(s, r);
  const body = await readJson(r.req);
  let prefix = requireString(body, 'prefix');
  if (prefix !== '' && !prefix.endsWith('/')) prefix = `${prefix}/`;
  const limit = optionalInt(body, 'limit', 0) ?? 100;
  const offset = optionalInt(body, 'offset', 0) ?? 0;
  const search = typeof body.search === 'string' && body.search !== '' ? body.search : null;
  const { column, order } = sortOf(body, ['name', 'updated_at', 'created_at', 'last_accessed_at']);
  const level = prefix === '' ? 1 : prefix.split('/').length;
  const sortExpr = column === 'name' ? 'name collate "C"' : column;
  const rows = await asRequest(
    s.db,
    caller.ctx,
    async (tx) =>
      (
        await tx.query(
          `with matched as (
             select * from storage.objects
              where bucket_id = $1 and name like $2 escape '\\'
                and ($3::text is null or lower(path_tokens[$4]) like lower($3) || '%' escape '\\')
           ), entries as (
             select path_tokens[$4] as name, null::uuid as id, null::timestamptz as updated_at,
                    null::timestamptz as created_at, null::timestamptz as last_accessed_at,
                    null::jsonb as metadata, 0 as kind,
                    row_number() over (order by path_tokens[$4] collate "C" ${order}) as rn
               from matched where array_length(path_tokens, 1) > $4
              group by path_tokens[$4]
             union all
             select path_tokens[$4], id, updated_at, created_at, last_accessed_at, metadata, 1,
                    row_number() over (order by ${sortExpr} ${order}, name collate "C" ${order})
               from matched where array_length(path_tokens, 1) = $4
           )
           select name, id, ${iso('updated_at')}, ${iso('created_at')},
                  ${iso('last_accessed_at')}, metadata
             from entries order by kind, rn limit $5 offset $6`,
          [
            bucket,
            `${likeEscape(prefix)}%`,
            search === null ? null : likeEscape(search),
            level,
            limit,
            offset,
          ],
        )
      ).rows,
    { readOnly: true },
  );
  return json(rows);
}

interface Cursor {
  k: string;
  s: string | null;
}

const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url');

function decodeCursor(text: unknown): Cursor | null {
  if (text === undefined || text === null || text === '') return null;
  try {
    const value = JSON.parse(Buffer.from(String(text), 'base64url').toString('utf8')) as Cursor;
    if (typeof value.k === 'string') return value;
  } catch {}
  throw ERR.invalidParameter('Invalid cursor');
}

/**
 * POST /object/list-v2/:bucket — keyset-paginated listing: `{hasNext, nextCursor?, folders,
 * objects}`; with `with_delimiter` one level (folders as `prefix/name/` keys), else every
 * object under the prefix. `name` and `key` are the full keys.
 */
export async function listObjectsV2(
  s: StorageContext,
  r: StorageRequest,
  bucket: string,
): Promise<Response> {
  const caller = await callerOf(s, r);
  const body = await readJson(r.req);
  const prefix = typeof body.prefix === 'string' ? body.prefix : '';
  const limit = optionalInt(body, 'limit', 1, 1000) ?? 1000;
  const delimiter = body.with_delimiter === true;
  const { column, order } = sortOf(body, ['name', 'updated_at', 'created_at']);
  const sortColumn = delimiter ? 'name' : column;
  const cursor = decodeCursor(body.cursor);
  const cmp = order === 'asc' ? '>' : '<';
  const sortValue = sortColumn === 'name' ? 'null::text' : isoExpr(sortColumn);

  const keyExpr = delimiter
    ? `case when strpos(substr(name, $3::int + 1), '/') > 0
         then $4::text || split_part(substr(name, $3::int + 1), '/', 1) || '/' else name end`
    : 'name';
  const rows = await asRequest(
    s.db,
    caller.ctx,
    async (tx) =>
      (
        await tx.query<
          Record<string, unknown> & { key: string; is_folder: boolean; sort: string | null }
        >(
          `with e as (
             select ${keyExpr} as key, ${delimiter ? `strpos(substr(name, $3::int + 1), '/') > 0` : 'false'} as is_folder,
                    id, name, metadata, updated_at, created_at, last_accessed_at, ${sortValue} as sort
               from storage.objects
              where bucket_id = $1 and name like $2 escape '\\' and $3::int >= 0 and $4::text is not null
           ), g as (
             select key, true as is_folder, null::uuid as id, null::jsonb as metadata,
                    null::timestamptz as updated_at, null::timestamptz as created_at,
                    null::timestamptz as last_accessed_at, null::text as sort
               from e where is_folder group by key
             union all
             select key, false, id, metadata, updated_at, created_at, last_accessed_at, sort
               from e where not is_folder
           )
           select key, is_folder, id, metadata, sort, ${iso('updated_at')}, ${iso('created_at')},
                  ${iso('last_accessed_at')}
             from g
            where $5::text is null
               or (coalesce(sort, ''), key collate "C") ${cmp} (coalesce($6::text, ''), $5::text collate "C")
            order by coalesce(sort, '') ${order}, key collate "C" ${order}
            limit $7`,
          [
            bucket,
            `${likeEscape(prefix)}%`,
            prefix.length,
            prefix,
            cursor?.k ?? null,
            cursor?.s ?? null,
            limit + 1,
          ],
        )
      ).rows,
    { readOnly: true },
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const hasNext = rows.length > limit;
  return json({
    hasNext,
    ...(hasNext && last ? { nextCursor: encodeCursor({ k: last.key, s: last.sort }) } : {}),
    folders: page.filter((e) => e.is_folder).map((e) => ({ name: e.key, key: e.key })),
    objects: page
      .filter((e) => !e.is_folder)
      .map((e) => ({
        name: e.key,
        key: e.key,
        id: e.id,
        updated_at: e.updated_at,
        created_at: e.created_at,
        last_accessed_at: e.last_accessed_at,
        metadata: e.metadata,
      })),
  });
}

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
  await collectRetired(s.db, s.disk);
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
  await collectRetired(s.db, s.disk);
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
  const id = await asRequest(s.db, caller.ctx, async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `update storage.objects set bucket_id = $3, name = $4, updated_at = now()
        where bucket_id = $1 and name = $2 returning id`,
      [m.bucket, m.source, m.target, m.destination],
    );
    return rows[0]?.id;
  });
  if (!id) throw ERR.noSuchKey();
  return json({ message: 'Successfully moved', Id: id, Key: m.destination });
}

/** POST /object/copy — new bytes and row at the destination (RLS SELECT + INSERT). */
export async function copyObject(s: StorageContext, r: StorageRequest): Promise<Response> {
  const caller = await callerOf(s, r);
  const body = await readJson(r.req);
  const m = moveBody(body);
  const upsert = r.req.headers.get('x-upsert') === 'true';
  const source = await asRequest(s.db, caller.ctx, (tx) => findObject(tx, m.bucket, m.source), {
    readOnly: true,
  });
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
    await s.disk.copy(source.version, version);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw ERR.noSuchKey();
    throw error;
  }
  const id = await commitObject(
    s.db,
    s.disk,
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

/** POST /object/sign/:bucket/:key → `{signedURL}` relative to /storage/v1 (RLS SELECT). */
export async function signObject(
  s: StorageContext,
  r: StorageRequest,
  bucket: string,
  key: string,
) {
  checkBucketName(bucket);
  checkKey(key);
  const caller = await callerOf(s, r);
  const seconds = expiresIn(await readJson(r.req));
  const row = await asRequest(s.db, caller.ctx, (tx) => findObject(tx, bucket, key), {
    readOnly: true,
  });
  if (!row) throw ERR.noSuchKey();
  const url = `${bucket}/${key}`;
  const token = await signDownload(url, s.secret, seconds);
  return json({ signedURL: `/object/sign/${url}?token=${token}` });
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
