/**
 * Recently opened previews, kept for offline (in the service worker). A preview reads its
 * file through a short-lived signed URL (`/storage/v1/object/sign/<bucket>/<path>?token=…`);
 * the bytes are kept under the URL without its token (a new version of a file is a new
 * object path, so an old copy never stands for a new version).
 *
 * Budget: {@link PREVIEW_BUDGET} bytes in all, files of at most {@link PREVIEW_FILE_LIMIT}
 * bytes; the least recently opened go first (LRU). Online, the network answers and the copy
 * is refreshed; offline, the copy answers. Only whole files are kept (a 200, or a 206 whose
 * range is the whole file — the text preview asks for its first 256 KiB), never parts of a
 * video. PDFs open in a frame of the backend's own origin, which no worker of this site sees.
 */
import { PREVIEW_CACHE } from './names';

/** All kept previews together: 50 MiB. */
export const PREVIEW_BUDGET = 50 * 1024 * 1024;
/** The largest file kept: 10 MiB. */
export const PREVIEW_FILE_LIMIT = 10 * 1024 * 1024;
const INDEX = '/__drive-preview-index';

interface Kept {
  size: number;
  used: number;
}
type Index = Record<string, Kept>;

/** A preview's read of a stored file (not a download: those carry `download=`). */
export function isPreviewRequest(request: Request): boolean {
  if (request.method !== 'GET') return false;
  const url = new URL(request.url);
  return url.pathname.includes('/storage/v1/object/sign/') && !url.searchParams.has('download');
}

const keyOf = (url: string) => {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
};

// Index updates run one after another.
let chain: Promise<unknown> = Promise.resolve();
function serial<T>(task: () => Promise<T>): Promise<T> {
  const next = chain.then(task, task);
  chain = next.catch(() => {});
  return next;
}

async function readIndex(cache: Cache): Promise<Index> {
  const res = await cache.match(INDEX);
  return res ? ((await res.json()) as Index) : {};
}
const writeIndex = (cache: Cache, index: Index) =>
  cache.put(
    INDEX,
    new Response(JSON.stringify(index), { headers: { 'content-type': 'application/json' } }),
  );

/** Keeps `body` under `key` and evicts the least recently used beyond the budget. */
async function keep(key: string, body: Blob, type: string): Promise<void> {
  if (body.size > PREVIEW_FILE_LIMIT) return;
  await serial(async () => {
    const cache = await caches.open(PREVIEW_CACHE);
    await cache.put(key, new Response(body, { headers: { 'content-type': type } }));
    const index = await readIndex(cache);
    index[key] = { size: body.size, used: Date.now() };
    let total = Object.values(index).reduce((sum, k) => sum + k.size, 0);
    for (const [old] of Object.entries(index).sort((a, b) => a[1].used - b[1].used)) {
      if (total <= PREVIEW_BUDGET) break;
      total -= index[old]?.size ?? 0;
      delete index[old];
      await cache.delete(old);
    }
    await writeIndex(cache, index);
  });
}

async function touch(key: string): Promise<void> {
  await serial(async () => {
    const cache = await caches.open(PREVIEW_CACHE);
    const index = await readIndex(cache);
    const kept = index[key];
    if (!kept) return;
    kept.used = Date.now();
    await writeIndex(cache, index);
  });
}

/** The whole file's size when `response` holds all of it, else null. */
function wholeSize(response: Response): number | null {
  if (response.status === 200) return Number(response.headers.get('content-length') ?? Number.NaN);
  if (response.status !== 206) return null;
  const m = /^bytes 0-(\d+)\/(\d+)$/.exec(response.headers.get('content-range') ?? '');
  return m && Number(m[1]) + 1 === Number(m[2]) ? Number(m[2]) : null;
}

/** Answers a preview's read: the network (and keeps a copy), else the kept copy. */
export async function answerPreview({ request }: { request: Request }): Promise<Response> {
  const key = keyOf(request.url);
  const range = request.headers.get('range');
  try {
    // CORS, so the answer can be read and kept (an image element asks without it).
    const response = await fetch(request.url, {
      mode: 'cors',
      credentials: 'omit',
      headers: range ? { range } : {},
    });
    const size = wholeSize(response);
    if (size !== null && !(size > PREVIEW_FILE_LIMIT)) {
      const type = response.headers.get('content-type') ?? 'application/octet-stream';
      void response
        .clone()
        .blob()
        .then((body) => keep(key, body, type))
        .catch(() => {});
    }
    return response;
  } catch (error) {
    const cache = await caches.open(PREVIEW_CACHE);
    const kept = await cache.match(key);
    if (!kept) throw error;
    void touch(key);
    return kept;
  }
}
