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
import { iso, isoExpr } from './objects';

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
