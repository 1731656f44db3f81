/**
 * Registers the app-wide service worker (`/sw.js`, built from `sw.ts`): loaded lazily by
 * `main.tsx` once the page has loaded, so it never delays the first paint. Not in the dev
 * server (no worker is built there) nor where there is no service worker.
 */
export function registerServiceWorker(): void {
  if (import.meta.env.DEV || !('serviceWorker' in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((error: unknown) => {
    console.warn('Offline use is off: the service worker did not register.', error);
  });
}
