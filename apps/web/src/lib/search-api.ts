/**
 * Search over files and folders, by name and content (backend/migrations/
 * 20261128001100_search_items.sql), and the request that indexes what was just uploaded
 * (functions/search-index).
 */
import type { DriveClient } from './client-types';

export type SearchType =
  | 'folder'
  | 'document'
  | 'pdf'
  | 'spreadsheet'
  | 'presentation'
  | 'text'
  | 'image'
  | 'video'
  | 'audio';
export type SearchOwner = 'mine' | 'shared';
export type SearchModified = 'day' | 'week' | 'month' | 'year';
export type SearchSize = 'small' | 'medium' | 'large';

export interface SearchFilters {
  type: SearchType | null;
  owner: SearchOwner | null;
  modified: SearchModified | null;
  size: SearchSize | null;
}

export interface SearchHit {
  kind: 'file' | 'folder';
  id: string;
  name: string;
  mime_type: string | null;
  size: number | string | null;
  updated_at: string;
  owner_id: string;
  parent_id: string | null;
  /** Text around a content match, the matches between \u0002 and \u0003. */
  snippet: string | null;
  score: number;
}

export const SEARCH_PAGE = 30;

const MB = 1024 * 1024;
const SIZES: Record<SearchSize, [number | null, number | null]> = {
  small: [null, MB - 1],
  medium: [MB, 100 * MB - 1],
  large: [100 * MB, null],
};
const DAYS: Record<SearchModified, number> = { day: 1, week: 7, month: 30, year: 365 };

/** One page of results (`page` from 0); `now` decides what "the last 7 days" are. */
export function searchItems(
  client: DriveClient,
  q: string,
  filters: SearchFilters,
  page: number,
  now = Date.now(),
) {
  const [min, max] = filters.size ? SIZES[filters.size] : [null, null];
  return client.rpc('search_items', {
    q,
    p_type: filters.type,
    p_owner: filters.owner,
    p_modified_after: filters.modified
      ? new Date(now - DAYS[filters.modified] * 86_400_000).toISOString()
      : null,
    p_min_size: min,
    p_max_size: max,
    p_limit: SEARCH_PAGE,
    p_offset: page * SEARCH_PAGE,
  });
}

/**
 * Splits highlighted text into plain and marked parts: `[text, marked]` pairs, so that the
 * page marks them as elements and never reads the text as HTML.
 */
export function highlightParts(text: string): Array<[string, boolean]> {
  const parts: Array<[string, boolean]> = [];
  for (const piece of text.split('\u0003')) {
    const at = piece.indexOf('\u0002');
    if (at < 0) parts.push([piece, false]);
    else {
      parts.push([piece.slice(0, at), false]);
      parts.push([piece.slice(at + 1), true]);
    }
  }
  return parts.filter(([t]) => t.length > 0);
}

/** A name with the words of the query (as prefixes of its words) marked. */
export function markName(name: string, q: string): string {
  const words = q
    .toLowerCase()
    .split(/[\p{P}\p{S}\s]+/u)
    .filter(Boolean);
  if (words.length === 0) return name;
  return name.replace(/[\p{L}\p{N}]+/gu, (word) =>
    words.some((w) => word.toLowerCase().startsWith(w)) ? `\u0002${word}\u0003` : word,
  );
}

let pending: ReturnType<typeof setTimeout> | null = null;

/**
 * Asks `search-index` to read what the user just uploaded, a second after the last upload
 * (a batch of uploads makes one call). Fire and forget: the backend's sweep catches up on
 * whatever this misses.
 */
export function requestIndexing(client: DriveClient, delayMs = 1000): void {
  if (pending) clearTimeout(pending);
  pending = setTimeout(() => {
    pending = null;
    void Promise.resolve()
      .then(() => client.functions.invoke('search-index', { body: {} }))
      .catch(() => {});
  }, delayMs);
}
