import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { S3ERR } from './errors';

/** How far a request's time may be from ours (S3: 15 minutes). */
export const MAX_SKEW_MS = 15 * 60_000;
/** The longest presigned URL lifetime S3 accepts (7 days). */
const MAX_EXPIRES = 604_800;

export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
export const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');

/** A request's signature as the client sent it (Authorization header or query). */
export interface ClientSignature {
  accessKeyId: string;
  /** `YYYYMMDD/region/service/aws4_request`. */
  scope: string;
  region: string;
  /** `x-amz-date` / `X-Amz-Date` (`YYYYMMDDTHHMMSSZ`). */
  amzDate: string;
  signedHeaders: string[];
  signature: string;
  /** The declared payload hash (`x-amz-content-sha256`; presigned: UNSIGNED-PAYLOAD). */
  payloadHash: string;
  /** `X-Amz-Security-Token`: a user's JWT (session-token credentials). */
  sessionToken: string | null;
  /** Presigned URLs: their lifetime in seconds. */
  expires: number | null;
}

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) =>
  createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding, as SigV4 wants it (`!'()*` too). */
export const uriEncode = (text: string): string =>
  encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

function parseScope(credential: string, bad: (m: string) => Error) {
  const parts = credential.split('/');
  if (parts.length !== 5 || parts[4] !== 'aws4_request' || parts[3] !== 's3') {
    throw bad(
      `the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".`,
    );
  }
  const [accessKeyId = '', date = '', region = ''] = parts;
  return { accessKeyId, scope: parts.slice(1).join('/'), date, region };
}

function parseAmzDate(amzDate: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!m) return Number.NaN;
  return Date.UTC(
    +(m[1] ?? 0),
    +(m[2] ?? 1) - 1,
    +(m[3] ?? 0),
    +(m[4] ?? 0),
    +(m[5] ?? 0),
    +(m[6] ?? 0),
  );
}

/** The signature of a request, or null when it carries none. */
export function readSignature(req: Request, query: URLSearchParams): ClientSignature | null {
  const auth = req.headers.get('authorization');
  if (auth?.startsWith('AWS4-HMAC-SHA256 ')) {
    const fields = new Map<string, string>();
    for (const part of auth.slice(17).split(',')) {
      const at = part.indexOf('=');
      if (at > 0) fields.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
    }
    const credential = fields.get('Credential');
    const signed = fields.get('SignedHeaders');
    const signature = fields.get('Signature');
    if (!credential || !signed || !signature) {
      throw S3ERR.malformedAuth('The authorization header is malformed.');
    }
    const scope = parseScope(credential, S3ERR.malformedAuth);
    const amzDate = req.headers.get('x-amz-date') ?? '';
    const payloadHash = req.headers.get('x-amz-content-sha256');
    if (!payloadHash) {
      throw S3ERR.invalidRequest('Missing required header for this request: x-amz-content-sha256');
    }
    return {
      ...scope,
      amzDate,
      signedHeaders: signed.split(';'),
      signature,
      payloadHash,
      sessionToken: req.headers.get('x-amz-security-token'),
      expires: null,
    };
  }
  if (query.get('X-Amz-Algorithm') === null && query.get('X-Amz-Credential') === null) return null;
  const bad = S3ERR.malformedQueryAuth;
  if (query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') {
    throw bad('X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
  }
  const need = (name: string) => {
    const value = query.get(name);
    if (!value) throw bad(`Query-string authentication requires the ${name} parameter`);
    return value;
  };
  const expires = Number(need('X-Amz-Expires'));
  if (!Number.isInteger(expires) || expires < 1 || expires > MAX_EXPIRES) {
    throw bad('X-Amz-Expires must be between 1 and 604800 seconds');
  }
  return {
    ...parseScope(need('X-Amz-Credential'), bad),
    amzDate: need('X-Amz-Date'),
    signedHeaders: need('X-Amz-SignedHeaders').split(';'),
    signature: need('X-Amz-Signature'),
    // The SDK's presigner hoists `x-amz-content-sha256: UNSIGNED-PAYLOAD` into the query.
    payloadHash: query.get('X-Amz-Content-Sha256') ?? UNSIGNED_PAYLOAD,
    sessionToken: query.get('X-Amz-Security-Token'),
    expires,
  };
}

/** Refuses a request signed too far from now, or a presigned URL that expired. */
export function checkTime(sig: ClientSignature, now: number): void {
  const at = parseAmzDate(sig.amzDate);
  if (Number.isNaN(at) || sig.amzDate.slice(0, 8) !== sig.scope.slice(0, 8)) {
    throw S3ERR.accessDenied('AWS authentication requires a valid Date or x-amz-date header');
  }
  if (sig.expires !== null) {
    if (at - now > MAX_SKEW_MS) throw S3ERR.timeTooSkewed();
    if (now > at + sig.expires * 1000) throw S3ERR.expired();
    return;
  }
  if (Math.abs(now - at) > MAX_SKEW_MS) throw S3ERR.timeTooSkewed();
}

/** The canonical query string: every parameter but the signature, encoded and sorted. */
function canonicalQuery(rawQuery: string): string {
  const pairs: [string, string][] = [];
  for (const part of rawQuery.split('&')) {
    if (part === '') continue;
    const at = part.indexOf('=');
    const rawKey = at < 0 ? part : part.slice(0, at);
    const rawValue = at < 0 ? '' : part.slice(at + 1);
    let key: string;
    let value: string;
    try {
      key = decodeURIComponent(rawKey);
      value = decodeURIComponent(rawValue);
    } catch {
      throw S3ERR.invalidArgument('Malformed query string');
    }
    if (key === 'X-Amz-Signature') continue;
    pairs.push([uriEncode(key), uriEncode(value)]);
  }
  pairs.sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

/** Signing keys made lately, by secret and scope (a key changes once a day per secret). */
const signingKeys = new Map<string, Buffer>();
const SIGNING_KEYS_KEPT = 64;

/** The SigV4 signing key of a secret for a scope (four HMACs, made once a day per secret). */
export function signingKey(secret: string, scope: string): Buffer {
  const id = `${scope}\n${secret}`;
  const kept = signingKeys.get(id);
  if (kept) return kept;
  const [date = '', region = '', service = ''] = scope.split('/');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  if (signingKeys.size >= SIGNING_KEYS_KEPT) signingKeys.clear();
  signingKeys.set(id, key);
  return key;
}

/** Whether two hex signatures are equal, in constant time. */
export function sameSignature(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Verifies a request's signature with `secret`; returns the signing key (chunk signatures of
 * a streaming upload are checked with it).
 */
export function verifySignature(
  req: Request,
  url: URL,
  sig: ClientSignature,
  secret: string,
): Buffer | null {
  if (!sig.signedHeaders.includes('host')) return null;
  const headers = sig.signedHeaders
    .map((name) => `${name}:${(req.headers.get(name) ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const canonical = [
    req.method,
    url.pathname,
    canonicalQuery(url.search.slice(1)),
    headers,
    sig.signedHeaders.join(';'),
    sig.payloadHash,
  ].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', sig.amzDate, sig.scope, sha256(canonical)].join('\n');
  const key = signingKey(secret, sig.scope);
  const expected = createHmac('sha256', key).update(toSign).digest('hex');
  return sameSignature(expected, sig.signature) ? key : null;
}

/** The signature of one chunk of a `STREAMING-AWS4-HMAC-SHA256-PAYLOAD` body. */
export function chunkSignature(
  key: Buffer,
  sig: ClientSignature,
  previous: string,
  chunkSha256: string,
): string {
  const toSign = [
    'AWS4-HMAC-SHA256-PAYLOAD',
    sig.amzDate,
    sig.scope,
    previous,
    EMPTY_SHA256,
    chunkSha256,
  ].join('\n');
  return createHmac('sha256', key).update(toSign).digest('hex');
}
