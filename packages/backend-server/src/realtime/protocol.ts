/**
 * Phoenix channel frames in the two encodings realtime clients speak:
 * vsn 1.0.0 — JSON objects; vsn 2.0.0 — JSON arrays `[join_ref, ref, topic, event, payload]`
 * plus binary user broadcasts (kind 3 from the client, kind 4 to the client).
 */

export type Vsn = '1.0.0' | '2.0.0';

/** A decoded client frame. */
export interface InMessage {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: unknown;
}

/** A broadcast that came in as a binary kind 3 frame (or over REST as raw bytes). */
export interface UserBroadcast {
  event: string;
  /** 0 = binary, 1 = JSON. */
  encoding: 0 | 1;
  payload: Uint8Array;
  /** Metadata JSON text, or ''. */
  metadata: string;
}

/**
 * An outgoing frame: a string (text frame), a Buffer (binary frame), or text already encoded
 * to UTF-8 once for a fan-out to many sockets.
 */
export type Frame = string | Buffer | { text: Buffer };

/** Encodes a text frame once, for sending the same bytes to many sockets. */
export const sharedText = (text: string): Frame => ({ text: Buffer.from(text) });

const KIND_USER_BROADCAST_PUSH = 3;
const KIND_USER_BROADCAST = 4;

const isRef = (v: unknown): v is string | null => v === null || typeof v === 'string';

function refOf(v: unknown): string | null {
  if (typeof v === 'number') return String(v);
  return isRef(v) ? v : null;
}

/** Decodes a text frame of either encoding; null when it is not a Phoenix message. */
export function decodeText(vsn: Vsn, text: string): InMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (vsn === '2.0.0') {
    if (!Array.isArray(value) || value.length !== 5) return null;
    const [joinRef, ref, topic, event, payload] = value as unknown[];
    if (typeof topic !== 'string' || typeof event !== 'string') return null;
    return { joinRef: refOf(joinRef), ref: refOf(ref), topic, event, payload };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const m = value as Record<string, unknown>;
  if (typeof m.topic !== 'string' || typeof m.event !== 'string') return null;
  return {
    joinRef: refOf(m.join_ref),
    ref: refOf(m.ref),
    topic: m.topic,
    event: m.event,
    payload: m.payload,
  };
}

/** Decodes a binary kind 3 frame; null when malformed. */
export function decodeBinary(data: Buffer): (InMessage & { broadcast: UserBroadcast }) | null {
  if (data.length < 7 || data[0] !== KIND_USER_BROADCAST_PUSH) return null;
  const lengths = [data[1], data[2], data[3], data[4], data[5]] as number[];
  const encoding = data[6];
  if (encoding !== 0 && encoding !== 1) return null;
  let offset = 7;
  const parts: string[] = [];
  for (const length of lengths) {
    if (offset + length > data.length) return null;
    parts.push(data.toString('utf8', offset, offset + length));
    offset += length;
  }
  const [joinRef, ref, topic, event, metadata] = parts as [string, string, string, string, string];
  return {
    joinRef: joinRef || null,
    ref: ref || null,
    topic,
    event: 'broadcast',
    payload: null,
    broadcast: { event, encoding, payload: data.subarray(offset), metadata },
  };
}

/** Encodes a server message (push, reply or broadcast) as a text frame. */
export function encode(
  vsn: Vsn,
  joinRef: string | null,
  ref: string | null,
  topic: string,
  event: string,
  payload: unknown,
): string {
  if (vsn === '2.0.0') return JSON.stringify([joinRef, ref, topic, event, payload]);
  return JSON.stringify({ topic, event, payload, ref });
}

/** Encodes a kind 4 user broadcast frame for v2 sockets. */
export function encodeUserBroadcast(topic: string, b: UserBroadcast): Buffer {
  const topicBytes = Buffer.from(topic);
  const eventBytes = Buffer.from(b.event);
  const metaBytes = Buffer.from(b.metadata);
  if (topicBytes.length > 255 || eventBytes.length > 255 || metaBytes.length > 255) {
    throw new RangeError('topic, event and metadata must each be at most 255 bytes');
  }
  const header = Buffer.from([
    KIND_USER_BROADCAST,
    topicBytes.length,
    eventBytes.length,
    metaBytes.length,
    b.encoding,
  ]);
  return Buffer.concat([header, topicBytes, eventBytes, metaBytes, b.payload]);
}

/**
 * The JSON form of a user broadcast (for v1 sockets): `{type, event, payload[, meta]}`;
 * null for a binary payload, which v1 cannot carry.
 */
export function userBroadcastJson(b: UserBroadcast): Record<string, unknown> | null {
  if (b.encoding !== 1) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(b.payload).toString('utf8'));
  } catch {
    return null;
  }
  const out: Record<string, unknown> = { type: 'broadcast', event: b.event, payload };
  if (b.metadata) {
    try {
      out.meta = JSON.parse(b.metadata);
    } catch {
      // Unreadable metadata is left out.
    }
  }
  return out;
}
