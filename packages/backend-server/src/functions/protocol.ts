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
      hasBody: boolean;
      remote: { hostname: string; port: number };
    }
  /** One request-body chunk, answering `pull-body`. */
  | { t: 'body'; id: number; chunk: Uint8Array }
  | { t: 'body-end'; id: number }
  /** Asks for the next response-body chunk. */
  | { t: 'pull'; id: number }
  /** The client went away: abort the request, cancel the response body. */
  | { t: 'cancel'; id: number };

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
      hasBody: boolean;
    }
  | { t: 'chunk'; id: number; chunk: Uint8Array }
  | { t: 'end'; id: number }
  /** The handler threw, rejected or returned something that is not a Response. */
  | { t: 'error'; id: number; message: string }
  /** Reading the response body failed after the head was sent. */
  | { t: 'stream-error'; id: number; message: string };

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
