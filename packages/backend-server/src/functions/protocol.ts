/**
 * Messages between the server and a function worker (node:worker_threads). Bodies move
 * chunk by chunk on demand in both directions (the reader asks, the other side answers
 * with one chunk), so a request or response body is never buffered whole and a slow
 * reader slows the writer down.
 */

/** What the worker needs to boot. */
export interface WorkerBoot {
  /** file:// URL of the function's compiled bundle. */
  bundleUrl: string;
  /** The function's directory (relative file reads and `Deno.cwd()`). */
  functionDir: string;
  name: string;
}

/** Server → worker. */
export type ToWorker =
  | {
      t: 'req';
      id: number;
      method: string;
      url: string;
      headers: [string, string][];
      /** null: no body. Otherwise the chunks already at hand, and whether that was all. */
      body: Available | null;
      remote: { hostname: string; port: number };
    }
  /** One request-body chunk, answering `pull-body`. */
  | { t: 'body'; id: number; chunk: Uint8Array }
  | { t: 'body-end'; id: number }
  /** Asks for the next response-body chunk. */
  | { t: 'pull'; id: number }
  /** The client went away: abort the request, cancel the response body. */
  | { t: 'cancel'; id: number }
  /** The WebSocket handshake with the client is done: the function's socket opens. */
  | { t: 'ws-open'; id: number }
  /** A frame from the client (text as a string, binary as bytes, transferred). */
  | { t: 'ws-message'; id: number; data: WsData }
  /** `bytes` of the function's frames were handed to the client's connection. */
  | { t: 'ws-sent'; id: number; bytes: number }
  /** The connection ended (either side closed it, or it broke: 1006). */
  | { t: 'ws-closed'; id: number; code: number; reason: string; wasClean: boolean };

/** Worker → server. */
export type FromWorker =
  | { t: 'ready' }
  | { t: 'boot-error'; message: string }
  | { t: 'pull-body'; id: number }
  | {
      t: 'head';
      id: number;
      status: number;
      statusText: string;
      headers: [string, string][];
      /** null: no body. Otherwise the chunks already at hand, and whether that was all. */
      body: Available | null;
    }
  | { t: 'chunk'; id: number; chunk: Uint8Array }
  | { t: 'end'; id: number }
  /** The handler threw, rejected or returned something that is not a Response. */
  | { t: 'error'; id: number; message: string }
  /** Reading the response body failed after the head was sent. */
  | { t: 'stream-error'; id: number; message: string }
  /** The function answered with the response of `Deno.upgradeWebSocket`. */
  | { t: 'ws-accept'; id: number; protocol: string; idleTimeoutMs: number }
  /** A frame for the client. */
  | { t: 'ws-send'; id: number; data: WsData }
  /** `bytes` of the client's frames were dispatched to the function (flow control). */
  | { t: 'ws-received'; id: number; bytes: number }
  /** The function closed its socket. */
  | { t: 'ws-close'; id: number; code: number | undefined; reason: string }
  /** The function called `Deno.upgradeHttp` (connection upgrades other than WebSocket). */
  | { t: 'upgrade-unsupported'; id: number };

/** A WebSocket frame's payload: text, or binary bytes. */
export type WsData = string | Uint8Array;

/** Bytes a frame counts for flow control. */
export const frameSize = (data: WsData): number =>
  typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;

/** What one read of a body stream gives. */
export type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<unknown>['read']>>;

/** The start of a body: what could be read without waiting. */
export interface Available {
  chunks: Uint8Array[];
  done: boolean;
}

/** Enough to send with the head; more waits for the reader to ask. */
const EAGER_BYTES = 64 * 1024;
const TICK = Symbol('tick');
const nextTurn = () => new Promise<typeof TICK>((resolve) => setImmediate(() => resolve(TICK)));

/**
 * Reads what `reader` has ready now (up to 64 KiB), so a small body travels in the same
 * message as its head instead of one round trip per chunk. `pending` is a read still
 * under way, to be awaited before the next one.
 */
export async function readAvailable(
  reader: ReadableStreamDefaultReader<unknown>,
  toBytes: (value: unknown) => Uint8Array<ArrayBuffer>,
): Promise<Available & { pending: Promise<ReadResult> | null }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < EAGER_BYTES) {
    const read = reader.read();
    const result = await Promise.race([read, nextTurn()]);
    if (result === TICK) return { chunks, done: false, pending: read };
    if (result.done) return { chunks, done: true, pending: null };
    const bytes = toBytes(result.value);
    chunks.push(bytes);
    size += bytes.byteLength;
  }
  return { chunks, done: false, pending: null };
}

/** Bytes of a body chunk (a copy with its own buffer), or a TypeError for anything else. */
export function chunkBytes(value: unknown): Uint8Array<ArrayBuffer> {
  if (typeof value === 'string') return new TextEncoder().encode(value);
  if (value instanceof Uint8Array) return ownBuffer(value);
  if (ArrayBuffer.isView(value)) {
    return ownBuffer(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
  }
  if (value instanceof ArrayBuffer) return new Uint8Array(value.slice(0));
  throw new TypeError('a body chunk is not bytes');
}

/** The buffers to transfer along with `chunks`. */
export const buffersOf = (chunks: Uint8Array[]) => chunks.map((c) => c.buffer as ArrayBuffer);

/**
 * A copy of `chunk` in an ArrayBuffer of its own, safe to transfer (a chunk may be a view
 * into a pooled buffer, or an array its producer reuses).
 */
export function ownBuffer(chunk: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(chunk);
}

/** Headers that belong to one connection and are not forwarded. */
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
