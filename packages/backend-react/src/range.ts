import { type QueryKey, useQueries } from '@tanstack/react-query';
import { useCallback, useMemo, useRef, useState } from 'react';
import { useBackendClient } from './provider';
import { unwrap } from './query';
import type { ResultLike } from './types';

/** Options of {@link useRangeQuery}. */
export interface RangeQueryOptions<TRow, TClient> {
  /** Cache key of the whole list; every page is cached under it (invalidate it to refresh). */
  queryKey: QueryKey;
  /**
   * Fetches rows `from`..`to` (inclusive, as `.range(from, to)`). When `options.count` is
   * true (the first page) it should also ask for the exact total
   * (`select('*', { count: 'exact' })`); other pages skip the count, which costs the
   * backend a scan.
   */
  fetchRange: (
    client: TClient,
    from: number,
    to: number,
    signal: AbortSignal,
    options: { count: boolean },
  ) => PromiseLike<ResultLike<TRow[]>>;
  /** Rows per request. Default 100. */
  pageSize?: number;
  /** Pages kept mounted at most (the least recently wanted are dropped). Default 30. */
  maxPages?: number;
  /** Default true. */
  enabled?: boolean;
}

/** What {@link useRangeQuery} returns. */
export interface RangeQueryResult<TRow> {
  /** Total rows, from the first page's exact count; null before it arrives. */
  total: number | null;
  /** The row at `index`, or undefined while its page is loading. */
  rowAt(index: number): TRow | undefined;
  /** Tell which rows are on screen; their pages (and one either side) are fetched. */
  setVisibleRange(start: number, end: number): void;
  /** True until the first page has arrived. */
  isLoading: boolean;
  /** The error of any page that failed, else null. */
  error: Error | null;
  /** Refetch every page kept. */
  refetch(): void;
}

interface Page<TRow> {
  rows: TRow[];
  count: number | null;
}

/**
 * A long list fetched by ranges, for virtualised lists: only the pages around the visible rows
 * are requested, each cached on its own, so a 10,000-row folder renders at once and scrolls
 * without loading everything.
 *
 * @example
 * const list = useRangeQuery({
 *   queryKey: ['files', folderId, sort],
 *   fetchRange: (client, from, to) => client.from('files')
 *     .select('*', { count: 'exact' }).eq('folder_id', folderId).order('name').range(from, to),
 * });
 * // in the virtualiser: list.setVisibleRange(first, last); list.rowAt(i)
 */
export function useRangeQuery<TRow, TClient = unknown>(
  options: RangeQueryOptions<TRow, TClient>,
): RangeQueryResult<TRow> {
  const client = useBackendClient<TClient>();
  const pageSize = options.pageSize ?? 100;
  const maxPages = options.maxPages ?? 30;
  const keyHash = JSON.stringify(options.queryKey);
  const [wanted, setWanted] = useState<{ key: string; pages: number[] }>({
    key: keyHash,
    pages: [0],
  });
  // A new key (another folder, another sort) starts again from the first page.
  const pages = wanted.key === keyHash ? wanted.pages : [0];
  const { fetchRange, queryKey, enabled } = options;

  const results = useQueries({
    queries: pages.map((page) => ({
      queryKey: [...queryKey, 'range', pageSize, page],
      queryFn: async ({ signal }: { signal: AbortSignal }): Promise<Page<TRow>> => {
        const from = page * pageSize;
        const result = await fetchRange(client, from, from + pageSize - 1, signal, {
          count: page === 0,
        });
        // A page past the end (the list shrank since it was asked for) is empty, not an error.
        if ((result.error as { status?: unknown } | null)?.status === 416)
          return { rows: [], count: null };
        const rows = await unwrap(result);
        return { rows: rows ?? [], count: result.count ?? null };
      },
      enabled: enabled ?? true,
      placeholderData: (previous: Page<TRow> | undefined) => previous,
    })),
  });

  const byPage = useMemo(() => {
    const map = new Map<number, Page<TRow>>();
    pages.forEach((page, i) => {
      const data = results[i]?.data;
      if (data) map.set(page, data);
    });
    return map;
  }, [pages, results]);

  let total: number | null = null;
  let newest = -1;
  for (const result of results) {
    if (result.data && result.data.count !== null && result.dataUpdatedAt > newest) {
      newest = result.dataUpdatedAt;
      total = result.data.count;
    }
  }

  const totalRef = useRef(total);
  totalRef.current = total;
  // The pages asked for, read by setVisibleRange: a scroll step within them sets no state.
  const pagesRef = useRef(pages);
  pagesRef.current = pages;

  const setVisibleRange = useCallback(
    (start: number, end: number) => {
      // One page either side of what is visible, never past the end of a known total.
      const lastPage =
        totalRef.current === null
          ? Number.POSITIVE_INFINITY
          : Math.max(0, Math.ceil(totalRef.current / pageSize) - 1);
      const first = Math.min(lastPage, Math.max(0, Math.floor(start / pageSize) - 1));
      const last = Math.min(lastPage, Math.floor(Math.max(start, end) / pageSize) + 1);
      let known = true;
      for (let p = first; p <= last && known; p += 1) known = pagesRef.current.includes(p);
      if (known) return;
      setWanted((current) => {
        const base = current.key === keyHash ? current.pages : [0];
        const needed: number[] = [];
        for (let p = first; p <= last; p += 1) needed.push(p);
        if (needed.every((p) => base.includes(p))) return current;
        // The first page stays: it carries the total.
        const merged = [
          ...base.filter((p) => p !== 0 && !needed.includes(p)),
          ...needed.filter((p) => p !== 0),
        ];
        return { key: keyHash, pages: [0, ...merged.slice(-(maxPages - 1))] };
      });
    },
    [keyHash, pageSize, maxPages],
  );

  const rowAt = useCallback(
    (index: number) => byPage.get(Math.floor(index / pageSize))?.rows[index % pageSize],
    [byPage, pageSize],
  );

  const error = (results.find((r) => r.error)?.error as Error | undefined) ?? null;
  return {
    total,
    rowAt,
    setVisibleRange,
    isLoading: total === null && !error,
    error,
    refetch: () => {
      for (const result of results) void result.refetch();
    },
  };
}
