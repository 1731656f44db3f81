/**
 * Inside a function's worker: `Deno.upgradeWebSocket(request)` and the socket it returns.
 * The client's connection lives on the server (its `ws` socket); this socket is the
 * function's end of it, and frames, flow-control credits and closes travel as protocol
 * messages (see protocol.ts, `ws-*`).
 */
import { type FromWorker, frameSize, type WsData } from './protocol';

/** Options of `Deno.upgradeWebSocket`. */
export interface UpgradeWebSocketOptions {
  /** The subprotocol to accept (sent back as `Sec-WebSocket-Protocol`). */
  protocol?: string;
  /** Seconds between pings; a client that does not answer one in time is disconnected. 0: off. */
  idleTimeout?: number;
}

/** Deno's default `idleTimeout`, in seconds. */
const IDLE_TIMEOUT_S = 120;
/**
 * Frames the function may have sent that the client's connection has not taken yet. Past
 * this, the socket is closed with 1011 rather than buffering without bound.
 */
export const SEND_BUFFER_LIMIT = 16 * 1024 * 1024;

class CloseEvent extends Event {
  readonly code: number;
  readonly reason: string;
  readonly wasClean: boolean;
  constructor(type: string, init: { code: number; reason: string; wasClean: boolean }) {
    super(type);
    this.code = init.code;
    this.reason = init.reason;
    this.wasClean = init.wasClean;
  }
}

class ErrorEvent extends Event {
  readonly message: string;
  readonly error: unknown;
  constructor(message: string) {
    super('error');
    this.message = message;
    this.error = new Error(message);
  }
}

type Listener = ((event: Event) => void) | null;

/** The function's end of an upgraded connection: a WebSocket as Deno gives it. */
export class FunctionWebSocket extends EventTarget {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  readonly CONNECTING = 0;
  readonly OPEN = 1;
  readonly CLOSING = 2;
  readonly CLOSED = 3;
  readyState = 0;
  binaryType: 'blob' | 'arraybuffer' = 'blob';
  readonly extensions = '';
  /** Bytes sent and not yet handed to the client's connection. */
  bufferedAmount = 0;
  /** Set once the function returned this socket's response: the id of that call. */
  id: number | null = null;
  private readonly handlers = new Map<string, Listener>();
  /** Sends wait behind a Blob being read, so frames keep their order. */
  private tail: Promise<void> | null = null;

  constructor(
    readonly url: string,
    readonly protocol: string,
    readonly idleTimeoutMs: number,
    private readonly post: (message: FromWorker, transfer?: ArrayBuffer[]) => void,
  ) {
    super();
  }

  get onopen(): Listener {
    return this.handlers.get('open') ?? null;
  }
  set onopen(fn: Listener) {
    this.setHandler('open', fn);
  }
  get onmessage(): Listener {
    return this.handlers.get('message') ?? null;
  }
  set onmessage(fn: Listener) {
    this.setHandler('message', fn);
  }
  get onclose(): Listener {
    return this.handlers.get('close') ?? null;
  }
  set onclose(fn: Listener) {
    this.setHandler('close', fn);
  }
  get onerror(): Listener {
    return this.handlers.get('error') ?? null;
  }
  set onerror(fn: Listener) {
    this.setHandler('error', fn);
  }

  private setHandler(type: string, fn: Listener) {
    const old = this.handlers.get(type);
    if (old) this.removeEventListener(type, old);
    this.handlers.set(type, typeof fn === 'function' ? fn : null);
    if (typeof fn === 'function') this.addEventListener(type, fn);
  }

  send(data: string | ArrayBufferLike | ArrayBufferView | Blob): void {
    if (this.readyState === this.CONNECTING) {
      throw new DOMException("'readyState' not OPEN", 'InvalidStateError');
    }
    if (this.readyState !== this.OPEN) return;
    if (data instanceof Blob || this.tail) {
      const previous = this.tail ?? Promise.resolve();
      const next = previous.then(async () => {
        const bytes = data instanceof Blob ? new Uint8Array(await data.arrayBuffer()) : data;
        this.sendNow(bytes as string | Uint8Array);
      });
      this.tail = next;
      void next.finally(() => {
        if (this.tail === next) this.tail = null;
      });
      return;
    }
    this.sendNow(data);
  }

  private sendNow(data: string | ArrayBufferLike | ArrayBufferView) {
    if (this.readyState !== this.OPEN || this.id === null) return;
    const frame: WsData =
      typeof data === 'string'
        ? data
        : ArrayBuffer.isView(data)
          ? new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength))
          : new Uint8Array((data as ArrayBuffer).slice(0));
    this.bufferedAmount += frameSize(frame);
    if (this.bufferedAmount > SEND_BUFFER_LIMIT) {
      console.error(
        `WebSocket send buffer over ${SEND_BUFFER_LIMIT} bytes (the client reads slower than the function sends): closing it`,
      );
      this.dispatchEvent(new ErrorEvent('send buffer full'));
      this.post({ t: 'ws-close', id: this.id, code: 1011, reason: 'send buffer full' });
      this.readyState = this.CLOSING;
      return;
    }
    const transfer = typeof frame === 'string' ? [] : [frame.buffer as ArrayBuffer];
    this.post({ t: 'ws-send', id: this.id, data: frame }, transfer);
  }

  close(code?: number, reason = ''): void {
    if (code !== undefined && code !== 1000 && (code < 3000 || code > 4999)) {
      throw new DOMException(
        `The close code must be either 1000 or in the range of 3000 to 4999. Received ${code}`,
        'InvalidAccessError',
      );
    }
    if (Buffer.byteLength(String(reason)) > 123) {
      throw new DOMException('The close reason may not be longer than 123 bytes', 'SyntaxError');
    }
    if (this.readyState === this.CLOSING || this.readyState === this.CLOSED) return;
    this.readyState = this.CLOSING;
    if (this.id !== null) this.post({ t: 'ws-close', id: this.id, code, reason: String(reason) });
  }

  /** The handshake is done. */
  opened() {
    if (this.readyState !== this.CONNECTING) return;
    this.readyState = this.OPEN;
    this.dispatchEvent(new Event('open'));
  }

  /** A frame from the client. */
  received(data: WsData) {
    if (this.id !== null) this.post({ t: 'ws-received', id: this.id, bytes: frameSize(data) });
    if (this.readyState !== this.OPEN) return;
    const payload =
      typeof data === 'string'
        ? data
        : this.binaryType === 'arraybuffer'
          ? data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)
          : new Blob([data]);
    this.dispatchEvent(new MessageEvent('message', { data: payload, origin: this.url }));
  }

  sent(bytes: number) {
    this.bufferedAmount = Math.max(0, this.bufferedAmount - bytes);
  }

  /** The connection ended. */
  closed(code: number, reason: string, wasClean: boolean) {
    if (this.readyState === this.CLOSED) return;
    this.readyState = this.CLOSED;
    if (!wasClean) this.dispatchEvent(new ErrorEvent(reason || 'the connection was lost'));
    this.dispatchEvent(new CloseEvent('close', { code, reason, wasClean }));
  }
}

/** The responses of `upgradeWebSocket`, and their sockets. */
export const upgrades = new WeakMap<Response, FunctionWebSocket>();

/**
 * `Deno.upgradeWebSocket(request, options)`: `{ socket, response }`. The function returns
 * `response`; the server then completes the handshake and the socket opens.
 */
export function upgradeWebSocket(
  request: Request,
  options: UpgradeWebSocketOptions,
  post: (message: FromWorker, transfer?: ArrayBuffer[]) => void,
): { socket: FunctionWebSocket; response: Response } {
  const upgrade = request.headers.get('upgrade') ?? '';
  if (
    !upgrade
      .toLowerCase()
      .split(/\s*,\s*/)
      .includes('websocket')
  ) {
    throw new TypeError("Invalid Header: 'upgrade' header must contain 'websocket'");
  }
  const connection = request.headers.get('connection') ?? '';
  if (
    !connection
      .toLowerCase()
      .split(/\s*,\s*/)
      .includes('upgrade')
  ) {
    throw new TypeError("Invalid Header: 'connection' header must contain 'Upgrade'");
  }
  if (!request.headers.get('sec-websocket-key')) {
    throw new TypeError("Invalid Header: 'sec-websocket-key' header must be set");
  }
  const idle = options.idleTimeout ?? IDLE_TIMEOUT_S;
  const socket = new FunctionWebSocket(
    request.url.replace(/^http/, 'ws'),
    options.protocol ?? '',
    Number.isFinite(idle) && idle > 0 ? idle * 1000 : 0,
    post,
  );
  // A 101 cannot be built with `new Response`; the server answers the handshake itself.
  const response = new Response(null, { status: 200 });
  Object.defineProperty(response, 'status', { value: 101 });
  Object.defineProperty(response, 'statusText', { value: 'Switching Protocols' });
  upgrades.set(response, socket);
  return { socket, response };
}
