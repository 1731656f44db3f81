/**
 * The download service worker: it answers `…/__zip/<id>` with a zip it builds as a stream
 * (see `zip-stream.ts`), so the browser's download manager writes it straight to disk — a
 * folder of gigabytes never sits in memory. The page posts the job (names, sizes and signed
 * URLs) first; a job is answered once, and forgotten after a minute if never asked for.
 *
 * Registered with the scope of its own folder (`/assets/`), so it never sees the app's pages
 * or requests, only its own download URLs.
 */
import { type ZipItem, zipResponse } from './zip-stream';

// The few service-worker types used here (the project's TypeScript lib is the DOM's).
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  respondWith(response: Response | Promise<Response>): void;
}
interface ServiceWorkerScope {
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  addEventListener(type: 'install', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void;
}
declare const self: ServiceWorkerScope;

interface Job {
  type: 'zip';
  id: string;
  name: string;
  items: ZipItem[];
  /** What an expired download URL says, in the page's language (the worker has no catalogue). */
  expired?: string;
}

const jobs = new Map<string, Job>();
let expired = 'This download has expired. Start it again.';

self.addEventListener('install', () => {
  void self.skipWaiting();
});
self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('message', (event) => {
  const job = event.data as Job | undefined;
  if (job?.type !== 'zip' || typeof job.id !== 'string' || !Array.isArray(job.items)) return;
  if (typeof job.expired === 'string') expired = job.expired;
  jobs.set(job.id, job);
  setTimeout(() => jobs.delete(job.id), 60_000);
  event.ports[0]?.postMessage({ ok: true });
});

self.addEventListener('fetch', (event) => {
  const match = /\/__zip\/([\w-]+)$/.exec(new URL(event.request.url).pathname);
  if (!match?.[1]) return;
  const job = jobs.get(match[1]);
  if (!job) {
    event.respondWith(new Response(expired, { status: 404 }));
    return;
  }
  jobs.delete(job.id);
  event.respondWith(zipResponse(job.items, job.name));
});
