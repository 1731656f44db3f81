/**
 * A recording WebSocket transport for Node: the `ws` client, subclassed to keep every frame
 * sent and received and every socket URL, so a test can read what went over the wire (and
 * cut a socket). Observation only; frames pass through unchanged.
 */
import WebSocket from 'ws';

/** One frame: its direction, and its text (text frames) or bytes (binary frames). */
export interface Frame {
  dir: 'out' | 'in';
  text: string | null;
  bytes: Uint8Array | null;
}

/** A Phoenix message as sent: `[join_ref, ref, topic, event, payload]`. */
export type SentMessage = [string | null, string | null, string, string, Record<string, unknown>];

/** What {@link recordingWebSocket} returns. */
export interface WebSocketRecorder {
  /** The transport to pass as `realtime.transport`. */
  WebSocket: new (
    url: string | URL,
    ...rest: unknown[]
  ) => WebSocket;
  frames: Frame[];
  sockets: WebSocket[];
  urls: string[];
  /** Sent text frames parsed as Phoenix messages. */
  sent(): SentMessage[];
}

/** A `ws` subclass recording into `frames`; `sockets` lists every socket opened. */
export function recordingWebSocket(): WebSocketRecorder {
  const frames: Frame[] = [];
  const sockets: WebSocket[] = [];
  const urls: string[] = [];
  const toBytes = (data: unknown): Uint8Array =>
    data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : Array.isArray(data)
        ? new Uint8Array(Buffer.concat(data as Buffer[]))
        : new Uint8Array(data as Buffer);
  class RecordingWebSocket extends WebSocket {
    constructor(url: string | URL, ...rest: unknown[]) {
      super(url, ...(rest as []));
      urls.push(String(url));
      sockets.push(this);
      this.on('message', (data, binary) => {
        frames.push(
          binary
            ? { dir: 'in', text: null, bytes: toBytes(data) }
            : { dir: 'in', text: String(data), bytes: null },
        );
      });
    }
    override send(data: unknown, ...rest: unknown[]): void {
      frames.push(
        typeof data === 'string'
          ? { dir: 'out', text: data, bytes: null }
          : {
              dir: 'out',
              text: null,
              bytes: ArrayBuffer.isView(data)
                ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice()
                : toBytes(data),
            },
      );
      (super.send as (...a: unknown[]) => void)(data, ...rest);
    }
  }
  const sent = (): SentMessage[] =>
    frames.flatMap((f) => {
      if (f.dir !== 'out' || f.text === null) return [];
      const m = JSON.parse(f.text) as unknown;
      if (Array.isArray(m)) return [m as never];
      const o = m as Record<string, unknown>;
      return [[o.join_ref, o.ref, o.topic, o.event, o.payload] as never];
    });
  return { WebSocket: RecordingWebSocket, frames, sockets, urls, sent };
}
