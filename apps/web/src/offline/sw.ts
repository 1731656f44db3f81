/**
 * Drive's service worker (scope `/`), built by vite-plugin-pwa (`injectManifest`) with
 * Workbox:
 * - the shell (every built script, style and icon) is precached, so the app opens offline
 *   after one visit;
 * - pages are network-first: online, the page comes from the server every time (it carries
 *   `window.__DRIVE_BACKEND__`, injected by whatever serves it — `pnpm start` for its ports),
 *   and that answer is kept as the offline copy; offline, the last page served on this origin
 *   answers every route. The build's own `index.html` is never precached: it has no injection;
 * - recently opened previews: see `preview-cache.ts`.
 *
 * The download worker (`src/lib/zip-sw.ts`, scope `/assets/`) stays a worker of its own: a
 * navigation to `/assets/__zip/<id>` goes to the registration with the longest matching scope,
 * so it never reaches this one (see README, "Offline and installable").
 */
import { cleanupOutdatedCaches, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { PAGE_CACHE, PAGE_KEY } from './names';
import { answerPreview, isPreviewRequest } from './preview-cache';

declare const self: ServiceWorkerGlobalScope & {
  __WB_MANIFEST: Array<{ url: string; revision: string | null }>;
};

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

/** The page as this origin serves it (with its run-time backend settings), kept for offline. */
async function keepPage(response: Response): Promise<void> {
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok || !type.includes('text/html')) return;
  const cache = await caches.open(PAGE_CACHE);
  await cache.put(PAGE_KEY, response);
}

self.addEventListener('install', (event) => {
  // The first visit's page was loaded before this worker: fetch it again to keep it.
  event.waitUntil(
    fetch(PAGE_KEY, { cache: 'no-store' })
      .then(keepPage)
      .catch(() => {})
      .then(() => self.skipWaiting()),
  );
});
self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

registerRoute(
  new NavigationRoute(
    async ({ request }) => {
      try {
        const response = await fetch(request);
        await keepPage(response.clone()).catch(() => {});
        return response;
      } catch (error) {
        const cached = await caches.match(PAGE_KEY, { cacheName: PAGE_CACHE });
        if (cached) return cached;
        throw error;
      }
    },
    // The download worker's own URLs, and the backend's pages on other paths, are not ours.
    { denylist: [/^\/assets\//] },
  ),
);

registerRoute(({ request }) => isPreviewRequest(request), answerPreview);
