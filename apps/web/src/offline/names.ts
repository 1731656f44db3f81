/** Cache names shared by the service worker and the page (sign-out clears them). */
export const PAGE_CACHE = 'drive-page';
/** The key of the offline copy of the page: the site's root, as the server answers it. */
export const PAGE_KEY = '/';
/** Recently opened previews (see `preview-cache.ts`). */
export const PREVIEW_CACHE = 'drive-previews';
