/**
 * The last listings seen, for reading offline: the query cache's folder and file lists
 * (and what the Files screen needs with them) are kept in IndexedDB per user, and put back
 * into the cache when the app starts — online too, where the network's answers replace them
 * as they arrive (a kept answer never replaces a newer one). Forgotten on sign-out, and
 * whenever another user signs in on this browser (previews too: `forgetOffline`).
 */
import { type DehydratedState, dehydrate, hydrate, type QueryClient } from '@tanstack/react-query';
import { PREVIEW_CACHE } from './names';
import { forgetOthers, read, write } from './store';

/** The first part of the query keys kept (see `lib/api.ts`, `keys`). */
const KEPT = new Set([
  'folders',
  'folders-all',
  'folder',
  'files',
  'usage',
  'views',
  'grants',
  'profile',
  'preview-url',
]);
/** At most this many queries are kept (the newest). */
const MAX_QUERIES = 400;
const SAVE_DELAY = 1000;

interface Kept {
  savedAt: number;
  state: DehydratedState;
}

type KeptQuery = DehydratedState['queries'][number];

/**
 * The kept queries brought up to date with the cache's successful ones (the newest answer
 * wins). Queries the cache no longer holds, or whose refetch failed (offline), stay as kept.
 */
function merge(kept: Map<string, KeptQuery>, queryClient: QueryClient): Kept {
  const fresh = dehydrate(queryClient, {
    shouldDehydrateQuery: (q) =>
      q.state.status === 'success' && KEPT.has(String(q.queryKey[0])) && q.state.data !== undefined,
  });
  for (const found of fresh.queries) {
    // The answer only: a failed refetch's error may not be storable (and is not wanted).
    const q: KeptQuery = {
      ...found,
      state: { ...found.state, error: null, fetchFailureReason: null, fetchFailureCount: 0 },
    };
    const before = kept.get(q.queryHash);
    if (!before || before.state.dataUpdatedAt <= q.state.dataUpdatedAt) kept.set(q.queryHash, q);
  }
  const queries = [...kept.values()]
    .sort((a, b) => b.state.dataUpdatedAt - a.state.dataUpdatedAt)
    .slice(0, MAX_QUERIES);
  kept.clear();
  for (const q of queries) kept.set(q.queryHash, q);
  return { savedAt: Date.now(), state: { mutations: [], queries } };
}

let saveNow: (() => void) | null = null;

/** Keeps the listings now, not a second later (a change made offline: the tab may close). */
export function keepListingsNow(): void {
  saveNow?.();
}

/**
 * Puts `userId`'s kept listings into the cache, then keeps them current (saved a second after
 * the cache changes). Returns the stop function.
 */
export function keepListings(queryClient: QueryClient, userId: string): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // A text preview reads its file even offline: the service worker may have it
  // (preview-cache.ts); by default a query would wait for the network instead.
  queryClient.setQueryDefaults(['preview-text'], { networkMode: 'offlineFirst' });
  // Another user's copies (signed out without the button, e.g. expired): gone, previews too.
  void forgetOthers('listings', userId).then((forgot) => {
    if (forgot > 0) void globalThis.caches?.delete(PREVIEW_CACHE).catch(() => false);
  });
  const kept = new Map<string, KeptQuery>();
  const loaded = read<Kept>('listings', userId).then((saved) => {
    if (stopped || !saved?.state) return;
    for (const q of saved.state.queries) kept.set(q.queryHash, q);
    hydrate(queryClient, saved.state);
  });
  const save = () => {
    clearTimeout(timer);
    timer = undefined;
    void loaded.then(() => {
      if (!stopped) void write('listings', userId, merge(kept, queryClient));
    });
  };
  // At most a second after the first change not kept yet (not reset by later ones), and when
  // the page goes away.
  const unsubscribe = queryClient.getQueryCache().subscribe((event) => {
    if (event.type !== 'updated' || event.action.type !== 'success') return;
    if (!KEPT.has(String(event.query.queryKey[0]))) return;
    timer ??= setTimeout(save, SAVE_DELAY);
  });
  const onHide = () => {
    if (timer !== undefined) save();
  };
  addEventListener('pagehide', onHide);
  saveNow = save;
  return () => {
    if (saveNow === save) saveNow = null;
    stopped = true;
    clearTimeout(timer);
    removeEventListener('pagehide', onHide);
    unsubscribe();
  };
}

/**
 * Forgets what was kept for reading offline (sign-out): the listings and the previews. Changes
 * made offline and not sent yet stay, under the user's id, until that user is back.
 */
export async function forgetOffline(): Promise<void> {
  await Promise.all([
    forgetOthers('listings', null),
    globalThis.caches?.delete(PREVIEW_CACHE).catch(() => false),
  ]);
}
