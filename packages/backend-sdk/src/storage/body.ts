/**
 * Request bodies of plain uploads: every supported input becomes a fetch body, optionally
 * counted as it is sent so `onUploadProgress` can report. A FormData body goes as multipart
 * (the official client's form upload).
 */

/** What a plain upload accepts. */
export type FileBody =
  | Blob
  | ArrayBuffer
  | ArrayBufferView
  | string
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>
  | FormData;

/** Upload progress of a plain upload. */
export interface TransferProgress {
  loaded: number;
  /** Total bytes, `undefined` for a stream. */
  total: number | undefined;
}

/** The MIME type a body implies when the caller gives none. */
export const bodyType = (body: FileBody): string =>
  typeof body === 'string'
    ? 'text/plain;charset=UTF-8'
    : (typeof Blob !== 'undefined' && body instanceof Blob && body.type) ||
      'application/octet-stream';

const isStream = (body: FileBody): body is ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> =>
  body instanceof ReadableStream || Symbol.asyncIterator in Object(body);

const toStream = (body: FileBody): ReadableStream<Uint8Array> => {
  if (body instanceof ReadableStream) return body;
  if (!isStream(body)) return new Blob([body as BlobPart]).stream();
  const iterator = body[Symbol.asyncIterator]();
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(typeof value === 'string' ? new TextEncoder().encode(value) : value);
    },
    cancel: () => void iterator.return?.(),
  });
};

/**
 * The fetch body for an upload. Fixed-size bodies go as they are, unless progress is asked
 * for; streams and progress go as a (counted) ReadableStream.
 */
export function toBody(
  body: FileBody,
  onProgress?: (progress: TransferProgress) => void,
): BodyInit {
  // A form goes as it is (no progress: fetch encodes it).
  if (typeof FormData !== 'undefined' && body instanceof FormData) return body;
  const stream = isStream(body);
  if (!onProgress && !stream) return body as BodyInit;
  const total = stream ? undefined : new Blob([body as BlobPart]).size;
  const reader = toStream(body).getReader();
  let loaded = 0;
  let rest: Uint8Array = new Uint8Array(0);
  onProgress?.({ loaded, total });
  return new ReadableStream<Uint8Array>({
    // One piece of at most 64 KiB per pull, so progress follows what the network takes.
    async pull(controller) {
      if (!rest.length) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        rest = value;
      }
      const piece = rest.subarray(0, 65536);
      rest = rest.subarray(piece.length);
      controller.enqueue(piece);
      loaded += piece.length;
      onProgress?.({ loaded, total });
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
