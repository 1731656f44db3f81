/**
 * Runs inside a function's worker thread (prebuilt into `dist/functions-runtime.js`, or
 * bundled by esbuild when the server runs from source; never imported by the server
 * itself). It installs the small hosted-runtime shim —
 * `Deno.serve`, `Deno.env`, a few `Deno` file helpers, `EdgeRuntime.waitUntil` — imports
 * the function's bundle, finds its handler (`Deno.serve(handler)`, a default-exported
 * function, or a default export with `fetch`) and then serves requests the server sends
 * over the worker port, streaming bodies both ways.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import {
  type Available,
  buffersOf,
  chunkBytes,
  type FromWorker,
  HOP_BY_HOP,
  type ReadResult,
  readAvailable,
  type ToWorker,
  type WorkerBoot,
} from './protocol';
import {
  type FunctionWebSocket,
  type UpgradeWebSocketOptions,
  upgrades,
  upgradeWebSocket,
} from './worker-websocket';

type Handler = (request: Request, info: ServeInfo) => Response | Promise<Response>;
type ErrorHandler = (error: unknown) => Response | Promise<Response>;
interface ServeInfo {
  remoteAddr: { transport: 'tcp'; hostname: string; port: number };
  completed: Promise<void>;
}
interface ServeOptions {
  handler?: Handler;
  onError?: ErrorHandler;
  onListen?: (addr: unknown) => void;
  port?: number;
  hostname?: string;
}

const port = parentPort;
if (!port) throw new Error('the functions runtime runs in a worker thread');
const boot = workerData as WorkerBoot;
const post = (message: FromWorker, transfer: ArrayBuffer[] = []) =>
  port.postMessage(message, transfer);

let served: { handler: Handler; onError?: ErrorHandler } | null = null;

/** A path given to a `Deno` file helper: URLs and paths relative to the function's directory. */
const filePath = (path: string | URL) =>
  path instanceof URL || String(path).startsWith('file:')
    ? fileURLToPath(path)
    : resolve(boot.functionDir, String(path));

/** The requests handed to the function, and their call ids (for `Deno.upgradeHttp`). */
const requestIds = new WeakMap<Request, number>();

const ADDR = { transport: 'tcp' as const, hostname: '0.0.0.0', port: 8000 };

const deno = {
  serve(first: Handler | ServeOptions, second?: Handler) {
    const options: ServeOptions = typeof first === 'function' ? {} : first;
    const handler = typeof first === 'function' ? first : (second ?? options.handler);
    if (typeof handler !== 'function') throw new TypeError('Deno.serve needs a handler function');
    served = { handler, ...(options.onError ? { onError: options.onError } : {}) };
    options.onListen?.(ADDR);
    return {
      addr: ADDR,
      finished: new Promise<void>(() => {}),
      shutdown: async () => {},
      ref() {},
      unref() {},
    };
  },
  env: {
    get: (key: string) => process.env[key],
    set: (key: string, value: string) => {
      process.env[key] = String(value);
    },
    delete: (key: string) => {
      delete process.env[key];
    },
    has: (key: string) => key in process.env,
    toObject: () => ({ ...process.env }) as Record<string, string>,
  },
  cwd: () => boot.functionDir,
  readTextFile: (path: string | URL) => readFile(filePath(path), 'utf8'),
  readTextFileSync: (path: string | URL) => readFileSync(filePath(path), 'utf8'),
  readFile: async (path: string | URL) => new Uint8Array(await readFile(filePath(path))),
  readFileSync: (path: string | URL) => new Uint8Array(readFileSync(filePath(path))),
  exit: (code?: number) => process.exit(code),
  upgradeWebSocket: (request: Request, options: UpgradeWebSocketOptions = {}) =>
    upgradeWebSocket(request, options, post),
  /**
   * Connection upgrades other than WebSocket are not supported: the call is answered with
   * the server's "not supported" response whatever the handler returns, and the promise
   * never settles (so code awaiting the connection just stays idle).
   */
  upgradeHttp: (request: Request) => {
    const entry = live.get(requestIds.get(request) ?? 0);
    if (entry) entry.upgradeHttp = true;
    return new Promise<never>(() => {});
  },
  pid: process.pid,
  build: { os: process.platform, arch: process.arch },
};

const background = new Set<Promise<unknown>>();
const edgeRuntime = {
  /** Keeps background work going after the response (errors are logged, not thrown). */
  waitUntil(promise: Promise<unknown>) {
    const tracked = Promise.resolve(promise)
      .catch((error) => console.error(error))
      .finally(() => background.delete(tracked));
    background.add(tracked);
    return promise;
  },
};

Object.assign(globalThis, { Deno: deno, EdgeRuntime: edgeRuntime });

/** Per request: its abort controller, its request-body waiters, its response reader. */
interface Live {
  abort: AbortController;
  bodyWaiters: ((message: ToWorker) => void)[];
  reader: ReadableStreamDefaultReader<unknown> | null;
  /** A response-body read started while sending the head. */
  pending: Promise<ReadResult> | null;
  done: () => void;
  /** The function called `Deno.upgradeHttp` with this request. */
  upgradeHttp?: boolean;
  /** The function accepted a WebSocket: its socket. */
  socket?: FunctionWebSocket;
}
const live = new Map<number, Live>();

function requestBody(id: number, entry: Live, initial: Available): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      start: (controller) => {
        for (const chunk of initial.chunks) controller.enqueue(chunk);
        if (initial.done) controller.close();
      },
      pull: (controller) =>
        new Promise<void>((done) => {
          entry.bodyWaiters.push((message) => {
            if (message.t === 'body') controller.enqueue(message.chunk);
            else controller.close();
            done();
          });
          post({ t: 'pull-body', id });
        }),
    },
    { highWaterMark: 0 },
  );
}

const errorText = (error: unknown) =>
  error instanceof Error ? (error.stack ?? error.message) : String(error);

async function handle(message: Extract<ToWorker, { t: 'req' }>): Promise<void> {
  const { id } = message;
  let done!: () => void;
  const completed = new Promise<void>((r) => {
    done = r;
  });
  const entry: Live = {
    abort: new AbortController(),
    bodyWaiters: [],
    reader: null,
    pending: null,
    done,
  };
  live.set(id, entry);
  let response: unknown;
  try {
    const request = new Request(message.url, {
      method: message.method,
      headers: message.headers,
      signal: entry.abort.signal,
      ...(message.body ? { body: requestBody(id, entry, message.body), duplex: 'half' } : {}),
    } as RequestInit);
    requestIds.set(request, id);
    const current = served;
    if (!current) throw new Error('the function has no handler');
    try {
      response = await current.handler(request, {
        remoteAddr: { ...message.remote, transport: 'tcp' },
        completed,
      });
    } catch (error) {
      if (!current.onError) throw error;
      response = await current.onError(error);
    }
    if (!(response instanceof Response)) {
      throw new TypeError('the function did not return a Response');
    }
  } catch (error) {
    live.delete(id);
    done();
    if (entry.upgradeHttp) return post({ t: 'upgrade-unsupported', id });
    console.error(error);
    post({ t: 'error', id, message: errorText(error) });
    return;
  }
  if (entry.upgradeHttp) {
    finish(id);
    return post({ t: 'upgrade-unsupported', id });
  }
  const socket = upgrades.get(response);
  if (socket) {
    socket.id = id;
    entry.socket = socket;
    post({ t: 'ws-accept', id, protocol: socket.protocol, idleTimeoutMs: socket.idleTimeoutMs });
    return;
  }
  const headers: [string, string][] = [];
  for (const [key, value] of response.headers) {
    if (!HOP_BY_HOP.has(key)) headers.push([key, value]);
  }
  entry.reader = response.body ? response.body.getReader() : null;
  let body: Available | null = null;
  if (entry.reader) {
    try {
      const available = await readAvailable(entry.reader, chunkBytes);
      entry.pending = available.pending;
      body = { chunks: available.chunks, done: available.done };
    } catch (error) {
      console.error(error);
      live.delete(id);
      done();
      post({ t: 'error', id, message: errorText(error) });
      return;
    }
  }
  post(
    { t: 'head', id, status: response.status, statusText: response.statusText, headers, body },
    body ? buffersOf(body.chunks) : [],
  );
  if (!body || body.done) finish(id);
}

function finish(id: number) {
  const entry = live.get(id);
  if (!entry) return;
  live.delete(id);
  entry.done();
}

async function pull(id: number): Promise<void> {
  const entry = live.get(id);
  if (!entry?.reader) return;
  try {
    const read = entry.pending ?? entry.reader.read();
    entry.pending = null;
    const { value, done } = await read;
    if (done) {
      finish(id);
      post({ t: 'end', id });
      return;
    }
    const bytes = chunkBytes(value);
    post({ t: 'chunk', id, chunk: bytes }, [bytes.buffer]);
  } catch (error) {
    console.error(error);
    finish(id);
    post({ t: 'stream-error', id, message: errorText(error) });
  }
}

port.on('message', (message: ToWorker) => {
  switch (message.t) {
    case 'req':
      void handle(message);
      return;
    case 'body':
    case 'body-end':
      live.get(message.id)?.bodyWaiters.shift()?.(message);
      return;
    case 'pull':
      void pull(message.id);
      return;
    case 'ws-open':
      live.get(message.id)?.socket?.opened();
      return;
    case 'ws-message':
      live.get(message.id)?.socket?.received(message.data);
      return;
    case 'ws-sent':
      live.get(message.id)?.socket?.sent(message.bytes);
      return;
    case 'ws-closed':
      live.get(message.id)?.socket?.closed(message.code, message.reason, message.wasClean);
      finish(message.id);
      return;
    case 'cancel': {
      const entry = live.get(message.id);
      if (!entry) return;
      entry.abort.abort(new DOMException('The client went away', 'AbortError'));
      entry.reader?.cancel().catch(() => {});
      finish(message.id);
      return;
    }
  }
});

try {
  const mod = (await import(boot.bundleUrl)) as { default?: unknown };
  if (!served) {
    const exported = mod.default as { fetch?: unknown } | ((...args: unknown[]) => unknown);
    if (typeof exported === 'function') {
      served = { handler: exported as Handler };
    } else if (exported && typeof exported.fetch === 'function') {
      const target = exported;
      served = {
        handler: (request, info) => (target.fetch as Handler).call(target, request, info),
      };
    }
  }
  if (served) post({ t: 'ready' });
  else {
    post({
      t: 'boot-error',
      message:
        'the function neither called Deno.serve(handler) nor has a default export that is a handler or has fetch()',
    });
  }
} catch (error) {
  post({ t: 'boot-error', message: errorText(error) });
}
