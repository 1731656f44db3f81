/**
 * The configured buckets (`storage.buckets`, a project's `[storage.buckets.<name>]`), made
 * or updated at every start, and the files of their `objectsPath` uploaded, as the hosted
 * CLI's `seed buckets`: keys are paths relative to the folder (`/`-separated; one file: its
 * name), an existing object of the same key is replaced (upsert), only regular files are
 * taken. Objects whose bytes and type did not change are left as they are, so a restart
 * writes nothing. Bytes go through the one commit path of storage (`commitObject`), as the
 * service role.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { basename, extname, join, relative, sep } from 'node:path';
import type { BucketOptions } from '../config/options';
import { asRequest, type Database } from '../db/index';
import type { Caller } from './auth';
import { type ObjectBackend, SizeLimitExceeded } from './backends/index';
import { checkBucketName, checkKey, checkMime } from './names';
import { bucketLimits, commitObject, findObject, sizeLimit } from './objects';

const SERVICE: Caller = {
  ctx: {
    role: 'service_role',
    claims: { role: 'service_role' },
    method: 'POST',
    path: '/',
    headers: {},
  },
  owner: null,
  role: 'service_role',
};

/** A new bucket takes the settings given; an existing one changes only those given, as the CLI. */
const UPSERT_BUCKET = `insert into storage.buckets as b (id, name, public, file_size_limit, allowed_mime_types)
  values ($1, $1, coalesce($2::boolean, false), $3::bigint,
    case when $4::text::jsonb is null then null
      else array(select jsonb_array_elements_text($4::text::jsonb)) end)
  on conflict (id) do update set public = coalesce($2::boolean, b.public),
    file_size_limit = coalesce($3::bigint, b.file_size_limit),
    allowed_mime_types = coalesce(excluded.allowed_mime_types, b.allowed_mime_types),
    updated_at = now()`;

const TYPES: Record<string, string> = {
  '.avif': 'image/avif',
  '.css': 'text/css; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.gif': 'image/gif',
  '.htm': 'text/html; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.ico': 'image/vnd.microsoft.icon',
  '.jpeg': 'image/jpeg',
  '.jpg': 'image/jpeg',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.md': 'text/markdown; charset=utf-8',
  '.mp3': 'audio/mpeg',
  '.mp4': 'video/mp4',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
  '.wav': 'audio/wav',
  '.webm': 'video/webm',
  '.webp': 'image/webp',
  '.xml': 'text/xml; charset=utf-8',
  '.zip': 'application/zip',
};

/** The MIME type of a file: by its extension, else text or binary by its first bytes. */
async function mimeOf(path: string): Promise<string> {
  const known = TYPES[extname(path).toLowerCase()];
  if (known) return known;
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(512);
    const { bytesRead } = await handle.read(head, 0, 512, 0);
    const bytes = head.subarray(0, bytesRead);
    const text = !bytes.includes(0) && new TextDecoder('utf-8', { fatal: false }).decode(bytes);
    return text !== false && !text.includes('\uFFFD')
      ? 'text/plain; charset=utf-8'
      : 'application/octet-stream';
  } finally {
    await handle.close();
  }
}

/** Regular files under `root` (or `root` itself when it is a file), with their keys. */
async function filesOf(root: string): Promise<{ path: string; key: string }[]> {
  if ((await stat(root)).isFile()) return [{ path: root, key: basename(root) }];
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => {
      const path = join(e.parentPath, e.name);
      return { path, key: relative(root, path).split(sep).join('/') };
    })
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

async function md5Of(path: string): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Uploads one file as `bucket/key` unless the stored object has the same bytes and type. */
async function uploadFile(
  db: Database,
  objects: ObjectBackend,
  bucket: string,
  file: { path: string; key: string },
  globalLimit: number,
): Promise<boolean> {
  const mimetype = await mimeOf(file.path);
  const existing = await findObject(db, bucket, file.key);
  const md5 = await md5Of(file.path);
  if (existing?.metadata?.eTag === `"${md5}"` && existing.metadata.mimetype === mimetype)
    return false;
  const limits = await bucketLimits(db, bucket);
  checkMime(mimetype, limits.allowedMimeTypes);
  const temp = await objects.createWriter(sizeLimit(limits, globalLimit));
  const version = temp.version;
  try {
    for await (const chunk of createReadStream(file.path)) await temp.write(chunk as Buffer);
    const done = await temp.finish();
    await temp.commit();
    await commitObject(
      db,
      objects,
      SERVICE,
      {
        bucket,
        name: file.key,
        version,
        size: done.size,
        md5: done.md5,
        mimetype,
        cacheControl: 'max-age=3600',
        userMetadata: null,
      },
      'upsert',
    );
  } catch (error) {
    await temp.discard();
    throw error;
  }
  return true;
}

/**
 * Makes or updates each configured bucket, then uploads its `objectsPath`. Throws naming the
 * bucket and the file when one cannot be stored (too large, a type the bucket refuses, a
 * name that is not a valid key). Returns how many objects were written.
 */
export async function seedBuckets(
  db: Database,
  objects: ObjectBackend,
  buckets: Record<string, BucketOptions>,
  globalLimit: number,
): Promise<number> {
  let written = 0;
  for (const [name, b] of Object.entries(buckets)) {
    try {
      checkBucketName(name);
    } catch {
      throw new Error(`storage.buckets: ${JSON.stringify(name)} is not a valid bucket name`);
    }
    const mimes = b.allowedMimeTypes?.length ? JSON.stringify(b.allowedMimeTypes) : null;
    await asRequest(db, SERVICE.ctx, (tx) =>
      tx.query(UPSERT_BUCKET, [name, b.public ?? null, b.fileSizeLimit ?? null, mimes]),
    );
    if (!b.objectsPath) continue;
    for (const file of await filesOf(b.objectsPath)) {
      try {
        checkKey(file.key);
        if (await uploadFile(db, objects, name, file, globalLimit)) written++;
      } catch (error) {
        const reason = error instanceof SizeLimitExceeded ? 'too large for the bucket' : error;
        throw new Error(
          `storage.buckets.${name}.objects_path: ${file.path} could not be stored: ${reason instanceof Error ? reason.message : String(reason)}`,
          { cause: error },
        );
      }
    }
  }
  return written;
}
