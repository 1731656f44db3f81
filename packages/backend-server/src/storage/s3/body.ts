import { createHash } from 'node:crypto';
import { drain } from '../http/body';
import { type PayloadChecksum, payloadChecksum } from './body-checksum';
import { S3ERR } from './errors';
import { type ClientSignature, chunkSignature, sameSignature, UNSIGNED_PAYLOAD } from './sigv4';

const CRLF = Buffer.from('\r\n');
const MAX_LINE = 4096;

/** Checks one chunk's signature (`null` when the chunk carried none) against its sha256. */
type ChunkCheck = (signature: string | null, sha256: string) => void;

const malformed = () => S3ERR.invalidRequest('The aws-chunked body is malformed');

/**
 * Decodes an `aws-chunked` body (`<hex size>[;chunk-signature=<sig>]\r\n<data>\r\n` … a
 * zero-size chunk, then optional trailer lines), checking each chunk's signature when
 * `check` is given. Data is passed on as it arrives; a bad signature fails the stream, so
 * the upload it feeds is discarded.
 */
export async function* decodeAwsChunked(
  source: AsyncIterable<Uint8Array>,
  check: ChunkCheck | null,
  trailers: Map<string, string> = new Map(),
): AsyncGenerator<Uint8Array> {
  const it = source[Symbol.asyncIterator]();
  let buf: Buffer = Buffer.alloc(0);
  let ended = false;
  const more = async () => {
    const { done, value } = await it.next();
    if (done) {
      ended = true;
      return;
    }
    const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    buf = buf.length > 0 ? Buffer.concat([buf, chunk]) : chunk;
  };
  const line = async (): Promise<string | null> => {
    for (;;) {
      const at = buf.indexOf(CRLF);
      if (at >= 0) {
        const text = buf.subarray(0, at).toString('latin1');
        buf = buf.subarray(at + 2);
        return text;
      }
      if (buf.length > MAX_LINE) throw malformed();
      if (ended) return null;
      await more();
    }
  };
  for (;;) {
    const header = await line();
    if (header === null) throw S3ERR.incompleteBody();
    const [hex = '', ...extensions] = header.split(';');
    if (!/^[0-9a-fA-F]{1,16}$/.test(hex)) throw malformed();
    const size = Number.parseInt(hex, 16);
    const signature =
      extensions.find((x) => x.startsWith('chunk-signature='))?.slice('chunk-signature='.length) ??
      null;
    const hash = check ? createHash('sha256') : null;
    let left = size;
    while (left > 0) {
      if (buf.length === 0) {
        if (ended) throw S3ERR.incompleteBody();
        await more();
        continue;
      }
      const piece = buf.subarray(0, Math.min(left, buf.length));
      buf = buf.subarray(piece.length);
      left -= piece.length;
      hash?.update(piece);
      yield piece;
    }
    if (check && hash) check(signature, hash.digest('hex'));
    if (size === 0) break;
    while (buf.length < 2 && !ended) await more();
    if (buf[0] !== 13 || buf[1] !== 10) throw malformed();
    buf = buf.subarray(2);
  }
  // Trailers (`x-amz-checksum-crc32:…`, `x-amz-trailer-signature:…`) up to an empty line.
  for (;;) {
    const trailer = await line();
    if (trailer === null || trailer === '') break;
    const at = trailer.indexOf(':');
    if (at > 0)
      trailers.set(trailer.slice(0, at).trim().toLowerCase(), trailer.slice(at + 1).trim());
  }
}

/** A request body as S3 sent it: decoded, its signatures and hashes checked as it is read. */
export interface S3Body {
  /** The payload bytes (aws-chunked decoded; fails on a bad signature, hash or length). */
  chunks: AsyncIterable<Uint8Array>;
  /** The payload length the request declared, or null. */
  length: number | null;
  /** Reads what is left (bounded), so the client sees our answer. */
  drain(): Promise<void>;
  /**
   * The checksum the client sent (header or trailer) as `[header, value]`, verified once
   * the chunks are read (a mismatch fails them with BadDigest); null when none was sent.
   */
  checksum(): [string, string] | null;
}

function raw(
  open: () => ReadableStreamDefaultReader<Uint8Array> | null,
): AsyncIterable<Uint8Array> {
  return {
    async *[Symbol.asyncIterator]() {
      const reader = open();
      if (!reader) return;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    },
  };
}

/**
 * Counts bytes against the declared length and checks a signed sha256 and the client's
 * checksum at the end.
 */
async function* checked(
  source: AsyncIterable<Uint8Array>,
  length: number | null,
  sha256: string | null,
  checksum: PayloadChecksum | null,
): AsyncGenerator<Uint8Array> {
  const hash = sha256 ? createHash('sha256') : null;
  let seen = 0;
  for await (const chunk of source) {
    seen += chunk.byteLength;
    if (length !== null && seen > length) throw S3ERR.incompleteBody();
    hash?.update(chunk);
    checksum?.update(chunk);
    yield chunk;
  }
  if (length !== null && seen !== length) throw S3ERR.incompleteBody();
  if (hash && hash.digest('hex') !== sha256) throw S3ERR.sha256Mismatch();
  checksum?.verify();
}

/**
 * The body of a verified request, per its `x-amz-content-sha256`: a hex hash (checked at the
 * end), UNSIGNED-PAYLOAD, or a streaming mode (aws-chunked; signed chunks checked with the
 * request's signing key).
 */
export function s3Body(req: Request, sig: ClientSignature, key: Buffer): S3Body {
  const mode = sig.payloadHash;
  const streaming = mode.startsWith('STREAMING-');
  const signedChunks = mode.startsWith('STREAMING-AWS4-HMAC-SHA256-PAYLOAD');
  if (streaming && !signedChunks && mode !== 'STREAMING-UNSIGNED-PAYLOAD-TRAILER') {
    throw S3ERR.invalidArgument(`Unsupported x-amz-content-sha256: ${mode}`);
  }
  const sha256 = streaming || mode === UNSIGNED_PAYLOAD ? null : mode.toLowerCase();
  if (sha256 !== null && !/^[0-9a-f]{64}$/.test(sha256)) {
    throw S3ERR.invalidArgument(`Invalid x-amz-content-sha256: ${mode}`);
  }
  const contentLength = req.headers.get('content-length');
  // The body is opened on first use: a GetObject never touches it (opening the Request's
  // body makes the HTTP server build a whole Request, a tenth of a millisecond per call).
  const declared = req.headers.has('transfer-encoding') || (contentLength ?? '0') !== '0';
  let reader: ReadableStreamDefaultReader<Uint8Array> | null | undefined;
  const open = () => {
    if (reader === undefined) reader = declared ? (req.body?.getReader() ?? null) : null;
    return reader;
  };
  const decoded = req.headers.get('x-amz-decoded-content-length');
  const num = (v: string | null) => (v !== null && /^\d+$/.test(v) ? Number(v) : null);
  const drainIt = async () => {
    const opened = open();
    if (opened) await drain(opened);
  };
  const trailers = new Map<string, string>();
  const sum = payloadChecksum(req.headers, trailers);
  const checksum = () => sum?.result() ?? null;
  if (streaming) {
    let check: ChunkCheck | null = null;
    if (signedChunks) {
      let previous = sig.signature;
      check = (signature, chunkSha256) => {
        const expected = chunkSignature(key, sig, previous, chunkSha256);
        if (!signature || !sameSignature(expected, signature)) throw S3ERR.signatureDoesNotMatch();
        previous = signature;
      };
    }
    const source = decodeAwsChunked(raw(open), check, trailers);
    const chunks = checked(source, num(decoded), null, sum);
    return { chunks, length: num(decoded), drain: drainIt, checksum };
  }
  const length = num(contentLength);
  const chunks = checked(raw(open), length, sha256, sum);
  return { chunks, length, drain: drainIt, checksum };
}

/** A small body (an XML document) as text; larger than `limit` bytes is MalformedXML. */
export async function readSmall(body: S3Body, limit = 2 * 1024 * 1024): Promise<string> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body.chunks) {
    size += chunk.byteLength;
    if (size > limit) throw S3ERR.malformedXml();
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** An answer's headers plus the verified checksum the client sent, echoed as S3 does. */
export function withChecksum(
  call: { body: S3Body },
  headers: Record<string, string>,
): Record<string, string> {
  const sum = call.body.checksum();
  return sum ? { ...headers, [sum[0]]: sum[1] } : headers;
}
