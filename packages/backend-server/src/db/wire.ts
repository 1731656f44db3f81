/**
 * The PostgreSQL frontend/backend protocol (3.0), the parts the pipelined read path uses:
 * encoding of startup, password and extended-query messages, and splitting of the server's
 * byte stream into messages. Values travel in text format.
 */

import { parseArray } from './pg-array';
import type { Statement } from './types';

/** A parameter as protocol text, or undefined for one that needs a driver's serialisers. */
function paramText(value: unknown): string | null | undefined {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(value);
    default:
      return undefined;
  }
}

/** Every statement's parameters as protocol text, or null when one is not plain. */
export function textParams(statements: readonly Statement[]): (string | null)[][] | null {
  const all: (string | null)[][] = [];
  for (const st of statements) {
    const row: (string | null)[] = [];
    for (const p of st.params) {
      const text = paramText(p);
      if (text === undefined) return null;
      row.push(text);
    }
    all.push(row);
  }
  return all;
}

/** What a statement skipped after an earlier error in its transaction reports. */
export const skipped = () =>
  Object.assign(
    new Error('current transaction is aborted, commands ignored until end of transaction block'),
    { code: '25P02' },
  );

/** One backend message: its type byte and its payload (without the length word). */
export interface Message {
  type: number;
  body: Buffer;
}

/** Builds frontend messages into one growing buffer, so a batch leaves in one write. */
export class Writer {
  #buf = Buffer.allocUnsafe(4096);
  #at = 0;
  #start = -1;

  #room(n: number): void {
    if (this.#at + n <= this.#buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#at + n));
    this.#buf.copy(next, 0, 0, this.#at);
    this.#buf = next;
  }

  /** Starts a message of `type` (0 for the untyped startup message). */
  begin(type: number): this {
    if (type) {
      this.#room(1);
      this.#buf[this.#at++] = type;
    }
    this.#start = this.#at;
    return this.int32(0);
  }

  /** Ends the current message, writing its length. */
  end(): this {
    this.#buf.writeInt32BE(this.#at - this.#start, this.#start);
    return this;
  }

  int16(n: number): this {
    this.#room(2);
    this.#buf.writeInt16BE(n, this.#at);
    this.#at += 2;
    return this;
  }

  int32(n: number): this {
    this.#room(4);
    this.#buf.writeInt32BE(n, this.#at);
    this.#at += 4;
    return this;
  }

  /** A NUL-terminated UTF-8 string. */
  cstr(text: string): this {
    this.#room(Buffer.byteLength(text) + 1);
    this.#at += this.#buf.write(text, this.#at);
    this.#buf[this.#at++] = 0;
    return this;
  }

  bytes(data: Buffer): this {
    this.#room(data.length);
    data.copy(this.#buf, this.#at);
    this.#at += data.length;
    return this;
  }

  /** A length-prefixed parameter value (-1 for NULL). */
  value(text: string | null): this {
    if (text === null) return this.int32(-1);
    const n = Buffer.byteLength(text);
    this.#room(4 + n);
    this.#buf.writeInt32BE(n, this.#at);
    this.#at += 4;
    this.#at += this.#buf.write(text, this.#at);
    return this;
  }

  get length(): number {
    return this.#at;
  }

  /** The bytes written so far (a copy), and a fresh start. */
  take(): Buffer {
    const out = Buffer.from(this.#buf.subarray(0, this.#at));
    this.#at = 0;
    // A large batch (long parameters) does not keep its buffer.
    if (this.#buf.length > 1 << 20) this.#buf = Buffer.allocUnsafe(4096);
    return out;
  }
}

/**
 * Splits the server's byte stream into messages. Received chunks are joined only once the
 * next message is complete, so a large result is copied once, not once per chunk.
 */
export class Reader {
  #chunks: Buffer[] = [];
  #size = 0;
  /** Bytes needed before the next message can be complete. */
  #need = 5;

  /** Adds received bytes; returns the messages now complete. */
  push(chunk: Buffer): Message[] {
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    if (this.#size < this.#need) return [];
    const buf = this.#chunks.length === 1 ? chunk : Buffer.concat(this.#chunks, this.#size);
    const out: Message[] = [];
    let at = 0;
    while (buf.length - at >= 5) {
      const length = buf.readInt32BE(at + 1);
      if (buf.length - at < length + 1) break;
      out.push({ type: buf[at] as number, body: buf.subarray(at + 5, at + 1 + length) });
      at += length + 1;
    }
    const rest = buf.subarray(at);
    this.#chunks = rest.length ? [rest] : [];
    this.#size = rest.length;
    this.#need = rest.length >= 5 ? rest.readInt32BE(1) + 1 : 5;
    return out;
  }
}

/** Frontend message type bytes. */
export const F = {
  parse: 0x50, // P
  bind: 0x42, // B
  describe: 0x44, // D
  execute: 0x45, // E
  sync: 0x53, // S
  close: 0x43, // C
  password: 0x70, // p
  terminate: 0x58, // X
} as const;

/** Backend message type bytes. */
export const B = {
  auth: 0x52, // R
  parameterStatus: 0x53, // S
  keyData: 0x4b, // K
  ready: 0x5a, // Z
  parseComplete: 0x31, // 1
  bindComplete: 0x32, // 2
  closeComplete: 0x33, // 3
  parameterDescription: 0x74, // t
  rowDescription: 0x54, // T
  noData: 0x6e, // n
  dataRow: 0x44, // D
  commandComplete: 0x43, // C
  emptyQuery: 0x49, // I
  error: 0x45, // E
  notice: 0x4e, // N
  notification: 0x41, // A
  portalSuspended: 0x73, // s
} as const;

/** The fields of an ErrorResponse, as both drivers name them (code, message, detail, …). */
export function errorFields(body: Buffer): Record<string, string> {
  const names: Record<string, string> = {
    S: 'severity',
    V: 'severity_local',
    C: 'code',
    M: 'message',
    D: 'detail',
    H: 'hint',
    P: 'position',
    W: 'where',
    s: 'schema_name',
    t: 'table_name',
    c: 'column_name',
    n: 'constraint_name',
  };
  const out: Record<string, string> = {};
  let at = 0;
  while (at < body.length && body[at] !== 0) {
    const key = String.fromCharCode(body[at] as number);
    const end = body.indexOf(0, at + 1);
    const name = names[key];
    if (name) out[name] = body.toString('utf8', at + 1, end);
    at = end + 1;
  }
  return out;
}

/** A server error with the fields the services read (`code`, `message`, `detail`, `hint`). */
export class WireError extends Error {
  readonly code: string;
  readonly detail: string | undefined;
  readonly hint: string | undefined;

  constructor(fields: Record<string, string>) {
    super(fields.message ?? 'database error');
    // The other fields (severity, where, table_name, …) as the general driver names them.
    Object.assign(this, fields);
    this.name = 'PostgresError';
    this.code = fields.code ?? 'XX000';
    this.detail = fields.detail;
    this.hint = fields.hint;
  }
}

/** A column of a RowDescription: its name and type OID. */
export interface Field {
  name: string;
  dataTypeID: number;
}

export function rowDescription(body: Buffer): Field[] {
  const count = body.readInt16BE(0);
  const fields: Field[] = [];
  let at = 2;
  for (let i = 0; i < count; i++) {
    const end = body.indexOf(0, at);
    const name = body.toString('utf8', at, end);
    at = end + 1;
    fields.push({ name, dataTypeID: body.readInt32BE(at + 6) });
    at += 18;
  }
  return fields;
}

/** `box[]`, the one built-in array type whose elements are separated by ';'. */
export const BOX_ARRAY = 1020;

/** Array type OIDs of a database → their element type's OID. */
export type ArrayTypes = ReadonlyMap<number, number>;

/** Turns a text value into what the Database contract promises for its type. */
function parseValue(type: number, text: string, arrays?: ArrayTypes): unknown {
  const element = arrays?.get(type);
  if (element !== undefined) {
    return parseArray(text, (item) => parseValue(element, item), type === BOX_ARRAY ? ';' : ',');
  }
  switch (type) {
    case 16:
      return text === 't';
    case 21:
    case 23:
    case 26:
    case 700:
    case 701:
      return Number(text);
    case 114:
    case 3802:
      return JSON.parse(text);
    default:
      return text;
  }
}

export function dataRow(
  body: Buffer,
  fields: readonly Field[],
  arrays?: ArrayTypes,
): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  const count = body.readInt16BE(0);
  let at = 2;
  for (let i = 0; i < count; i++) {
    const n = body.readInt32BE(at);
    at += 4;
    const field = fields[i] as Field;
    if (n < 0) {
      row[field.name] = null;
      continue;
    }
    row[field.name] = parseValue(field.dataTypeID, body.toString('utf8', at, at + n), arrays);
    at += n;
  }
  return row;
}

/** Rows affected, from a CommandComplete tag (`SELECT 3`, `INSERT 0 2`, …). */
export function affected(body: Buffer): number {
  const tag = body.toString('utf8', 0, body.length - 1);
  const n = Number(tag.slice(tag.lastIndexOf(' ') + 1));
  return Number.isFinite(n) ? n : 0;
}
