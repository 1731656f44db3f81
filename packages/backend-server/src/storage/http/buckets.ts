import { asRequest } from '../../db/index';
import { ownerUuid } from '../auth';
import {
  callerOf,
  json,
  readJson,
  requireString,
  type StorageContext,
  type StorageRequest,
} from '../context';
import { ERR } from '../errors';
import { checkBucketName, parseMimeTypes, parseSizeLimit } from '../names';
import { collectRetired, iso } from '../objects';

/** The bucket columns as the hosted `GET /bucket/:id` answers them (`owner` is the uuid). */
const BUCKET_COLUMNS = `id, name, owner, public, file_size_limit,
  to_jsonb(allowed_mime_types) as allowed_mime_types, ${iso('created_at')}, ${iso('updated_at')}`;

/** `GET /bucket` adds `type` (left out for storage-py < 0.12.1 / supabase-py < 2.18.0). */
const LIST_COLUMNS = `${BUCKET_COLUMNS}, type`;

const OLD_PY_CLIENT = [
  /supabase-py\/(\d+)\.(\d+)\.(\d+)/i,
  /supabase-py\/storage3 v(\d+)\.(\d+)\.(\d+)/i,
] as const;

/** Whether the client is an old Python one that fails on the bucket `type` property. */
function omitsType(r: StorageRequest): boolean {
  const before = (text: string, pattern: RegExp, version: [number, number, number]) => {
    const m = pattern.exec(text);
    if (!m) return false;
    const v = [Number(m[1]), Number(m[2]), Number(m[3])];
    for (let i = 0; i < 3; i++) {
      const want = version[i] ?? 0;
      if ((v[i] ?? 0) !== want) return (v[i] ?? 0) < want;
    }
    return false;
  };
  const clientInfo = r.req.headers.get('x-client-info') ?? '';
  const userAgent = r.req.headers.get('user-agent') ?? '';
  return (
    before(clientInfo, OLD_PY_CLIENT[0], [2, 18, 0]) ||
    before(userAgent, OLD_PY_CLIENT[1], [0, 12, 1])
  );
}

type BucketRow = Record<string, unknown> & { file_size_limit: string | null };

const bucketJson = (row: BucketRow) => ({
  ...row,
  file_size_limit: row.file_size_limit === null ? null : Number(row.file_size_limit),
});

/** A jsonb list parameter as text[] (null stays null). */
const MIMES = (p: string) =>
  `case when ${p}::text::jsonb is null then null else array(select jsonb_array_elements_text(${p}::text::jsonb)) end`;

/** A bucket's `file_size_limit`; over the server-wide limit it is EntityTooLarge, as hosted. */
function bucketLimit(s: StorageContext, value: unknown): number | null {
  const limit = parseSizeLimit(value);
  if (limit !== null && limit > s.globalLimit) throw ERR.entityTooLarge();
  return limit;
}

const SORT_COLUMNS = new Set(['id', 'name', 'created_at', 'updated_at']);

/** GET /bucket: the buckets the caller may see (RLS SELECT), with the hosted query options. */
export async function listBuckets(s: StorageContext, r: StorageRequest): Promise<Response> {
  const caller = await callerOf(s, r);
  const q = r.query;
  const column = q.get('sortColumn') ?? 'name';
  const order = (q.get('sortOrder') ?? 'asc').toLowerCase();
  if (!SORT_COLUMNS.has(column))
    throw ERR.invalidRequest('querystring/sortColumn must be equal to one of the allowed values');
  if (order !== 'asc' && order !== 'desc')
    throw ERR.invalidRequest('querystring/sortOrder must be equal to one of the allowed values');
  const limit = q.get('limit');
  const offset = q.get('offset');
  for (const [name, v] of [
    ['limit', limit],
    ['offset', offset],
  ] as const) {
    if (v !== null && !/^\d+$/.test(v))
      throw ERR.invalidRequest(`querystring/${name} must be integer`);
  }
  const search = q.get('search');
  const rows = await asRequest(
    s.db,
    caller.ctx,
    async (tx) =>
      (
        await tx.query<BucketRow>(
          `select ${omitsType(r) ? BUCKET_COLUMNS : LIST_COLUMNS} from storage.buckets
            where ($1::text is null or name ilike '%' || $1 || '%')
            order by ${column} ${order}, id
            limit $2 offset $3`,
          [search, limit === null ? null : Number(limit), offset === null ? 0 : Number(offset)],
        )
      ).rows,
    { readOnly: true },
  );
  return json(rows.map(bucketJson));
}

/** GET /bucket/:id */
export async function getBucket(
  s: StorageContext,
  r: StorageRequest,
  id: string,
): Promise<Response> {
  const caller = await callerOf(s, r);
  const row = await asRequest(
    s.db,
    caller.ctx,
    async (tx) =>
      (
        await tx.query<BucketRow>(`select ${BUCKET_COLUMNS} from storage.buckets where id = $1`, [
          id,
        ])
      ).rows[0],
    { readOnly: true },
  );
  if (!row) throw ERR.noSuchBucket();
  return json(bucketJson(row));
}

/** POST /bucket: creates a bucket (RLS INSERT). */
export async function createBucket(s: StorageContext, r: StorageRequest): Promise<Response> {
  const caller = await callerOf(s, r);
  const body = await readJson(r.req);
  const name = checkBucketName(requireString(body, 'name'));
  const id = body.id === undefined || body.id === null ? name : checkBucketName(String(body.id));
  const type = body.type ?? 'STANDARD';
  if (type !== 'STANDARD' && type !== 'ANALYTICS')
    throw ERR.invalidRequest('body/type must be STANDARD or ANALYTICS');
  const limit = bucketLimit(s, body.file_size_limit);
  const mimes = parseMimeTypes(body.allowed_mime_types);
  await asRequest(s.db, caller.ctx, (tx) =>
    tx.query(
      `insert into storage.buckets (id, name, owner, owner_id, public, file_size_limit, allowed_mime_types, type)
       values ($1, $2, $3, $4, $5, $6, ${MIMES('$7')}, $8)`,
      [
        id,
        name,
        ownerUuid(caller.owner),
        caller.owner,
        body.public === true,
        limit,
        mimes === null ? null : JSON.stringify(mimes),
        type,
      ],
    ),
  );
  return json({ name: id });
}

/** PUT /bucket/:id: updates public / file_size_limit / allowed_mime_types (RLS SELECT + UPDATE). */
export async function updateBucket(
  s: StorageContext,
  r: StorageRequest,
  id: string,
): Promise<Response> {
  const caller = await callerOf(s, r);
  const body = await readJson(r.req);
  const sets: string[] = [];
  const params: unknown[] = [id];
  if ('public' in body) {
    if (typeof body.public !== 'boolean') throw ERR.invalidRequest('body/public must be boolean');
    params.push(body.public);
    sets.push(`public = $${params.length}`);
  }
  if ('file_size_limit' in body) {
    params.push(bucketLimit(s, body.file_size_limit));
    sets.push(`file_size_limit = $${params.length}`);
  }
  if ('allowed_mime_types' in body) {
    const mimes = parseMimeTypes(body.allowed_mime_types);
    params.push(mimes === null ? null : JSON.stringify(mimes));
    sets.push(`allowed_mime_types = ${MIMES(`$${params.length}`)}`);
  }
  if (sets.length === 0) {
    throw ERR.invalidRequest(
      'body must have at least one of public, file_size_limit, allowed_mime_types',
    );
  }
  const updated = await asRequest(
    s.db,
    caller.ctx,
    async (tx) =>
      (
        await tx.query(
          `update storage.buckets set ${sets.join(', ')}, updated_at = now() where id = $1 returning id`,
          params,
        )
      ).rows.length,
  );
  if (updated === 0) throw ERR.noSuchBucket();
  return json({ message: 'Successfully updated' });
}

/** DELETE /bucket/:id: 409 when it still has objects (RLS SELECT + DELETE). */
export async function deleteBucket(
  s: StorageContext,
  r: StorageRequest,
  id: string,
): Promise<Response> {
  const caller = await callerOf(s, r);
  // Whether objects exist is the platform's question, not the caller's (RLS may hide them).
  const { rows } = await s.db.query('select 1 from storage.objects where bucket_id = $1 limit 1', [
    id,
  ]);
  const deleted = await asRequest(s.db, caller.ctx, async (tx) => {
    const seen = await tx.query('select 1 from storage.buckets where id = $1', [id]);
    if (seen.rows.length === 0) throw ERR.noSuchBucket();
    if (rows.length > 0) throw ERR.bucketNotEmpty();
    return (await tx.query('delete from storage.buckets where id = $1 returning id', [id])).rows
      .length;
  }).catch((error: unknown) => {
    if ((error as { code?: string }).code === '23503') throw ERR.bucketNotEmpty();
    throw error;
  });
  if (deleted === 0) throw ERR.noSuchBucket();
  return json({ message: 'Successfully deleted' });
}

/** POST /bucket/:id/empty: service role only; deletes every object of the bucket. */
export async function emptyBucket(
  s: StorageContext,
  r: StorageRequest,
  id: string,
): Promise<Response> {
  const caller = await callerOf(s, r);
  if (caller.role !== 'service_role') throw ERR.invalidRole();
  await asRequest(s.db, caller.ctx, async (tx) => {
    const seen = await tx.query('select 1 from storage.buckets where id = $1', [id]);
    if (seen.rows.length === 0) throw ERR.noSuchBucket();
    await tx.query('delete from storage.objects where bucket_id = $1', [id]);
  });
  await collectRetired(s.db, s.objects);
  return json({ message: 'Empty bucket has been queued. Completion may take up to an hour.' });
}
