import { type ObjectBackend, type ObjectWriter, SizeLimitExceeded } from '../backends/index';
import { ERR } from '../errors';
import { cacheControlFrom, checkMime } from '../names';
import { multipartBoundary, parseMultipart } from './multipart';

/** An uploaded body, written (durably, not yet in place) and what the request said about it. */
export interface ReceivedFile {
  temp: ObjectWriter;
  size: number;
  md5: string;
  mimetype: string;
  cacheControl: string;
  userMetadata: Record<string, unknown> | null;
}

export interface ReceiveOptions {
  objects: ObjectBackend;
  /** Maximum bytes (bucket limit and global limit). */
  limit: number;
  allowedMimeTypes: readonly string[] | null;
}

const DRAIN_LIMIT = 64 * 1024 * 1024;

function parseMetadata(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {}
  throw ERR.invalidParameter('Invalid metadata: it must be a JSON object');
}

function decodeXMetadata(header: string): Record<string, unknown> {
  return parseMetadata(Buffer.from(header, 'base64').toString('utf8'));
}

/**
 * Reads the rest of a body we no longer need (so the client gets our answer rather than a
 * reset connection), up to a bound.
 */
export async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let drained = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      drained += value.byteLength;
      if (drained > DRAIN_LIMIT) {
        await reader.cancel();
        return;
      }
    }
  } catch {}
}

/** The body as an async iterable that stops at our request, leaving the reader for `drain`. */
function chunks(reader: ReadableStreamDefaultReader<Uint8Array>): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        const { done, value } = await reader.read();
        return done ? { done: true, value: undefined } : { done: false, value };
      },
    }),
  };
}

/**
 * Streams an upload body (multipart with the first file part, or a raw body) to the
 * object backend, enforcing the size and MIME limits; memory stays flat whatever the size.
 */
export async function receiveUpload(req: Request, options: ReceiveOptions): Promise<ReceivedFile> {
  const contentType = req.headers.get('content-type');
  const boundary = multipartBoundary(contentType);
  const declared = Number(req.headers.get('content-length') ?? Number.NaN);
  if (!boundary && Number.isFinite(declared) && declared > options.limit) {
    throw ERR.entityTooLarge();
  }
  let cacheControl = cacheControlFrom(req.headers.get('cache-control'));
  let mimetype = contentType ?? 'application/octet-stream';
  const xMetadata = req.headers.get('x-metadata');
  let userMetadata = !boundary && xMetadata ? decodeXMetadata(xMetadata) : null;
  if (!boundary) checkMime(mimetype, options.allowedMimeTypes);

  const exact = !boundary && Number.isFinite(declared) ? declared : undefined;
  const temp = await options.objects.createWriter(options.limit, exact);
  const reader = req.body?.getReader() ?? null;
  try {
    if (boundary) {
      if (!reader) throw ERR.invalidRequest('No file was provided');
      const fields = new Map<string, string>();
      let partType: string | null = null;
      let sawFile = false;
      await parseMultipart(chunks(reader), boundary, {
        onField: (name, value) => fields.set(name, value),
        onFile: async (info) => {
          if (sawFile) return null;
          sawFile = true;
          partType = info.contentType;
          return temp;
        },
      });
      if (!sawFile) throw ERR.invalidRequest('No file was provided');
      cacheControl = cacheControlFrom(fields.get('cacheControl') ?? null);
      mimetype = fields.get('contentType') || partType || 'application/octet-stream';
      const meta = fields.get('metadata') ?? fields.get('userMetadata');
      userMetadata = meta ? parseMetadata(meta) : null;
      checkMime(mimetype, options.allowedMimeTypes);
    } else if (reader) {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        await temp.write(value);
      }
    }
    const { size, md5 } = await temp.finish();
    // As the hosted service: an upload without metadata stores `{}`, not null.
    return { temp, size, md5, mimetype, cacheControl, userMetadata: userMetadata ?? {} };
  } catch (error) {
    await temp.discard();
    if (reader) await drain(reader);
    if (error instanceof SizeLimitExceeded) throw ERR.entityTooLarge();
    throw error;
  }
}
