import { ERR } from './errors';

const BUCKET_NAME = /^[A-Za-z0-9_!.*'() &$=@;:+,?-]{1,100}$/;
const KEY_CHARS = /^[A-Za-z0-9_/!.*'() &$=@;:+,?-]+$/;

/** Throws InvalidBucketName unless `name` is a valid bucket name (§3.2). */
export function checkBucketName(name: string): string {
  if (!BUCKET_NAME.test(name) || name === '.' || name === '..') throw ERR.invalidBucketName(name);
  return name;
}

/**
 * Throws InvalidKey unless `key` is a valid object key: the hosted character set, at most
 * 1024 bytes, and no empty, `.` or `..` segment. Keys never name files on disk (bytes are
 * stored by version id), so this is about clean names, not about the disk.
 */
export function checkKey(key: string): string {
  if (
    !KEY_CHARS.test(key) ||
    Buffer.byteLength(key) > 1024 ||
    key.split('/').some((s) => s === '' || s === '.' || s === '..')
  ) {
    throw ERR.invalidKey(key);
  }
  return key;
}

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
};

/**
 * A bucket `file_size_limit`: a non-negative integer of bytes, or a string such as `"50MB"`,
 * `"1.5 GB"`, `"100kb"` (1024-based units). `null`/absent means no bucket limit.
 */
export function parseSizeLimit(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) return value;
  } else if (typeof value === 'string') {
    const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
    const unit = match ? UNITS[(match[2] ?? '').toLowerCase()] : undefined;
    if (match && unit !== undefined) return Math.floor(Number(match[1]) * unit);
  }
  throw ERR.invalidRequest(`Invalid file_size_limit: ${String(value)}`);
}

/** Validates `allowed_mime_types`: null, or a list of `type/subtype` or `type/*` strings. */
export function parseMimeTypes(value: unknown): string[] | null {
  if (value === null || value === undefined) return null;
  if (
    Array.isArray(value) &&
    value.every((t) => typeof t === 'string' && /^[\w.+-]+\/([\w.+-]+|\*)$|^\*\/\*$/.test(t))
  ) {
    return value as string[];
  }
  throw ERR.invalidRequest('allowed_mime_types must be a list of mime types');
}

/** The mime type without parameters, lower-cased (`text/plain;charset=UTF-8` → `text/plain`). */
export const baseMime = (type: string): string => (type.split(';')[0] ?? '').trim().toLowerCase();

/** Throws InvalidMimeType unless `type` matches one of `allowed` (wildcards `image/*`). */
export function checkMime(type: string, allowed: readonly string[] | null): void {
  if (!allowed || allowed.length === 0) return;
  const mime = baseMime(type);
  const [major] = mime.split('/');
  const ok = allowed.some((a) => {
    const pattern = a.toLowerCase();
    return pattern === mime || pattern === '*/*' || pattern === `${major}/*`;
  });
  if (!ok) throw ERR.invalidMimeType(type);
}

/** `cacheControl` as the hosted service stores it: seconds become `max-age=<n>`. */
export function cacheControlFrom(value: string | null | undefined): string {
  if (!value) return 'no-cache';
  return /^\d+$/.test(value.trim()) ? `max-age=${value.trim()}` : value;
}
