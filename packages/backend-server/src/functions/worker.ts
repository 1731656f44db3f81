import { Worker } from 'node:worker_threads';
import type { Build } from './compile';
import {
  type Available,
  buffersOf,
  chunkBytes,
  type FromWorker,
  type ReadResult,
  readAvailable,
  type ToWorker,
  type WorkerBoot,
} from './protocol';
import { upgradeNotSupported } from './responses';
import { SocketBridge } from './sockets';
import { InvokeFailure, type InvokeRequest, type WorkerOptions } from './worker-api';

interface Call {
  timer: NodeJS.Timeout;
  head: { resolve(response: Response | null): void; reject(error: InvokeFailure): void };
  headSent: boolean;
  body: ReadableStreamDefaultController<Uint8Array> | null;
  pulling: (() => void) | null;
  requestBody: ReadableStreamDefaultReader<Uint8Array> | null;
  /** A request-body read started while sending the request. */
  pendingBody: Promise<ReadResult> | null;
  unlisten: () => void;
  accept: InvokeRequest['accept'];
  /** The function's WebSocket, once the handshake is done. */
  socket: SocketBridge | null;
}

let nextCallId = 1;

/**
 * One worker thread running one build of one function. It serves concurrent calls (like
 * an isolate of the hosted runtime) until it fails, hits a limit, or is retired because
 * its function changed. A failure never reaches the server: the worker is stopped and its
 * calls are answered with the hosted runtime's errors by the caller.
 */
export class FunctionWorker {
  readonly ready: Promise<void>;
  dead = false;
  private readonly worker: Worker;
  private readonly calls = new Map<number, Call>();
  private retiring = false;
  private idleTimer: NodeJS.Timeout | null = null;
  private loopWatch: NodeJS.Timeout | null = null;
  private booted = false;
  private failure: InvokeFailure | null = null;

  constructor(
    readonly build: Build,
    readonly envKey: string,
    private readonly options: WorkerOptions,
  ) {
    const boot: WorkerBoot = {
      bundleUrl: build.bundleUrl,
      functionDir: build.dir,
      name: build.name,
    };
    this.worker = new Worker(options.runtimePath, {
      workerData: boot,
      env: options.env,
      // Not the server's flags; a global WebSocket as Deno has (supabase-js needs it on Node 20).
      execArgv: ['--experimental-websocket'],
      stdout: true,
      stderr: true,
      name: `function ${build.name}`,
      resourceLimits: { maxOldGenerationSizeMb: options.memoryLimitMb },
    });
    forwardLines(this.worker.stdout, (line) => options.report(line, 'out'));
    forwardLines(this.worker.stderr, (line) => options.report(line, 'err'));
    this.ready = new Promise<void>((resolve, reject) => {
      this.worker.on('message', (message: FromWorker) => {
        if (message.t === 'ready') {
          this.booted = true;
          this.watchBlockedLoop();
          resolve();
        } else if (message.t === 'boot-error') {
          this.options.report(`boot error: ${message.message}`, 'err');
          this.fail(new InvokeFailure('boot', message.message));
        } else this.onMessage(message);
      });
      this.worker.on('error', (error: Error & { code?: string }) => {
        const limit = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
        this.options.report(
          limit ? 'memory limit reached, worker stopped' : `worker error: ${error.stack ?? error}`,
          'err',
        );
        this.failure ??= new InvokeFailure(
          limit ? 'limit' : this.booted ? 'error' : 'boot',
          error.message,
        );
      });
      this.worker.on('exit', () => {
        const failure =
          this.failure ?? new InvokeFailure(this.booted ? 'error' : 'boot', 'the worker exited');
        this.dead = true;
        reject(failure);
        this.failAll(failure);
        this.options.onExit();
      });
    });
    this.ready.catch(() => {});
  }

  /**
   * Runs one call; resolves with the function's response (its body streamed from the
   * worker), or null when the function took the connection over as a WebSocket.
   */
  async invoke(request: InvokeRequest): Promise<Response | null> {
    const id = nextCallId++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const response = new Promise<Response | null>((resolve, reject) => {
      const onAbort = () => this.cancel(id);
      request.signal.addEventListener('abort', onAbort, { once: true });
      this.calls.set(id, {
        timer: setTimeout(() => this.onWallTime(), this.options.wallTimeMs),
        head: { resolve, reject },
        headSent: false,
        body: null,
        pulling: null,
        requestBody: request.body ? request.body.getReader() : null,
        pendingBody: null,
        unlisten: () => request.signal.removeEventListener('abort', onAbort),
        accept: request.accept,
        socket: null,
      });
    });
    response.catch(() => {}); // the caller awaits it; a failure before dispatch is thrown below
    let body: Available | null = null;
    try {
      await this.ready;
      const call = this.calls.get(id);
      if (call?.requestBody) {
        const available = await readAvailable(call.requestBody, chunkBytes);
        call.pendingBody = available.pending;
        body = { chunks: available.chunks, done: available.done };
      }
    } catch (error) {
      this.finish(id);
      throw error instanceof InvokeFailure ? error : new InvokeFailure('error', String(error));
    }
    if (!this.calls.has(id)) return response; // failed or cancelled meanwhile
    this.post(
      {
        t: 'req',
        id,
        method: request.method,
        url: request.url,
        headers: request.headers,
        body,
        remote: request.remote,
      },
      body ? buffersOf(body.chunks) : [],
    );
    return response;
  }

  /** Stops taking calls; the thread ends when its last call is done. */
  retire(): void {
    this.retiring = true;
    if (this.calls.size === 0) void this.stop();
  }

  /** Ends the thread now (server shutdown). */
  async stop(): Promise<void> {
    for (const call of this.calls.values()) call.socket?.end(1001, 'server shutting down');
    this.dead = true;
    if (this.loopWatch) clearInterval(this.loopWatch);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    await this.worker.terminate();
  }

  private post(message: ToWorker, transfer: ArrayBuffer[] = []) {
    if (!this.dead) this.worker.postMessage(message, transfer);
  }

  /**
   * The hosted runtime's CPU limit, the way a worker thread allows it: while a call is
   * open, an event loop that never goes idle for `cpuTimeMs` (an endless loop, or
   * synchronous work that never awaits) stops the worker. Only once it has booted: loading
   * the function is not the function's CPU time (on a loaded machine a boot can keep the
   * loop busy past a small limit), and a boot that never ends meets the wall-clock limit.
   */
  private watchBlockedLoop() {
    const perf = this.worker.performance;
    let last = perf.eventLoopUtilization();
    let blocked = 0;
    this.loopWatch = setInterval(
      () => {
        const now = perf.eventLoopUtilization();
        const delta = perf.eventLoopUtilization(now, last);
        last = now;
        blocked =
          this.booted && this.calls.size > 0 && delta.idle === 0 ? blocked + delta.active : 0;
        if (blocked < this.options.cpuTimeMs) return;
        this.options.report(
          `CPU time limit of ${this.options.cpuTimeMs} ms reached (the event loop never went idle), worker stopped`,
          'err',
        );
        this.fail(new InvokeFailure('limit', 'CPU time limit reached'));
      },
      Math.min(250, this.options.cpuTimeMs / 4),
    );
    this.loopWatch.unref();
  }

  private onWallTime() {
    this.options.report(
      `wall-clock limit of ${this.options.wallTimeMs} ms reached, worker stopped`,
      'err',
    );
    this.fail(new InvokeFailure('limit', 'wall-clock limit reached'));
  }

  /** Stops the thread; every open call fails with `failure`. */
  private fail(failure: InvokeFailure) {
    this.failure ??= failure;
    this.failAll(this.failure);
    void this.stop();
  }

  private failAll(failure: InvokeFailure) {
    const reason = failure.kind === 'limit' ? 'WORKER_LIMIT' : 'WORKER_ERROR';
    for (const [id, call] of this.calls) {
      call.socket?.end(1011, reason);
      if (call.headSent) call.body?.error(failure);
      else call.head.reject(failure);
      call.pulling?.();
      this.finish(id);
    }
  }

  private finish(id: number) {
    const call = this.calls.get(id);
    if (!call) return;
    clearTimeout(call.timer);
    call.unlisten();
    call.requestBody?.cancel().catch(() => {});
    this.calls.delete(id);
    if (this.calls.size > 0) return;
    if (this.retiring) void this.stop();
    else if (!this.dead) {
      this.idleTimer = setTimeout(() => this.retire(), this.options.idleTimeoutMs);
      this.idleTimer.unref();
    }
  }

  private cancel(id: number) {
    const call = this.calls.get(id);
    if (!call) return;
    this.post({ t: 'cancel', id });
    if (!call.headSent) call.head.reject(new InvokeFailure('error', 'the client went away'));
    this.finish(id);
  }

  private onMessage(message: FromWorker) {
    if (!('id' in message)) return;
    const call = this.calls.get(message.id);
    if (!call) return;
    switch (message.t) {
      case 'pull-body':
        void this.pumpRequestBody(message.id, call);
        return;
      case 'head':
        call.headSent = true;
        call.head.resolve(this.response(message, call));
        if (!message.body || message.body.done) this.finish(message.id);
        return;
      case 'chunk':
        call.body?.enqueue(message.chunk);
        call.pulling?.();
        return;
      case 'end':
        call.body?.close();
        call.pulling?.();
        this.finish(message.id);
        return;
      case 'error':
        call.head.reject(new InvokeFailure('error', message.message));
        this.finish(message.id);
        return;
      case 'stream-error':
        call.body?.error(new Error(message.message));
        this.finish(message.id);
        return;
      case 'upgrade-unsupported':
        call.head.resolve(upgradeNotSupported());
        this.finish(message.id);
        return;
      case 'ws-accept':
        void this.acceptSocket(message, call);
        return;
      case 'ws-send':
        call.socket?.send(message.data);
        return;
      case 'ws-received':
        call.socket?.received(message.bytes);
        return;
      case 'ws-close':
        call.socket?.close(message.code, message.reason);
        return;
    }
  }

  /** The function returned `Deno.upgradeWebSocket`'s response: the handshake, then the relay. */
  private async acceptSocket(message: Extract<FromWorker, { t: 'ws-accept' }>, call: Call) {
    const { id } = message;
    if (!call.accept) {
      call.head.reject(new InvokeFailure('error', 'a WebSocket answer to a plain request'));
      return this.finish(id);
    }
    const ws = await call.accept(message.protocol).catch(() => null);
    if (this.calls.get(id) !== call) {
      ws?.close(1011, this.failure?.kind === 'limit' ? 'WORKER_LIMIT' : 'WORKER_ERROR');
      return;
    }
    call.headSent = true;
    call.head.resolve(null);
    if (!ws) {
      this.post({ t: 'ws-closed', id, code: 1006, reason: '', wasClean: false });
      return this.finish(id);
    }
    const post = (m: ToWorker, transfer?: ArrayBuffer[]) => this.post(m, transfer);
    call.socket = new SocketBridge(ws, id, message.idleTimeoutMs, post, () => this.finish(id));
  }

  private async pumpRequestBody(id: number, call: Call) {
    const read = call.pendingBody ?? call.requestBody?.read();
    call.pendingBody = null;
    const next = await read?.catch(() => null);
    if (next && !next.done && next.value) {
      const chunk = chunkBytes(next.value);
      this.post({ t: 'body', id, chunk }, [chunk.buffer]);
    } else this.post({ t: 'body-end', id });
  }

  private response(head: Extract<FromWorker, { t: 'head' }>, call: Call): Response {
    const id = head.id;
    const initial = head.body;
    const body =
      initial === null
        ? null
        : initial.done
          ? concat(initial.chunks)
          : new ReadableStream<Uint8Array>(
              {
                start: (controller) => {
                  call.body = controller;
                  for (const chunk of initial.chunks) controller.enqueue(chunk);
                },
                pull: () =>
                  new Promise<void>((resolve) => {
                    if (!this.calls.has(id)) return resolve();
                    call.pulling = () => {
                      call.pulling = null;
                      resolve();
                    };
                    this.post({ t: 'pull', id });
                  }),
                cancel: () => this.cancel(id),
              },
              { highWaterMark: 0 },
            );
    const headers = new Headers();
    for (const [key, value] of head.headers) headers.append(key, value);
    return new Response(body, { status: head.status, statusText: head.statusText, headers });
  }
}

function concat(chunks: Uint8Array[]): Uint8Array<ArrayBuffer> {
  if (chunks.length === 1) return chunks[0] as Uint8Array<ArrayBuffer>;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** Calls `line` for every complete line a worker stream writes. */
function forwardLines(stream: NodeJS.ReadableStream, line: (text: string) => void) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const l of lines) line(l);
  });
  stream.on('end', () => {
    if (rest) line(rest);
  });
}
