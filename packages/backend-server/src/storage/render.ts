import { availableParallelism } from 'node:os';
import type { StorageContext, StorageRequest } from './context';
import type { DiskStore } from './disk';
import {
  callerLookup,
  contentDisposition,
  type Lookup,
  openObject,
  publicLookup,
  signedLookup,
} from './download';
import { ERR } from './errors';
import {
  chooseFormat,
  type ImageLimits,
  OUTPUT_TYPES,
  RENDER_ERRORS,
  type Rendered,
  renderImage,
} from './image';
import type { ObjectRow } from './objects';
import type { RenderCache } from './render-cache';
import {
  clampTransform,
  describeTransform,
  type RenderLimits,
  type Transform,
  transformFromClaim,
  transformFromQuery,
} from './transform';

/** Everything the render endpoints need besides the storage context. */
export interface Renderer {
  cache: RenderCache;
  limits: ImageLimits & RenderLimits;
  /** Renders in progress, by variant: concurrent requests for one variant share a render. */
  flights: Map<string, Promise<Rendered>>;
  /** At most this many renders at once (libvips uses its own threads for each). */
  slots: Slots;
}

/** A counting semaphore. */
export class Slots {
  private waiting: Array<() => void> = [];
  private used = 0;

  constructor(private readonly size: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.used >= this.size) await new Promise<void>((r) => this.waiting.push(r));
    else this.used++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.used--;
    }
  }
}

export function createRenderer(cache: RenderCache, limits: Renderer['limits']): Renderer {
  return { cache, limits, flights: new Map(), slots: new Slots(availableParallelism()) };
}

/** Reads a whole version into memory (sources are small: the size limit is checked first). */
async function readSource(s: StorageContext, limits: ImageLimits, lookup: Lookup, row: ObjectRow) {
  let opened: Awaited<ReturnType<typeof openObject>>;
  try {
    opened = { row, file: await s.disk.openVersion(row.version) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    // Replaced meanwhile: look it up again, as a download does.
    opened = await openObject(s, lookup);
  }
  try {
    const { size } = await opened.file.stat();
    if (size > limits.maxSourceBytes) throw RENDER_ERRORS.tooLarge();
    const data = Buffer.allocUnsafe(size);
    let at = 0;
    while (at < size) {
      const { bytesRead } = await opened.file.read(data, at, size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return { row: opened.row, data: data.subarray(0, at) };
  } finally {
    await opened.file.close().catch(() => {});
  }
}

const stillStored = (disk: DiskStore, version: string) => () =>
  disk.openVersion(version).then(
    async (file) => {
      await file.close();
      return true;
    },
    () => false,
  );

/**
 * Serves a rendered variant of the object `lookup` finds (the lookup is where access is
 * decided, exactly as for a download): from the cache, or rendered now and cached.
 */
async function serveRendered(
  s: StorageContext,
  r: StorageRequest,
  renderer: Renderer,
  lookup: Lookup,
  requested: Transform,
  extra: Record<string, string> = {},
): Promise<Response> {
  const row = await lookup();
  if (!row?.version) throw ERR.noSuchKey();
  const t = clampTransform(requested, renderer.limits);
  const choice = chooseFormat(t, r.req.headers.get('accept'));
  const described = describeTransform(t);
  const variant = `${described}|${choice}`;
  let rendered = await renderer.cache.get(row.version, variant);
  let source = row;
  if (!rendered) {
    const flightKey = `${row.version}|${variant}`;
    let flight = renderer.flights.get(flightKey);
    if (!flight) {
      flight = (async () => {
        const { row: found, data } = await readSource(s, renderer.limits, lookup, row);
        source = found;
        const out = await renderer.slots.run(() => renderImage(data, t, choice, renderer.limits));
        await renderer.cache.put(found.version, variant, out, stillStored(s.disk, found.version));
        return out;
      })().finally(() => renderer.flights.delete(flightKey));
      renderer.flights.set(flightKey, flight);
    }
    rendered = await flight;
  }
  const meta = source.metadata;
  const headers: Record<string, string> = {
    'content-type': OUTPUT_TYPES[rendered.format],
    'content-length': String(rendered.data.byteLength),
    'accept-ranges': 'bytes',
    'x-robots-tag': 'none',
    'last-modified': new Date(meta?.lastModified ?? source.updated_at).toUTCString(),
    vary: 'Accept',
    ...(meta?.eTag ? { etag: meta.eTag } : {}),
    ...(extra.expires ? {} : { 'cache-control': meta?.cacheControl ?? 'no-cache' }),
    ...extra,
  };
  if (described) headers['x-transformations'] = described;
  const download = r.query.get('download');
  if (download !== null) headers['content-disposition'] = contentDisposition(download);
  const { data } = rendered;
  const body =
    r.req.method === 'HEAD'
      ? null
      : new Uint8Array(data.buffer as ArrayBuffer, data.byteOffset, data.byteLength);
  return new Response(body, { status: 200, headers });
}

/**
 * GET/HEAD /render/image/{authenticated|public|sign}/:bucket/:key — a transformed image,
 * with the access rules of the matching download route.
 */
export async function renderRoute(
  s: StorageContext,
  r: StorageRequest,
  access: string,
  bucket: string,
  key: string,
): Promise<Response> {
  const renderer = s.render;
  if (!renderer) throw ERR.notFoundRoute(r.req.method, r.path);
  if (access === 'authenticated') {
    const transform = transformFromQuery(r.query);
    return serveRendered(s, r, renderer, await callerLookup(s, r, bucket, key), transform);
  }
  if (access === 'public') {
    const transform = transformFromQuery(r.query);
    return serveRendered(s, r, renderer, publicLookup(bucket, key, s), transform);
  }
  // Signed: the options are the ones in the token, whatever the query says.
  const { lookup, expires, claims } = await signedLookup(s, r, bucket, key);
  return serveRendered(s, r, renderer, lookup, transformFromClaim(claims.transformations), {
    expires,
  });
}
