/** Object URLs: query strings, transformation parameters, absolute and public URLs. */
import type { TransformOptions, UrlOptions } from './file-types';

/** A query string of the defined entries (`true` gives an empty value, `false` none). */
export const query = (entries: Record<string, unknown>): string =>
  Object.entries(entries)
    .filter(([, v]) => v !== undefined && v !== false)
    .map(([k, v]) => (v === true ? `${k}=` : `${k}=${encodeURIComponent(String(v))}`))
    .join('&');

/** Whether the options ask for a transformed image (an empty object means none). */
export const wantsTransform = (t: TransformOptions | undefined): t is TransformOptions =>
  t !== undefined && t !== null && Object.keys(t).length > 0;

/** URL query entries in the official client's order: download, transform, cacheNonce. */
export function urlQuery(o: UrlOptions, withDownload = true): Record<string, unknown> {
  const t = o.transform ?? {};
  return {
    download: withDownload && o.download ? (o.download === true ? '' : o.download) : undefined,
    width: t.width || undefined,
    height: t.height || undefined,
    resize: t.resize || undefined,
    format: t.format || undefined,
    quality: t.quality || undefined,
    cacheNonce: o.cacheNonce ?? undefined,
  };
}

/**
 * The absolute URL of a storage path answered by the server (a signed URL), with `download`
 * and `cacheNonce` added to its query.
 */
export function absoluteUrl(origin: string, relative: string, options: UrlOptions): string {
  const extra = query({ download: urlQuery(options).download, cacheNonce: options.cacheNonce });
  return `${origin}/storage/v1${relative}${extra ? `${relative.includes('?') ? '&' : '?'}${extra}` : ''}`;
}
