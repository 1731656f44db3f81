import type { RestRequest } from '../context';
import type { MediaType } from '../http/media';
import type { RowRange, RowsShape } from './types';

/**
 * The body of returned rows for the negotiated media type: CSV, one object
 * (`vnd.pgrst.object`), the row or null of a function returning one composite
 * (`singleRow`), else an array; nulls stripped when asked for.
 */
export function rowsShape(media: MediaType, singleRow = false): RowsShape {
  const shape =
    media.kind === 'csv'
      ? 'csv'
      : media.kind === 'object'
        ? 'object'
        : singleRow
          ? 'single'
          : 'array';
  const stripNulls = (media.kind === 'json' || media.kind === 'object') && media.stripNulls;
  return { shape, stripNulls };
}

/** The `Range: from-to` header of a GET (other methods and other forms are ignored). */
export function rangeOf(req: RestRequest): RowRange | null {
  if (!req.rangeHeader || req.method !== 'GET') return null;
  const m = /^(\d+)-(\d*)$/.exec(req.rangeHeader.trim());
  if (!m) return null;
  return { from: Number(m[1]), to: m[2] ? Number(m[2]) : Number.POSITIVE_INFINITY };
}
