/**
 * `[storage.buckets.<name>]` of a project's `config.toml`, as the hosted CLI reads it:
 * `public`, `file_size_limit` (a size such as `"50MiB"`; default `[storage] file_size_limit`
 * when that is set), `allowed_mime_types`, `objects_path` (a folder, or one file, relative
 * to the project folder, whose files are uploaded into the bucket at start).
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { BucketOptions, StorageOptions } from './options';
import { sizeInBytes } from './project-toml';

type Table = Record<string, unknown>;

const BUCKET_NAME = /^[A-Za-z0-9_!.*'() &$=@;:+,?-]{1,100}$/;
const MIME = /^[\w.+-]+\/([\w.+-]+|\*)$|^\*\/\*$/;

/** The buckets of `toml` (undefined when there are none); throws naming `file` and the key. */
export function projectBuckets(
  toml: Table,
  root: string,
  file: string,
): Record<string, BucketOptions> | undefined {
  const storage = toml.storage as Table | undefined;
  const tables = storage?.buckets;
  if (tables === undefined) return undefined;
  if (!tables || typeof tables !== 'object' || Array.isArray(tables))
    throw new Error(`${file}: storage.buckets must be a table of [storage.buckets.<name>]`);
  const out: Record<string, BucketOptions> = {};
  for (const [name, value] of Object.entries(tables as Table)) {
    const key = `storage.buckets.${name}`;
    if (!BUCKET_NAME.test(name) || name === '.' || name === '..')
      throw new Error(`${file}: ${key}: ${JSON.stringify(name)} is not a valid bucket name`);
    if (!value || typeof value !== 'object' || Array.isArray(value))
      throw new Error(`${file}: ${key} must be a table`);
    const t = value as Table;
    const bucket: BucketOptions = {};
    if (t.public !== undefined) {
      if (typeof t.public !== 'boolean')
        throw new Error(`${file}: ${key}.public must be a boolean`);
      bucket.public = t.public;
    }
    const size = t.file_size_limit ?? storage?.file_size_limit;
    if (size !== undefined) {
      if (typeof size !== 'string' && typeof size !== 'number')
        throw new Error(`${file}: ${key}.file_size_limit must be a size such as "50MiB"`);
      try {
        bucket.fileSizeLimit = sizeInBytes(size, `${key}.file_size_limit`);
      } catch (error) {
        throw new Error(`${file}: ${(error as Error).message.replace(/^config\.toml: /, '')}`);
      }
    }
    const mimes = t.allowed_mime_types;
    if (mimes !== undefined) {
      if (!Array.isArray(mimes) || !mimes.every((m) => typeof m === 'string' && MIME.test(m)))
        throw new Error(
          `${file}: ${key}.allowed_mime_types must be a list of MIME types such as "image/png" or "image/*"`,
        );
      bucket.allowedMimeTypes = mimes as string[];
    }
    if (t.objects_path !== undefined && t.objects_path !== '') {
      if (typeof t.objects_path !== 'string')
        throw new Error(`${file}: ${key}.objects_path must be a string`);
      const path = isAbsolute(t.objects_path) ? t.objects_path : resolve(root, t.objects_path);
      if (!existsSync(path))
        throw new Error(`${file}: ${key}.objects_path: ${path} does not exist`);
      bucket.objectsPath = path;
    }
    out[name] = bucket;
  }
  return out;
}

const S3_KEYS = {
  bucket: 'string',
  endpoint: 'string',
  region: 'string',
  force_path_style: 'boolean',
  access_key_id: 'string',
  secret_access_key: 'string',
} as const;

/**
 * `[storage] backend = "s3"` and `[storage.s3]` (`bucket`, `endpoint`, `region`,
 * `force_path_style`, `access_key_id`, `secret_access_key`; `"env(NAME)"` for secrets), the
 * hosted storage service's `STORAGE_BACKEND`, `STORAGE_S3_*` and `AWS_*` settings.
 */
export function projectS3(
  toml: Table,
  file: string,
): Pick<StorageOptions, 'backend' | 's3'> | undefined {
  const storage = toml.storage as Table | undefined;
  const backend = storage?.backend;
  const table = storage?.s3;
  if (backend === undefined && table === undefined) return undefined;
  if (backend !== undefined && backend !== 'file' && backend !== 's3')
    throw new Error(`${file}: storage.backend must be "file" or "s3"`);
  const out: Pick<StorageOptions, 'backend' | 's3'> = {};
  if (backend !== undefined) out.backend = backend;
  if (table === undefined) return out;
  if (!table || typeof table !== 'object' || Array.isArray(table))
    throw new Error(`${file}: storage.s3 must be a table`);
  const t = table as Table;
  for (const [name, type] of Object.entries(S3_KEYS)) {
    if (t[name] !== undefined && typeof t[name] !== type)
      throw new Error(`${file}: storage.s3.${name} must be a ${type}`);
  }
  if (typeof t.bucket !== 'string') throw new Error(`${file}: storage.s3.bucket is required`);
  out.s3 = {
    bucket: t.bucket,
    endpoint: t.endpoint as string | undefined,
    region: t.region as string | undefined,
    forcePathStyle: t.force_path_style as boolean | undefined,
    accessKeyId: t.access_key_id as string | undefined,
    secretAccessKey: t.secret_access_key as string | undefined,
  };
  return out;
}
