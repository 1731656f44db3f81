/**
 * Phoenix frame codecs: vsn 1.0.0 (JSON objects), vsn 2.0.0 (JSON arrays) and the realtime
 * binary broadcast frames of vsn 2.0.0 (kind 3 client → server, kind 4 server → client).
 */

/** One Phoenix message. */
export interface Message {
  join_ref: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: Record<string, unknown>;
}

/** Protocol versions the client speaks. */
export type Vsn = '1.0.0' | '2.0.0';

const enc = new TextEncoder();
const dec = new TextDecoder();

/**
 * Encodes a message for the socket. In vsn 2.0.0 a broadcast with a string event becomes a
 * binary `userBroadcastPush` frame (kind 3).
 *
 * @example
 * encode({ join_ref: '1', ref: '2', topic: 'realtime:room', event: 'phx_leave', payload: {} }, '2.0.0');
 * // '["1","2","realtime:room","phx_leave",{}]'
 */
export function encode(msg: Message, vsn: Vsn): string | ArrayBuffer {
  const { join_ref, ref, topic, event, payload } = msg;
  if (vsn === '1.0.0') return JSON.stringify({ topic, event, payload, ref, join_ref });
  const userEvent = payload.event;
  if (event === 'broadcast' && typeof userEvent === 'string') {
    const data = payload.payload;
    const binary = data instanceof ArrayBuffer;
    const body = binary ? new Uint8Array(data) : enc.encode(JSON.stringify(data ?? {}));
    const parts = [join_ref ?? '', ref ?? '', topic, userEvent, ''].map((s) => enc.encode(s));
    if (parts.some((p) => p.length > 255))
      return JSON.stringify([join_ref, ref, topic, event, payload]);
    const head = [3, ...parts.map((p) => p.length), binary ? 0 : 1];
    const out = new Uint8Array(head.length + parts.reduce((n, p) => n + p.length, 0) + body.length);
    out.set(head);
    let at = head.length;
    for (const p of [...parts, body]) {
      out.set(p, at);
      at += p.length;
    }
    return out.buffer;
  }
  return JSON.stringify([join_ref, ref, topic, event, payload]);
}

/**
 * Decodes a frame from the socket, or returns `undefined` for one it does not understand.
 *
 * @example
 * decode('[null,null,"realtime:room","broadcast",{"event":"x","payload":{}}]', '2.0.0');
 */
export function decode(data: string | ArrayBuffer | Uint8Array, vsn: Vsn): Message | undefined {
  try {
    if (typeof data !== 'string') {
      const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
      if (bytes[0] !== 4) return undefined;
      const [topicLen = 0, eventLen = 0, metaLen = 0, encoding] = bytes.subarray(1, 5);
      let at = 5;
      const take = (n: number) => {
        at += n;
        return dec.decode(bytes.subarray(at - n, at));
      };
      const topic = take(topicLen);
      const userEvent = take(eventLen);
      const meta = take(metaLen);
      const rest = bytes.slice(at);
      const payload: Record<string, unknown> = {
        type: 'broadcast',
        event: userEvent,
        payload: encoding === 0 ? rest.buffer : JSON.parse(dec.decode(rest)),
      };
      if (meta) payload.meta = JSON.parse(meta);
      return { join_ref: null, ref: null, topic, event: 'broadcast', payload };
    }
    const value = JSON.parse(data);
    const [join_ref, ref, topic, event, payload] =
      vsn === '1.0.0' || !Array.isArray(value)
        ? [value.join_ref ?? null, value.ref ?? null, value.topic, value.event, value.payload]
        : value;
    return { join_ref, ref, topic, event, payload: payload ?? {} };
  } catch {
    return undefined;
  }
}
