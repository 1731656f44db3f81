/**
 * Chunk sources for resumable uploads. A source hands out byte ranges on demand and never
 * holds the whole file: random-access sources (Blob, File) read each range from the
 * underlying file, a file path (Node) hands out ranges that are read from disk as they are
 * sent; sequential sources (ReadableStream, Node Readable, any async iterable) keep only the
 * bytes not yet acknowledged by the server plus what was read ahead.
 */
import type { StreamedBody } from '../http/index';

/** What an upload can be made of. A string is a file path (Node only). */
export type UploadSource =
  | Blob
  | ArrayBuffer
  | ArrayBufferView
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>
  | string;

/** Identity of a source, used to fingerprint it for resuming. */
export interface SourceInfo {
  /** File name (or path), `''` when unknown. */
  name: string;
  /** MIME type, `''` when unknown. */
  type: string;
  /** Size in bytes, `undefined` for a stream of unknown length. */
  size: number | undefined;
  /** Last modification time in ms, 0 when unknown. */
  lastModified: number;
}

/** A source of chunks for the upload engine. */
export interface ChunkSource extends SourceInfo {
  /**
   * Bytes `[start, end)`, fewer at the end of the data. `last` is true when no byte follows
   * the returned ones. Sequential sources only serve ranges at or after the last release.
   * The bytes stay valid until the read after next (a source may reuse two buffers in turn).
   * A file path's source returns a {@link StreamedBody}: the range, read from the file when
   * it is sent.
   */
  read(
    start: number,
    end: number,
  ): Promise<{ data: Uint8Array | Blob | StreamedBody; last: boolean }>;
  /** The server has everything before `offset`: a sequential source may drop those bytes. */
  release(offset: number): void;
  /** False when a range before the last release can no longer be read (streams). */
  readonly seekable: boolean;
  /** Frees the underlying resources. */
  close(): void;
}

/** A random-access source: `range` reads bytes `[start, end)` clamped to the size. */
const seekable = (
  info: SourceInfo & { size: number },
  range: (start: number, end: number) => Promise<Uint8Array | Blob>,
  close = () => {},
): ChunkSource => ({
  ...info,
  seekable: true,
  async read(start, end) {
    const stop = Math.min(end, info.size);
    return { data: await range(start, stop), last: stop >= info.size };
  },
  release() {},
  close,
});

/**
 * A sequential source over an async iterator of byte pieces. Keeps the pieces from the last
 * released offset on; a read past the buffered bytes pulls more pieces.
 */
const iteratorSource = (
  iterator: AsyncIterator<Uint8Array>,
  size: number | undefined,
  cancel: () => void,
): ChunkSource => {
  let pieces: Uint8Array[] = [];
  let base = 0; // offset of pieces[0][0]
  let buffered = 0; // bytes in pieces
  let ended = false;
  // The two chunk buffers handed out in turn: the chunk being sent and the one read ahead.
  const pool: Uint8Array[] = [];
  let turn = 0;
  const holds = (t: number) => pieces.some((p) => p.buffer === pool[t]?.buffer);
  const pull = async (): Promise<boolean> => {
    if (ended) return false;
    const { done, value } = await iterator.next();
    if (done) {
      ended = true;
      return false;
    }
    const piece = typeof value === 'string' ? new TextEncoder().encode(value) : value;
    if (piece.length) {
      pieces.push(piece);
      buffered += piece.length;
    }
    return true;
  };
  const drop = (offset: number): void => {
    while (pieces.length && base + (pieces[0] as Uint8Array).length <= offset) {
      const first = pieces.shift() as Uint8Array;
      base += first.length;
      buffered -= first.length;
    }
    const first = pieces[0];
    if (first && base < offset) {
      pieces[0] = first.subarray(offset - base);
      buffered -= offset - base;
      base = offset;
    }
  };
  return {
    name: '',
    type: '',
    size,
    lastModified: 0,
    seekable: false,
    async read(start, end) {
      if (start < base) throw new RangeError('stream bytes before the last release are gone');
      // `<=` pulls one piece past the range, so `last` is known at an exact boundary.
      while (base + buffered <= end && (await pull()));
      const stop = Math.min(end, base + buffered);
      const length = Math.max(0, stop - start);
      // The range goes to the pool buffer that holds no byte kept for a retry; only when both
      // do (a retry before the server acknowledged anything) does it get a buffer of its own.
      turn ^= 1;
      if (holds(turn)) turn ^= 1;
      if (!holds(turn) && (pool[turn]?.length ?? -1) < length) pool[turn] = new Uint8Array(length);
      const data = holds(turn)
        ? new Uint8Array(length)
        : (pool[turn] as Uint8Array).subarray(0, length);
      // The range becomes one piece, so its bytes are held once, not twice.
      const before: Uint8Array[] = [];
      const after: Uint8Array[] = [];
      let at = base;
      for (const piece of pieces) {
        const next = at + piece.length;
        if (at < start) before.push(piece.subarray(0, Math.min(piece.length, start - at)));
        const from = Math.max(start, at);
        const to = Math.min(stop, next);
        if (to > from) data.set(piece.subarray(from - at, to - at), from - start);
        if (next > stop) after.push(piece.subarray(Math.max(0, stop - at)));
        at = next;
      }
      pieces = data.length ? [...before, data, ...after] : [...before, ...after];
      return { data, last: ended && start + data.length >= base + buffered };
    },
    release(offset) {
      drop(offset);
    },
    close() {
      pieces = [];
      cancel();
    },
  };
};

const readerIterator = (stream: ReadableStream<Uint8Array>): AsyncIterator<Uint8Array> => {
  const reader = stream.getReader();
  return {
    next: () => reader.read() as Promise<IteratorResult<Uint8Array>>,
    return: async () => {
      await reader.cancel().catch(() => {});
      return { done: true, value: undefined };
    },
  };
};

/** The SDK's Node-only parts (`@app/backend-sdk/node`). */
type NodeParts = typeof import('../node/index');

// A computed specifier, so that bundlers leave the module out of browser builds.
const NODE = '@app/backend-sdk/node';
let nodeParts: Promise<NodeParts | undefined> | undefined;

/**
 * Loads the SDK's Node-only parts once; undefined outside Node (browsers, workers), or when
 * the module cannot be resolved (the SDK bundled into a Node app): uploads then use fetch.
 */
export const loadNode = (): Promise<NodeParts | undefined> =>
  (nodeParts ??=
    typeof window === 'undefined' &&
    (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node
      ? import(/* @vite-ignore */ NODE).catch(() => undefined)
      : Promise.resolve(undefined));

/**
 * Turns what the caller passed into a chunk source. `size` gives the length of a stream
 * when known (otherwise the upload defers its length).
 *
 * @example
 * const source = await openSource(file);                     // Blob / File
 * const source = await openSource('/tmp/video.mp4');         // Node: a file path
 * const source = await openSource(fs.createReadStream(p), { size });
 */
export async function openSource(
  input: UploadSource,
  options: { size?: number; name?: string } = {},
): Promise<ChunkSource> {
  const name = options.name ?? '';
  if (typeof input === 'string') {
    // Chunks stay on disk and are read as they are sent (Node, with @app/backend-sdk/node).
    const node = await loadNode();
    if (!node) throw new TypeError('A file path can be uploaded in Node only');
    return node.openFile(input, options);
  }
  if (typeof Blob !== 'undefined' && input instanceof Blob) {
    const file = input as Partial<File>;
    const info = {
      name: name || file.name || '',
      type: input.type,
      size: input.size,
      lastModified: file.lastModified ?? 0,
    };
    // In a browser the slice itself is the body: the browser reads it from the file as it
    // sends it, off the main thread. Bytes read into memory first are copied on the main
    // thread by fetch (100–300 ms per 6 MiB chunk measured in Chromium: the page froze).
    const inPage =
      typeof document !== 'undefined' &&
      !(globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
    return seekable(info, async (start, end) =>
      inPage
        ? input.slice(start, end)
        : new Uint8Array(await input.slice(start, end).arrayBuffer()),
    );
  }
  if (input instanceof ArrayBuffer || ArrayBuffer.isView(input)) {
    const bytes = ArrayBuffer.isView(input)
      ? new Uint8Array(input.buffer, input.byteOffset, input.byteLength)
      : new Uint8Array(input);
    return seekable({ name, type: '', size: bytes.length, lastModified: 0 }, async (start, end) =>
      bytes.subarray(start, end),
    );
  }
  const iterator =
    typeof (input as ReadableStream).getReader === 'function'
      ? readerIterator(input as ReadableStream<Uint8Array>)
      : (input as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  const source = iteratorSource(iterator, options.size, () => {
    iterator.return?.()?.catch(() => {});
    (input as { destroy?: () => void }).destroy?.();
  });
  source.name = options.name ?? (input as { path?: string }).path?.toString() ?? '';
  return source;
}
