import { availableParallelism } from 'node:os';
import type { ObjectBackend } from '../backends/index';
import type { StorageContext, StorageRequest } from '../context';
import { ERR } from '../errors';
import {
  callerLookup,
  contentDisposition,
  type Lookup,
  publicLookup,
  signedLookup,
} from '../http/download';
import type { ObjectRow } from '../objects';
import {
  chooseFormat,
  type FormatChoice,
  type ImageLimits,
  isRaster,
  OUTPUT_TYPES,
  RENDER_ERRORS,
  type Rendered,
  renderImage,
  SourceGone,
} from './image';
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

/** All the bytes of a stream (a source image, bounded by `maxSourceBytes`). */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * The input for sharp: the file's path for the raster formats when the backend keeps a local
 * file (libvips then reads it on its own threads), else its bytes. An SVG must never be read
 * from its path: librsvg would let it embed files beside it, which are other objects' bytes.
 */
async function sourceOf(
  s: StorageContext,
  limits: ImageLimits,
  row: ObjectRow,
): Promise<string | Buffer> {
  const file = await s.objects.open(row.version);
  const size = row.metadata?.size ?? file.size;
  if (size > limits.maxSourceBytes) {
    await file.close();
    throw RENDER_ERRORS.tooLarge();
  }
  const path = s.objects.localPath(row.version);
  if (!path) return readAll(file.stream(0, size));
  const head = await readAll(file.stream(0, Math.min(16, size)));
  if (isRaster(head)) return path;
  return readAll((await s.objects.open(row.version)).stream(0, size));
}

/**
 * Renders the version `row` names. When its file is gone (replaced or deleted since the
 * lookup), the object is looked up again, as a download does.
 */
async function renderRow(
  s: StorageContext,
  renderer: Renderer,
  lookup: Lookup,
  first: ObjectRow,
  t: Transform,
  choice: FormatChoice,
): Promise<{ row: ObjectRow; out: Rendered }> {
  let row: ObjectRow | null = first;
  for (let attempt = 0; attempt < 3 && row?.version; attempt++) {
    const current: ObjectRow = row;
    try {
      const input = await sourceOf(s, renderer.limits, current);
      const out = await renderer.slots.run(() => renderImage(input, t, choice, renderer.limits));
      return { row: current, out };
    } catch (error) {
      const gone =
        error instanceof SourceGone || (error as NodeJS.ErrnoException).code === 'ENOENT';
      if (!gone) throw error;
      row = await lookup();
    }
  }
  throw ERR.noSuchKey();
}

const stillStored = (objects: ObjectBackend, version: string) => () =>
  objects.exists(version).catch(() => false);

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
        const { row: found, out } = await renderRow(s, renderer, lookup, row, t, choice);
        source = found;
        // Stored while the answer goes out; a failed write only means a later render.
        renderer.cache
          .put(found.version, variant, out, stillStored(s.objects, found.version))
          .catch(() => {});
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
