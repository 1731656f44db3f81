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

const UNITS: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9 };

/**
 * A bucket `file_size_limit` as the hosted service reads it: a non-negative integer of
 * bytes, or a string such as `"20MB"`, `"1.5gb"`, `"300KB"`, `"3B"` with decimal units
 * (`"20MB"` is 20,000,000 bytes; the number is rounded to 3 significant digits). `null` or
 * absent means no bucket limit.
 */
export function parseSizeLimit(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) return value;
  } else if (typeof value === 'string') {
    // A string of digits is an integer to the hosted schema (its validator coerces it).
    if (/^\d+$/.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
    const match = /^(\d+(?:\.\d+)?)(gb|mb|kb|b)$/i.exec(value);
    const unit = match ? UNITS[(match[2] ?? '').toLowerCase()] : undefined;
    if (match && unit !== undefined) {
      return Math.round(Number(Number.parseFloat(match[1] ?? '').toPrecision(3)) * unit);
    }
  }
  throw ERR.invalidRequest('Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B');
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
