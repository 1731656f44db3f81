import { ERR } from '../errors';

/** Where the bytes of a file part go; `write` is awaited (backpressure). */
export interface PartSink {
  write(chunk: Uint8Array): Promise<void>;
}

export interface FilePartInfo {
  name: string;
  filename: string;
  contentType: string | null;
}

export interface MultipartHandlers {
  /** A text field (at most `maxFieldBytes`). */
  onField(name: string, value: string): void;
  /** A file part begins: return where its bytes go, or null to skip it. */
  onFile(info: FilePartInfo): Promise<PartSink | null>;
}

export interface MultipartLimits {
  maxFields: number;
  maxFieldBytes: number;
  maxHeaderBytes: number;
}

const DEFAULT_LIMITS: MultipartLimits = {
  maxFields: 10,
  maxFieldBytes: 2 * 1024 * 1024,
  maxHeaderBytes: 16 * 1024,
};
const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/** The boundary of a `multipart/form-data` Content-Type, or null. */
export function multipartBoundary(contentType: string | null | undefined): string | null {
  if (!contentType || !/^multipart\/form-data\b/i.test(contentType)) return null;
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2] ?? null;
}

function param(header: string, name: string): string | undefined {
  const match = new RegExp(
    `;\\s*${name}="((?:[^"\\\\]|\\\\.)*)"|;\\s*${name}=([^;\\s]*)`,
    'i',
  ).exec(header);
  if (!match) return undefined;
  return (match[1] ?? match[2] ?? '').replace(/\\(.)/g, '$1');
}

/**
 * Streaming `multipart/form-data` parser: file parts flow to their sink chunk by chunk
 * (memory does not grow with the file), text fields are collected up to a limit.
 * Malformed input is an InvalidRequest storage error.
 */
export async function parseMultipart(
  body: AsyncIterable<Uint8Array>,
  boundary: string,
  handlers: MultipartHandlers,
  limits: MultipartLimits = DEFAULT_LIMITS,
): Promise<void> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  let buf: Buffer = Buffer.from(CRLF);
  let state = 'preamble' as 'preamble' | 'after' | 'headers' | 'body' | 'end';
  let sink: PartSink | null = null;
  let field: { name: string; chunks: Buffer[]; bytes: number } | null = null;
  let fields = 0;

  const emit = async (data: Buffer) => {
    if (data.byteLength === 0) return;
    if (sink) await sink.write(data);
    else if (field) {
      field.bytes += data.byteLength;
      if (field.bytes > limits.maxFieldBytes) throw ERR.invalidRequest('field value too large');
      field.chunks.push(Buffer.from(data));
    }
  };

  const startPart = async (head: string) => {
    const lines = head.split('\r\n');
    let disposition = '';
    let contentType: string | null = null;
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const key = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (key === 'content-disposition') disposition = value;
      else if (key === 'content-type') contentType = value;
    }
    if (!/^form-data\b/i.test(disposition)) throw ERR.invalidRequest('Malformed part header');
    const name = param(disposition, 'name') ?? '';
    const filename = param(disposition, 'filename');
    sink = null;
    field = null;
    if (filename !== undefined) {
      sink = await handlers.onFile({ name, filename, contentType });
      if (!sink) sink = { write: async () => {} };
    } else {
      if (++fields > limits.maxFields) throw ERR.invalidRequest('Too many fields');
      field = { name, chunks: [], bytes: 0 };
    }
  };

  const endPart = () => {
    if (field) handlers.onField(field.name, Buffer.concat(field.chunks).toString('utf8'));
    sink = null;
    field = null;
  };

  const step = async (): Promise<boolean> => {
    switch (state) {
      case 'preamble': {
        const at = buf.indexOf(delimiter);
        if (at < 0) {
          buf = buf.subarray(Math.max(0, buf.length - delimiter.length + 1));
          return false;
        }
        buf = buf.subarray(at + delimiter.length);
        state = 'after';
        return true;
      }
      case 'after': {
        if (buf.length < 2) return false;
        if (buf[0] === 0x2d && buf[1] === 0x2d) {
          state = 'end';
          return false;
        }
        const eol = buf.indexOf(CRLF);
        if (eol < 0) {
          if (buf.length > 256) throw ERR.invalidRequest('Malformed multipart body');
          return false;
        }
        if (buf.subarray(0, eol).toString('latin1').trim() !== '') {
          throw ERR.invalidRequest('Malformed multipart body');
        }
        buf = buf.subarray(eol + 2);
        state = 'headers';
        return true;
      }
      case 'headers': {
        const at = buf.indexOf(HEADER_END);
        if (at < 0) {
          if (buf.length > limits.maxHeaderBytes) throw ERR.invalidRequest('Part header too large');
          return false;
        }
        await startPart(buf.subarray(0, at).toString('utf8'));
        buf = buf.subarray(at + 4);
        state = 'body';
        return true;
      }
      case 'body': {
        const at = buf.indexOf(delimiter);
        if (at < 0) {
          const keep = delimiter.length - 1;
          if (buf.length > keep) {
            await emit(buf.subarray(0, buf.length - keep));
            buf = buf.subarray(buf.length - keep);
          }
          return false;
        }
        await emit(buf.subarray(0, at));
        endPart();
        buf = buf.subarray(at + delimiter.length);
        state = 'after';
        return true;
      }
      default:
        return false;
    }
  };

  for await (const chunk of body) {
    if (state === 'end') continue;
    const data = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    buf = buf.length === 0 ? data : Buffer.concat([buf, data]);
    while (await step()) {}
  }
  if (state !== 'end') throw ERR.invalidRequest('Unexpected end of form');
}
