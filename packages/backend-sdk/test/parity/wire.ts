/**
 * Recording the wire for the parity test: a pass-through `fetch` that keeps each request
 * (method, path, query in order, headers, body bytes), and a comparable form of requests,
 * WebSocket frames and results in which the values that differ by nature between two runs
 * (tokens, ids, times, random names) are replaced by placeholders.
 *
 * Every rule here that hides a difference between the two clients (rather than between two
 * runs) is a global entry of `intended-differences.ts`, counted when it applies.
 */
import type { Frame } from '../support/ws-record';

type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/** One HTTP request as a client sent it. */
export interface WireRequest {
  method: string;
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body: Uint8Array | null;
}

/**
 * A fetch that records each request, then sends it. A stream body is read once for the
 * record and sent as the same bytes.
 */
export function recorder(): { fetch: FetchLike; log: WireRequest[] } {
  const log: WireRequest[] = [];
  const wrapped: FetchLike = async (input, init) => {
    const request = new Request(input, init as RequestInit);
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : null;
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => {
      headers[k] = v;
    });
    log.push({
      method: request.method,
      path: url.pathname,
      query: [...url.searchParams.entries()],
      headers,
      body,
    });
    return fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: body as BodyInit | null,
      signal: init?.signal ?? request.signal,
      redirect: 'manual',
    });
  };
  return { fetch: wrapped, log };
}

/** Values that differ between the two runs, replaced before comparing. */
export interface Secrets {
  anonKey: string;
  serviceRoleKey: string;
  publishableKey: string;
  secretKey: string;
}

/** Counts how often each global rule of `intended-differences.ts` applied. */
export const ruleHits = new Map<string, number>();
const hit = (rule: string) => ruleHits.set(rule, (ruleHits.get(rule) ?? 0) + 1);

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const JWT = /eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/g;
const TIME =
  /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}(:?\d{2})?)?|\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT/g;
const SIDE = /z(ours|theirs)z/g;
/** Multipart boundaries fetch makes up (echoed back by functions). */
const BOUNDARY = /-*formdata-undici-\d+/g;

/** Replaces run-specific values inside a string. */
export function scrub(text: string, secrets: Secrets): string {
  return text
    .replaceAll(secrets.anonKey, '<anon key>')
    .replaceAll(secrets.serviceRoleKey, '<service key>')
    .replaceAll(secrets.publishableKey, '<publishable key>')
    .replaceAll(secrets.secretKey, '<secret key>')
    .replace(JWT, '<jwt>')
    .replace(UUID, '<uuid>')
    .replace(TIME, '<time>')
    .replace(SIDE, 'zsidez')
    .replace(BOUNDARY, '<boundary>');
}

/** Keys whose values differ between two runs by nature (random, time-based). */
const VOLATILE = new Set([
  'refresh_token',
  'provider_token',
  'provider_refresh_token',
  'token',
  'secret',
  'uri',
  'qr_code',
  'phone',
  'expires_at',
  'iat',
  'exp',
  'timestamp',
  'code_challenge',
  'code_verifier',
  'auth_code',
  'token_hash',
  'phx_ref',
  'phx_ref_prev',
  'presence_ref',
  'commit_timestamp',
  'etag',
  'eTag',
  'hashed_token',
  'email_otp',
  'otp',
  'nonce',
  'action_link',
  'verification_token',
  'signedURL',
  'signedUrl',
  'upload_url',
  'url',
  'lastModified',
  'httpStatusCode',
]);

/** Keys of request bodies whose values differ by nature (a one-time code). */
const VOLATILE_IN_REQUESTS = new Set([...VOLATILE, 'code']);

/** A JSON-like value with run-specific values replaced. */
export function scrubValue(
  value: unknown,
  secrets: Secrets,
  key?: string,
  volatile: Set<string> = VOLATILE,
): unknown {
  if (key && volatile.has(key) && value !== null && value !== undefined)
    return typeof value === 'string' ? scrubVolatile(value, secrets) : '<volatile>';
  if (typeof value === 'string') return scrub(value, secrets);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, secrets, undefined, volatile));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[scrub(k, secrets)] = scrubValue(v, secrets, k, volatile);
    return out;
  }
  return value;
}

/** A volatile string keeps its shape (a URL keeps its path) without its random parts. */
function scrubVolatile(value: string, secrets: Secrets): string {
  if (/^https?:\/\//.test(value)) {
    const url = new URL(value);
    for (const k of [...url.searchParams.keys()]) url.searchParams.set(k, '<volatile>');
    return scrub(decodeURIComponent(url.href), secrets);
  }
  return '<volatile>';
}

/** Headers compared, with why the others are not. */
const IGNORED_HEADERS = new Set([
  // The body length follows from the body, compared on its own.
  'content-length',
]);

/** A request in comparable form. */
export function comparableRequest(r: WireRequest, secrets: Secrets): Record<string, unknown> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) {
    if (IGNORED_HEADERS.has(k)) continue;
    if (k === 'x-client-info') {
      hit('x-client-info');
      headers[k] = '<client info>';
      continue;
    }
    headers[k] = scrub(
      k === 'content-type' ? v.replace(/boundary=.*/, 'boundary=<boundary>') : v,
      secrets,
    );
  }
  const query = r.query.map(([k, v]) => [
    k,
    VOLATILE.has(k) ? '<volatile>' : scrub(v, secrets),
  ]) as [string, string][];
  return {
    method: r.method,
    path: scrub(decodeURIComponent(r.path), secrets),
    query,
    headers,
    body: comparableBody(r.body, r.headers['content-type'] ?? '', secrets),
  };
}

function comparableBody(body: Uint8Array | null, type: string, secrets: Secrets): unknown {
  if (body === null || body.length === 0) return null;
  const text = new TextDecoder().decode(body);
  if (type.includes('json')) {
    try {
      return { json: scrubValue(JSON.parse(text), secrets, undefined, VOLATILE_IN_REQUESTS) };
    } catch {}
  }
  const boundary = /boundary=([^;]+)/.exec(type)?.[1];
  if (boundary) return { multipart: scrub(text.replaceAll(boundary, '<boundary>'), secrets) };
  const printable = /^[\t\n\r\x20-\x7e]*$/.test(text);
  return printable ? { text: scrub(text, secrets) } : { bytes: Buffer.from(body).toString('hex') };
}

/** WebSocket frames in comparable form: refs renumbered in order of appearance. */
export function comparableFrames(
  frames: Frame[],
  urls: string[],
  secrets: Secrets,
): Record<string, unknown> {
  const refs = new Map<string, string>();
  const ref = (r: unknown) => {
    if (r === null || r === undefined) return r;
    const key = String(r);
    if (!refs.has(key)) refs.set(key, `#${refs.size + 1}`);
    return refs.get(key);
  };
  const out: unknown[] = [];
  const inbound: unknown[] = [];
  // What the server sends after a leave (its reply, phx_close) races with the end of the
  // recording, so it is not compared; the leave itself is.
  const left = new Set<unknown>();
  for (const f of frames) {
    const m = f.text !== null ? parseText(f.text) : parseBinary(f.bytes as Uint8Array);
    if (m.topic === 'phoenix' && m.event === 'heartbeat') continue; // timing, not protocol
    if (m.topic === 'phoenix' && m.event === 'phx_reply') continue; // heartbeat replies
    if (f.dir === 'in' && left.has(m.topic)) continue;
    if (f.dir === 'out' && m.event === 'phx_leave') left.add(m.topic);
    const payload = scrubValue(m.payload, secrets) as Record<string, Record<string, unknown>>;
    // The server numbers postgres_changes subscriptions at random.
    const subscriptions = payload?.response?.postgres_changes as Array<{ id: unknown }> | undefined;
    if (Array.isArray(subscriptions)) for (const s of subscriptions) s.id = '<subscription id>';
    if (m.event === 'postgres_changes' && payload?.ids)
      payload.ids = ['<subscription id>'] as never;
    const message = {
      ...m,
      join_ref: ref(m.join_ref),
      ref: ref(m.ref),
      topic: scrub(String(m.topic), secrets),
      payload,
    };
    (f.dir === 'out' ? out : inbound).push(message);
  }
  return {
    urls: urls.map((u) => {
      const url = new URL(u);
      return {
        path: url.pathname,
        query: [...url.searchParams].map(([k, v]) => [k, scrub(v, secrets)]),
      };
    }),
    out,
    in: inbound,
  };
}

interface Parsed {
  binary?: number;
  join_ref: unknown;
  ref: unknown;
  topic: unknown;
  event: unknown;
  payload: unknown;
}

function parseText(text: string): Parsed {
  const m = JSON.parse(text) as unknown;
  if (Array.isArray(m)) {
    const [join_ref, ref, topic, event, payload] = m;
    return { join_ref, ref, topic, event, payload };
  }
  const o = m as Record<string, unknown>;
  return {
    join_ref: o.join_ref,
    ref: o.ref,
    topic: o.topic,
    event: o.event,
    payload: o.payload,
  };
}

/** Binary frames of vsn 2.0.0: kind 3 (client broadcast push) and kind 4 (server broadcast). */
function parseBinary(bytes: Uint8Array): Parsed {
  const dec = new TextDecoder();
  const kind = bytes[0] ?? -1;
  let at = 0;
  const take = (n: number) => {
    at += n;
    return dec.decode(bytes.subarray(at - n, at));
  };
  if (kind === 3) {
    const [jl = 0, rl = 0, tl = 0, el = 0, ml = 0, encoding] = bytes.subarray(1, 7);
    at = 7;
    const [join_ref, ref, topic, event, meta] = [jl, rl, tl, el, ml].map(take);
    const rest = bytes.subarray(at);
    return {
      binary: 3,
      join_ref,
      ref,
      topic,
      event: 'broadcast',
      payload: {
        event,
        meta,
        encoding,
        payload: encoding === 1 ? JSON.parse(dec.decode(rest)) : Buffer.from(rest).toString('hex'),
      },
    };
  }
  if (kind === 4) {
    const [tl = 0, el = 0, ml = 0, encoding] = bytes.subarray(1, 5);
    at = 5;
    const [topic, event, meta] = [tl, el, ml].map(take);
    const rest = bytes.subarray(at);
    return {
      binary: 4,
      join_ref: null,
      ref: null,
      topic,
      event: 'broadcast',
      payload: {
        event,
        meta: meta ? JSON.parse(meta) : null,
        encoding,
        payload: encoding === 1 ? JSON.parse(dec.decode(rest)) : Buffer.from(rest).toString('hex'),
      },
    };
  }
  return { binary: kind, join_ref: null, ref: null, topic: '?', event: '?', payload: null };
}

/**
 * A result in comparable form: errors as their own enumerable fields plus `name` and
 * `message`, and the lists of their own enumerable keys (`$keys`) and JSON keys (`$json`), Blobs/Responses/FormData/streams as what they contain.
 */
export async function comparableResult(value: unknown, secrets: Secrets): Promise<unknown> {
  const ancestors = new Set<unknown>();
  const walk = async (v: unknown, key?: string): Promise<unknown> => {
    if (v === undefined) return '<undefined>';
    if (typeof v === 'function') return '<function>';
    if (v === null || typeof v !== 'object') return scrubValue(v, secrets, key);
    if (ancestors.has(v)) return '<cycle>';
    ancestors.add(v);
    try {
      return await walkObject(v, key);
    } finally {
      ancestors.delete(v);
    }
  };
  const walkObject = async (v: object, key?: string): Promise<unknown> => {
    if (v instanceof Error) {
      const fields: Record<string, unknown> = { [ERROR]: true, name: v.name, message: v.message };
      for (const [k, f] of Object.entries(v)) fields[k] = await walk(f, k);
      // What code comparing error objects sees: their own enumerable keys, in order, and the
      // keys of their JSON. Ours must have the same (our extra fields are not enumerable).
      fields.$keys = Object.keys(v);
      fields.$json = Object.keys(JSON.parse(JSON.stringify(v)));
      return fields;
    }
    if (typeof Blob !== 'undefined' && v instanceof Blob)
      return { blob: { type: v.type, size: v.size, text: scrub(await v.text(), secrets) } };
    if (isResponse(v)) return { response: { status: v.status, bodyUsed: v.bodyUsed } };
    if (typeof FormData !== 'undefined' && v instanceof FormData)
      return { formData: await walk(Object.fromEntries(v.entries())) };
    if (typeof ReadableStream !== 'undefined' && v instanceof ReadableStream)
      return { stream: true };
    if (v instanceof ArrayBuffer || ArrayBuffer.isView(v))
      return { bytes: (v as ArrayBuffer).byteLength };
    if (Array.isArray(v)) return Promise.all(v.map((x) => walk(x)));
    const out: Record<string, unknown> = {};
    for (const [k, f] of Object.entries(v)) out[scrub(k, secrets)] = await walk(f, k);
    return scrubValue(out, secrets, key);
  };
  return walk(value);
}

const isResponse = (v: object): v is Response =>
  'status' in v && 'headers' in v && 'bodyUsed' in v && typeof (v as Response).text === 'function';

/** Marks an Error in a comparable result: ours may have fields of its own there. */
export const ERROR = '$error';

/** One difference: where, and the two values. */
export interface Difference {
  path: string;
  theirs: unknown;
  ours: unknown;
}

/**
 * The differences between the official client's comparable value and ours. Objects under a
 * path for which `extraAllowed(path)` is true may have keys of ours only (our extra fields).
 */
export function differences(
  theirs: unknown,
  ours: unknown,
  path = '',
  extraAllowed: (path: string) => boolean = () => false,
  out: Difference[] = [],
): Difference[] {
  const isObj = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v);
  if (Array.isArray(theirs) && Array.isArray(ours)) {
    if (theirs.length !== ours.length)
      out.push({ path: `${path}.length`, theirs: theirs.length, ours: ours.length });
    const n = Math.min(theirs.length, ours.length);
    for (let i = 0; i < n; i++) differences(theirs[i], ours[i], `${path}[${i}]`, extraAllowed, out);
    return out;
  }
  if (isObj(theirs) && isObj(ours)) {
    const ourError = ERROR in ours;
    for (const k of Object.keys(theirs)) {
      if (k === ERROR) continue;
      const p = path ? `${path}.${k}` : k;
      if (!(k in ours)) out.push({ path: p, theirs: theirs[k], ours: '<missing>' });
      else differences(theirs[k], ours[k], p, extraAllowed, out);
    }
    if (!ourError && !extraAllowed(path))
      for (const k of Object.keys(ours))
        if (!(k in theirs))
          out.push({ path: path ? `${path}.${k}` : k, theirs: '<missing>', ours: ours[k] });
    return out;
  }
  if (JSON.stringify(theirs) !== JSON.stringify(ours)) out.push({ path, theirs, ours });
  return out;
}
