import { ERR } from '../errors';

/** Image transformation options, as the render endpoints and signed tokens take them. */
export interface Transform {
  width?: number;
  height?: number;
  resize?: 'cover' | 'contain' | 'fill';
  format?: 'origin' | 'avif' | 'webp';
  quality?: number;
}

const RESIZE = ['cover', 'contain', 'fill'] as const;
const FORMAT = ['origin', 'avif', 'webp'] as const;
const GRAVITY = ['no', 'so', 'ea', 'we', 'noea', 'nowe', 'soea', 'sowe', 'ce', 'sm', 'fp'];

/** How each resize mode is named in the hosted `X-Transformations` header. */
const RESIZING_TYPE = { cover: 'fill', contain: 'fit', fill: 'force' } as const;

type Source = 'querystring' | 'body/transform';

function integer(where: Source, name: string, value: unknown, min: number, max?: number) {
  const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) {
    throw ERR.invalidRequest(`${where}/${name} must be integer`);
  }
  if (n < min) throw ERR.invalidRequest(`${where}/${name} must be >= ${min}`);
  if (max !== undefined && n > max) throw ERR.invalidRequest(`${where}/${name} must be <= ${max}`);
  return n;
}

function oneOf<T extends string>(
  where: Source,
  name: string,
  value: unknown,
  allowed: readonly T[],
) {
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    throw ERR.invalidRequest(`${where}/${name} must be equal to one of the allowed values`);
  }
  return value as T;
}

/**
 * Validates transformation options from a query string or a sign request body, with the
 * hosted schema: integer `width`/`height` ≥ 0, `resize` cover|contain|fill, `format`
 * origin|avif|webp, integer `quality` 20–100. Gravity and offsets are checked but not
 * applied (thumbnails are centred). Unknown names are ignored, as the hosted service does.
 */
export function parseTransform(
  get: (name: string) => unknown,
  where: Source = 'querystring',
): Transform {
  const t: Transform = {};
  const present = (name: string) => {
    const value = get(name);
    return value === undefined || value === null ? undefined : value;
  };
  const width = present('width');
  if (width !== undefined) t.width = integer(where, 'width', width, 0);
  const height = present('height');
  if (height !== undefined) t.height = integer(where, 'height', height, 0);
  const resize = present('resize');
  if (resize !== undefined) t.resize = oneOf(where, 'resize', resize, RESIZE);
  const format = present('format');
  if (format !== undefined) t.format = oneOf(where, 'format', format, FORMAT);
  const quality = present('quality');
  if (quality !== undefined) t.quality = integer(where, 'quality', quality, 20, 100);
  const gravity = present('gravity');
  if (gravity !== undefined) oneOf(where, 'gravity', gravity, GRAVITY);
  for (const offset of ['x_offset', 'y_offset']) {
    const value = present(offset);
    if (value !== undefined && !Number.isFinite(Number(value))) {
      throw ERR.invalidRequest(`${where}/${offset} must be number`);
    }
  }
  return t;
}

/** The transformation options of a query string (`?width=…&height=…`). */
export const transformFromQuery = (query: URLSearchParams): Transform =>
  parseTransform((name) => query.get(name) ?? undefined);

/** Limits applied to every render. */
export interface RenderLimits {
  /** Largest `width`/`height`; larger values are clamped to it (hosted: 2500). */
  maxDimension: number;
}

/** The options with width and height clamped to 1…`maxDimension` (0 means "not given"). */
export function clampTransform(t: Transform, limits: RenderLimits): Transform {
  const clamp = (n: number | undefined) =>
    n ? Math.min(Math.max(n, 1), limits.maxDimension) : undefined;
  const out: Transform = { ...t };
  const width = clamp(t.width);
  const height = clamp(t.height);
  if (width) out.width = width;
  else delete out.width;
  if (height) out.height = height;
  else delete out.height;
  return out;
}

/**
 * The hosted `X-Transformations` header value of (clamped) options, e.g.
 * `height:200,width:200,resizing_type:fill,quality:60`.
 */
export function describeTransform(t: Transform): string {
  const parts: string[] = [];
  if (t.height) parts.push(`height:${t.height}`);
  if (t.width) parts.push(`width:${t.width}`);
  if (t.width || t.height) parts.push(`resizing_type:${RESIZING_TYPE[t.resize ?? 'cover']}`);
  if (t.quality) parts.push(`quality:${t.quality}`);
  if (t.format && t.format !== 'origin') parts.push(`format:${t.format}`);
  return parts.join(',');
}

/**
 * The `transformations` claim of a signed render URL: the options as signed, e.g.
 * `height:200,width:200,resize:cover,quality:60`; empty when there is nothing to apply.
 */
export function signTransform(t: Transform): string {
  const parts: string[] = [];
  if (t.height) parts.push(`height:${t.height}`);
  if (t.width) parts.push(`width:${t.width}`);
  if (t.resize && (t.width || t.height)) parts.push(`resize:${t.resize}`);
  if (t.quality) parts.push(`quality:${t.quality}`);
  if (t.format && t.format !== 'origin') parts.push(`format:${t.format}`);
  return parts.join(',');
}

/** Options back from a signed `transformations` claim; unknown or bad parts are skipped. */
export function transformFromClaim(claim: unknown): Transform {
  const t: Transform = {};
  if (typeof claim !== 'string') return t;
  for (const part of claim.split(',')) {
    const [name, value = ''] = part.split(':');
    const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (name === 'width' && n >= 0) t.width = n;
    else if (name === 'height' && n >= 0) t.height = n;
    else if (name === 'quality' && n >= 20 && n <= 100) t.quality = n;
    else if (name === 'resize' && (RESIZE as readonly string[]).includes(value)) {
      t.resize = value as Transform['resize'];
    } else if (name === 'format' && (FORMAT as readonly string[]).includes(value)) {
      t.format = value as Transform['format'];
    }
  }
  return t;
}

/** Whether options ask for anything at all (an empty object means a plain object URL). */
export const hasTransform = (t: Transform): boolean => signTransform(t) !== '';
