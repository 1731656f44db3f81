import type WebSocket from 'ws';
import { frameSize, type ToWorker, type WsData } from './protocol';

/** Client frames in flight to the worker past which the client's socket stops being read. */
const PAUSE_AT = 1024 * 1024;
/** …and below which it is read again. */
const RESUME_AT = 256 * 1024;
/** How long a closing handshake may take before the connection is cut. */
const CLOSE_GRACE_MS = 1000;

type Post = (message: ToWorker, transfer?: ArrayBuffer[]) => void;

/**
 * The server's end of a function's WebSocket: the client's `ws` socket, relayed to the
 * worker's socket (worker-websocket.ts) frame by frame. Flow control both ways: client
 * frames not yet dispatched by the function pause the client's socket past 1 MiB; the
 * function's frames are acknowledged once the client's connection took them (its
 * `bufferedAmount`, bounded in the worker). `idleTimeoutMs` pings the client and drops it
 * when a ping goes unanswered.
 */
export class SocketBridge {
  private inFlight = 0;
  private paused = false;
  private ended = false;
  private pinger: NodeJS.Timeout | null = null;

  constructor(
    private readonly ws: WebSocket,
    private readonly id: number,
    idleTimeoutMs: number,
    private readonly post: Post,
    onEnd: () => void,
  ) {
    ws.on('message', (raw: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      const bytes = Buffer.isBuffer(raw)
        ? raw
        : Array.isArray(raw)
          ? Buffer.concat(raw)
          : Buffer.from(raw);
      const data: WsData = isBinary ? new Uint8Array(bytes) : bytes.toString('utf8');
      this.inFlight += frameSize(data);
      if (!this.paused && this.inFlight > PAUSE_AT) {
        this.paused = true;
        ws.pause();
      }
      this.post(
        { t: 'ws-message', id, data },
        typeof data === 'string' ? [] : [data.buffer as ArrayBuffer],
      );
    });
    ws.on('error', () => {}); // a 'close' (1006) follows
    ws.once('close', (code: number, reason: Buffer) => {
      this.ended = true;
      if (this.pinger) clearInterval(this.pinger);
      this.post({
        t: 'ws-closed',
        id,
        code,
        reason: reason.toString('utf8'),
        wasClean: code !== 1006,
      });
      onEnd();
    });
    if (idleTimeoutMs > 0) {
      let answered = true;
      ws.on('pong', () => {
        answered = true;
      });
      this.pinger = setInterval(() => {
        if (!answered) return ws.terminate();
        answered = false;
        ws.ping();
      }, idleTimeoutMs);
      this.pinger.unref();
    }
    this.post({ t: 'ws-open', id });
  }

  /** A frame from the function. */
  send(data: WsData) {
    const bytes = frameSize(data);
    this.ws.send(data, { binary: typeof data !== 'string' }, () =>
      this.post({ t: 'ws-sent', id: this.id, bytes }),
    );
  }

  /** The function dispatched `bytes` of client frames. */
  received(bytes: number) {
    this.inFlight = Math.max(0, this.inFlight - bytes);
    if (this.paused && this.inFlight < RESUME_AT) {
      this.paused = false;
      this.ws.resume();
    }
  }

  /** The function closed its socket. */
  close(code: number | undefined, reason: string) {
    if (this.ended) return;
    this.ws.close(code, reason);
  }

  /**
   * Ends the connection from the server's side: 1011 when the worker failed or hit a limit,
   * 1001 when the server stops. A client that does not answer the close is cut off.
   */
  end(code: number, reason: string) {
    if (this.ended) return;
    this.ended = true;
    if (this.pinger) clearInterval(this.pinger);
    if (this.paused) this.ws.resume();
    this.ws.close(code, reason);
    setTimeout(() => this.ws.terminate(), CLOSE_GRACE_MS).unref();
  }
}
