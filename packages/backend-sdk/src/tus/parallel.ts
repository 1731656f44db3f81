/**
 * Parallel uploads over tus's concatenation extension: the file is cut into parts on chunk
 * boundaries, each part is a partial upload sent in chunks side by side with the others,
 * and a final upload joins them on the server. While the parts are under way, the URL store
 * keeps `final;<part url> <part url> …` (the final upload's own header), so a reload resumes
 * every part from its server offset.
 */
import { UploadError } from './errors';
import {
  type ChunkBody,
  chunkLength,
  createUpload,
  headUpload,
  patchUpload,
  type TusFetch,
  tusFailure,
  tusRequest,
} from './protocol';
import { DEFAULT_CHUNK_SIZE, type ParallelParts, type PartsJob } from './upload-types';

const FINAL = 'final;';

/** True for what the URL store keeps while the parts of a parallel upload are under way. */
export const isPartsUrl = (url: string | undefined): url is string =>
  url?.startsWith(FINAL) === true;

/** The URLs of the parts named by a stored `final;…` value. */
export const partUrls = (url: string): string[] =>
  url.slice(FINAL.length).split(' ').filter(Boolean);

/** Byte ranges `[from, to)` of at most `parts` parts, cut on chunk boundaries. */
export function partRanges(size: number, chunk: number, parts: number) {
  const chunks = Math.ceil(size / chunk);
  const per = Math.ceil(chunks / Math.max(1, Math.min(parts, chunks))) * chunk;
  const ranges: { from: number; to: number }[] = [];
  for (let from = 0; from < size; from += per)
    ranges.push({ from, to: Math.min(size, from + per) });
  return ranges;
}

const asked = new WeakMap<TusFetch, Map<string, Promise<string[]>>>();

/**
 * The tus extensions the endpoint offers (its OPTIONS answer), asked once per client and
 * endpoint; a failed question is asked again next time.
 */
export function extensionsOf(fetch: TusFetch, endpoint: string, signal: AbortSignal) {
  let offered = asked.get(fetch);
  if (!offered) {
    offered = new Map();
    asked.set(fetch, offered);
  }
  let known = offered.get(endpoint);
  if (!known) {
    known = tusRequest(fetch, endpoint, 'OPTIONS', {}, signal, [200, 204]).then((res) =>
      (res.headers.get('Tus-Extension') ?? '').split(',').map((e) => e.trim()),
    );
    offered.set(endpoint, known);
    known.catch(() => offered.delete(endpoint));
  }
  return known.catch((): string[] => []);
}

interface Part {
  from: number;
  to: number;
  url?: string;
  offset: number;
}

/** Options of {@link parallelParts}. */
export interface ParallelPartsOptions {
  /**
   * Bytes per request of each part (default: the upload's `chunkSize`). Parts are only sent
   * to servers that offer concatenation, which the hosted backend, whose guide asks for 6 MiB
   * chunks, does not: there the upload's own `chunkSize` applies. Fewer, larger requests cost
   * less per byte; progress is reported per request.
   *
   * @example
   * parallelParts(3, { chunkSize: 12 * 1024 * 1024 });
   */
  chunkSize?: number;
}

/**
 * Uploads of a file of more than one part's chunk and a known size are sent as up to `count`
 * parts side by side, where the server offers tus's concatenation extension.
 *
 * @example
 * import { parallelParts } from '@app/backend-sdk/tus';
 * bucket.uploadResumable('videos/talk.mp4', file, { parallel: parallelParts(3) });
 */
export function parallelParts(count: number, options: ParallelPartsOptions = {}): ParallelParts {
  return {
    async send(given) {
      const chunkSize = options.chunkSize ?? given.chunkSize ?? DEFAULT_CHUNK_SIZE;
      const job = { ...given, chunkSize };
      const { source } = job;
      const stored = job.upload.url;
      const sized = job as typeof job & { source: { size: number } };
      const whole =
        !isPartsUrl(stored) &&
        (stored !== undefined ||
          count < 2 ||
          !source.seekable ||
          source.size === undefined ||
          source.size <= job.chunkSize);
      if (whole) return null;
      const extensions = await extensionsOf(job.fetch, job.endpoint, job.signal);
      if (!extensions.includes('concatenation')) {
        // Parts kept for a server that no longer offers them: the upload starts over, whole.
        if (isPartsUrl(stored)) job.upload.url = undefined;
        return null;
      }
      const parts = isPartsUrl(stored) ? partUrls(stored).length : count;
      return sendParts(sized, parts, extensions.includes('concatenation-unfinished'));
    },
  };
}

/**
 * Sends the parts (creating them, or resuming those of a stored `final;…` value) and joins
 * them. Resolves with the final upload's URL. A part the server no longer has, or a join it refuses for
 * want of a part, is an `upload_gone` error: the caller starts over.
 */
async function sendParts(
  job: PartsJob & { source: { size: number }; chunkSize: number },
  count: number,
  early: boolean,
): Promise<string> {
  const { fetch, headers, source, chunkSize, signal } = job;
  const ranges = partRanges(source.size, chunkSize, count);
  const parts: Part[] = ranges.map((r) => ({ ...r, offset: 0 }));
  const stored = job.upload.url;
  if (isPartsUrl(stored)) {
    const urls = partUrls(stored);
    if (urls.length !== parts.length) {
      throw new UploadError('The stored parts do not fit this file', { code: 'upload_gone' });
    }
    await Promise.all(
      parts.map(async (part, i) => {
        part.url = urls[i] as string;
        const head = await headUpload(fetch, part.url, headers, signal);
        if (head.length !== part.to - part.from) {
          throw new UploadError('A stored part does not fit this file', { code: 'upload_gone' });
        }
        part.offset = head.offset;
      }),
    );
  }
  /** `final;<part url> …`: what the store keeps, and the final upload's `Upload-Concat`. */
  const named = () => FINAL + parts.map((p) => p.url).join(' ');
  const report = () => {
    const bytes = parts.reduce((sum, p) => sum + p.offset, 0);
    const chunk = bytes - job.upload.bytes;
    job.upload.bytes = bytes;
    if (chunk !== 0) job.progress(chunk);
  };
  report();
  // One part failing stops the others; the caller retries from the server's offsets.
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal.addEventListener('abort', stop, { once: true });
  const read = async (part: Part): Promise<ChunkBody> =>
    (
      await source.read(
        part.from + part.offset,
        Math.min(part.to, part.from + part.offset + chunkSize),
      )
    ).data;
  // The error that stopped the parts: the others then fail with `aborted`, which must not
  // hide it (it decides whether the upload is retried).
  let first: { error: unknown } | undefined;
  const run = async (work: (part: Part) => Promise<void>) => {
    await Promise.allSettled(
      parts.map((part) =>
        work(part).catch((error: unknown) => {
          first ??= { error };
          stop();
          throw error;
        }),
      ),
    );
    if (first) throw signal.aborted ? signal.reason : first.error;
  };
  /** Creates the final upload (404: a part is gone, and the upload starts over). */
  const join = async (): Promise<string> => {
    const concat = named();
    let res: Response;
    try {
      res = await tusRequest(
        fetch,
        job.endpoint,
        'POST',
        { ...job.creation, 'Upload-Concat': concat },
        signal,
        [201],
      );
    } catch (error) {
      const status = (error as UploadError).status;
      if (status === 404) {
        throw new UploadError((error as UploadError).message, { status, code: 'upload_gone' });
      }
      throw error;
    }
    const location = res.headers.get('Location');
    if (!location) throw await tusFailure(res, 'POST');
    return new URL(location, job.endpoint).href;
  };
  let final: string | undefined;
  try {
    if (!isPartsUrl(stored)) {
      await run(async (part) => {
        // Sent before the parts' bytes where the server takes it (`concatenation-unfinished`):
        // the parts then write straight into the final upload, with nothing to join after.
        const created = await createUpload(
          fetch,
          job.endpoint,
          { ...job.creation, 'Upload-Concat': 'partial' },
          controller.signal,
          part.to - part.from,
          early ? undefined : await read(part),
        );
        part.url = created.url;
        part.offset = created.offset;
        report();
      });
      job.upload.url = named();
      job.created(job.upload.url);
    }
    if (early) final = await join();
    await run(async (part) => {
      while (part.offset < part.to - part.from) {
        const at = part.offset;
        const body = await read(part);
        part.offset = await patchUpload(
          fetch,
          part.url as string,
          headers,
          controller.signal,
          at,
          body,
        );
        if (part.offset <= at && chunkLength(body) > 0) {
          throw new UploadError('The server accepted no bytes', {
            status: 0,
            code: 'network_error',
          });
        }
        report();
      }
    });
  } finally {
    signal.removeEventListener('abort', stop);
  }
  // With `concatenation-unfinished`, the request that completed the last part committed the
  // object; otherwise the final upload joins the parts now.
  job.upload.url = final ?? (await join());
  return job.upload.url;
}
