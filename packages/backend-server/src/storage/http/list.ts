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
import { iso, isoExpr } from '../objects';

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

/** A list-v2 continuation token, as the hosted service encodes it (`l:`, `o:`, `c:`, `a:` lines). */
interface Cursor {
  /** The last entry's name (a folder's with its `/` in name order). */
  startAfter: string;
  sortOrder?: string;
  sortColumn?: string;
  /** The last entry's sort timestamp (ISO), for `created_at`/`updated_at` order. */
  sortColumnAfter?: string;
}

const CURSOR_PARTS = [
  ['l', 'startAfter'],
  ['o', 'sortOrder'],
  ['c', 'sortColumn'],
  ['a', 'sortColumnAfter'],
] as const;

function encodeCursor(c: Cursor): string {
  const lines = CURSOR_PARTS.filter(([, k]) => c[k]).map(([p, k]) => `${p}:${c[k]}`);
  return Buffer.from(lines.join('\n')).toString('base64');
}

function decodeCursor(text: string): Cursor {
  const cursor: Cursor = { startAfter: '', sortOrder: 'asc' };
  for (const line of Buffer.from(text, 'base64').toString().split('\n')) {
    const match = /^(\S):(.*)/.exec(line);
    const part = CURSOR_PARTS.find(([p]) => p === match?.[1]);
    if (!match || !part) throw ERR.invalidParameter('Invalid Parameter continuation token');
    cursor[part[1]] = match[2] ?? '';
  }
  return cursor;
}

type V2Row = {
  name: string;
  is_folder: boolean;
  id: string | null;
  metadata: unknown;
  updated_at: string | null;
  created_at: string | null;
  last_accessed_at: string | null;
  sort: string | null;
};

/**
 * The list-v2 query. Entries are the objects under the prefix; with a delimiter, objects
 * below the next `/` collapse into one folder entry. Name order is bytewise on the folder
 * with its `/` (where its objects sort) or the object name; timestamp order is on the
 * millisecond, then the name (folders: without `/`, dated by their oldest object), as the
 * hosted search functions order them. `$4`/`$6` are the cursor's name and timestamp.
 */
function v2Query(delimiter: boolean, column: 'name' | 'created_at' | 'updated_at', desc: boolean) {
  const order = desc ? 'desc' : 'asc';
  const cmp = desc ? '<' : '>';
  const folder = `case when strpos(substr(name, char_length($3::text) + 1), '/') > 0
      then substr(name, 1, char_length($3::text) + strpos(substr(name, char_length($3::text) + 1), '/'))
    end`;
  const files = delimiter ? `where ${folder} is null` : '';
  const folders = delimiter
    ? `union all
       select ${column === 'name' ? 'f' : "rtrim(f, '/')"}, true, null::uuid, null::jsonb,
              ${column === 'name' ? 'null::timestamptz' : 'min(created_at)'},
              ${column === 'name' ? 'null::timestamptz' : 'min(created_at)'}, null::timestamptz
         from (select ${folder} as f, created_at from o) x where f is not null group by f`
    : '';
  const time = column === 'name' ? null : `date_trunc('milliseconds', ${column})`;
  const after =
    time === null
      ? `name collate "C" ${cmp} $4::text`
      : `(${time}, name collate "C") ${cmp} (coalesce(nullif($6::text, '')::timestamptz, 'epoch'::timestamptz), $4::text)`;
  return `with o as (
      select name, id, metadata, updated_at, created_at, last_accessed_at from storage.objects
       where bucket_id = $1 and name like $2 escape '\\' and $3::text is not null
    ), e (name, is_folder, id, metadata, updated_at, created_at, last_accessed_at) as (
      select name, false, id, metadata, updated_at, created_at, last_accessed_at from o ${files}
      ${folders}
    )
    select name, is_folder, id, metadata, ${iso('updated_at')}, ${iso('created_at')},
           ${iso('last_accessed_at')}, ${time === null ? 'null' : isoExpr(time)} as sort
      from e
     where $4::text is null or ${after}
     order by ${time === null ? '' : `coalesce(${time}, 'epoch'::timestamptz) ${order}, `}name collate "C" ${order}
     limit $5`;
}

/**
 * POST /object/list-v2/:bucket — `{hasNext, nextCursor?, nextCursorKey?, folders, objects}`
 * with the hosted entry shapes: with `with_delimiter`, one level under the prefix (folders
 * `{key, name: "<path>/", id: null, …}`, objects with `key`, their name segment at the
 * prefix's level); without it, every object under the prefix. Sort by name, created_at or
 * updated_at, either way, paged by an opaque cursor that keeps the sort. RLS SELECT.
 */
export async function listObjectsV2(
  s: StorageContext,
  r: StorageRequest,
  bucket: string,
): Promise<Response> {
  const caller = await callerOf(s, r);
  const body = await readJson(r.req);
  if (body.prefix !== undefined && typeof body.prefix !== 'string')
    throw ERR.invalidRequest('body/prefix must be string');
  if (body.cursor !== undefined && typeof body.cursor !== 'string')
    throw ERR.invalidRequest('body/cursor must be string');
  const prefix = (body.prefix as string | undefined) ?? '';
  const limit = Math.min(optionalInt(body, 'limit', 1) ?? 1000, 1000);
  const delimiter = body.with_delimiter === true;
  const sort =
    body.sortBy === undefined ? null : sortOf(body, ['name', 'updated_at', 'created_at']);
  const cursor = body.cursor ? decodeCursor(body.cursor as string) : null;
  const order = (cursor?.sortOrder || sort?.order || 'asc').toLowerCase();
  const sortColumn = cursor?.sortColumn || sort?.column;
  const column =
    sortColumn === 'created_at' || sortColumn === 'updated_at' ? sortColumn : ('name' as const);
  const rows = await asRequest(
    s.db,
    caller.ctx,
    async (tx) =>
      (
        await tx.query<V2Row>(v2Query(delimiter, column, order === 'desc'), [
          bucket,
          `${likeEscape(prefix)}%`,
          prefix,
          cursor?.startAfter || null,
          limit + 1,
          ...(column === 'name' ? [] : [cursor?.sortColumnAfter ?? null]),
        ])
      ).rows,
    { readOnly: true },
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const hasNext = rows.length > limit;
  const levels = prefix === '' ? 1 : prefix.split('/').length;
  const plain = (name: string) => name.replace(/\/$/, '');
  const keyOf = (name: string) => plain(name).split('/')[levels - 1] ?? '';
  const entry = (e: V2Row) => ({
    ...(delimiter ? { key: keyOf(e.name) } : {}),
    name: e.is_folder ? `${plain(e.name)}/` : e.name,
    id: e.id,
    updated_at: e.updated_at,
    created_at: e.created_at,
    last_accessed_at: e.last_accessed_at,
    metadata: e.metadata,
  });
  return json({
    hasNext,
    ...(hasNext && last
      ? {
          nextCursor: encodeCursor({
            startAfter: last.name,
            sortOrder: cursor?.sortOrder || sort?.order,
            sortColumn,
            sortColumnAfter: column !== 'name' && last.sort ? last.sort : undefined,
          }),
          nextCursorKey: plain(last.name),
        }
      : {}),
    folders: page.filter((e) => e.is_folder).map(entry),
    objects: page.filter((e) => !e.is_folder).map(entry),
  });
}
