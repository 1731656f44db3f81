/**
 * A minimal tar (ustar) writer and reader for the export archive: regular files only, names
 * up to 100 bytes, sizes past 8 GiB in GNU base-256. Any tar tool can list and extract what
 * the writer makes.
 */
import type { FileHandle } from 'node:fs/promises';

const BLOCK = 512;
const ZEROS = Buffer.alloc(BLOCK * 2);

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** The 512-byte header of a regular file. */
export function header(name: string, size: number, mtime: Date): Buffer {
  const h = Buffer.alloc(BLOCK);
  if (Buffer.byteLength(name) > 100) throw new Error(`tar: name too long: ${name}`);
  h.write(name, 0, 100, 'utf8');
  h.write(octal(0o644, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  if (size < 8 ** 11) h.write(octal(size, 12), 124, 'ascii');
  else {
    // GNU base-256: high bit set, big-endian number in the remaining bytes.
    h[124] = 0x80;
    h.writeBigUInt64BE(BigInt(size), 124 + 4);
  }
  h.write(octal(Math.floor(mtime.getTime() / 1000), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write('0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** Bytes of padding after `size` bytes of content. */
export const padding = (size: number) => (BLOCK - (size % BLOCK)) % BLOCK;

/** Writes entries to an open file, sequentially. */
export class TarWriter {
  #position = 0;
  constructor(private readonly file: FileHandle) {}

  /** Where the next entry starts. */
  get position(): number {
    return this.#position;
  }

  /** Goes on after entries written by other means, up to `position`. */
  skipTo(position: number): void {
    this.#position = position;
  }

  async #write(data: Uint8Array): Promise<void> {
    let done = 0;
    while (done < data.byteLength) {
      const { bytesWritten } = await this.file.write(
        data,
        done,
        data.byteLength - done,
        this.#position,
      );
      done += bytesWritten;
      this.#position += bytesWritten;
    }
  }

  /** An entry whose bytes are in memory (in pieces). */
  async add(name: string, pieces: readonly Uint8Array[], mtime = new Date()): Promise<void> {
    const size = pieces.reduce((n, p) => n + p.byteLength, 0);
    await this.#write(header(name, size, mtime));
    for (const piece of pieces) await this.#write(piece);
    await this.#write(ZEROS.subarray(0, padding(size)));
  }

  /** The end-of-archive marker. */
  async finish(): Promise<void> {
    await this.#write(ZEROS);
  }
}

/** An entry header as the reader found it. */
export interface TarEntry {
  name: string;
  size: number;
  /** Offset of the entry's first content byte in the file. */
  offset: number;
}

/** Why a file is not a readable tar at some point. */
export class TarError extends Error {}

function parseSize(h: Buffer): number {
  if ((h[124] ?? 0) & 0x80) return Number(h.readBigUInt64BE(124 + 4));
  const text = h.toString('ascii', 124, 136).replace(/\0.*$/, '').trim();
  if (!/^[0-7]+$/.test(text)) throw new TarError('bad size field');
  return Number.parseInt(text, 8);
}

/** Reads entry headers of an open file one after another. */
export class TarReader {
  #position = 0;
  readonly #header = Buffer.alloc(BLOCK);
  constructor(
    private readonly file: FileHandle,
    private readonly length: number,
  ) {}

  /** The next entry, or null at the end-of-archive marker. Throws TarError on damage. */
  async next(): Promise<TarEntry | null> {
    if (this.#position + BLOCK > this.length) throw new TarError('the archive ends in the middle');
    const { bytesRead } = await this.file.read(this.#header, 0, BLOCK, this.#position);
    if (bytesRead < BLOCK) throw new TarError('the archive ends in the middle');
    const h = this.#header;
    if (h.every((b) => b === 0)) return null;
    const stored = Number.parseInt(h.toString('ascii', 148, 156).replace(/\0.*$/, '').trim(), 8);
    let sum = 0;
    for (let i = 0; i < BLOCK; i += 1) sum += i >= 148 && i < 156 ? 32 : (h[i] as number);
    if (sum !== stored) throw new TarError(`damaged entry header at byte ${this.#position}`);
    if (h.toString('ascii', 257, 262) !== 'ustar') throw new TarError('not a ustar archive');
    const type = h.toString('ascii', 156, 157);
    if (type !== '0' && type !== '\0') throw new TarError(`unexpected entry type "${type}"`);
    const name = h.toString('utf8', 0, 100).replace(/\0.*$/s, '');
    const size = parseSize(h);
    const offset = this.#position + BLOCK;
    if (offset + size > this.length)
      throw new TarError(`the archive ends in the middle of ${name}`);
    this.#position = offset + size + padding(size);
    return { name, size, offset };
  }

  /** The content of an entry, read whole (small entries only). */
  async read(entry: TarEntry): Promise<Buffer> {
    const out = Buffer.allocUnsafe(entry.size);
    let done = 0;
    while (done < entry.size) {
      const { bytesRead } = await this.file.read(out, done, entry.size - done, entry.offset + done);
      if (bytesRead === 0) throw new TarError(`the archive ends in the middle of ${entry.name}`);
      done += bytesRead;
    }
    return out;
  }
}

/**
 * The regular files of a small archive held in memory (PGlite's extension bundles), with
 * their names (ustar prefix included); directories and other entries are skipped.
 */
export function filesOf(tar: Buffer): { name: string; data: Buffer }[] {
  const files: { name: string; data: Buffer }[] = [];
  let position = 0;
  while (position + BLOCK <= tar.length) {
    const h = tar.subarray(position, position + BLOCK);
    if (h.every((b) => b === 0)) break;
    const size = parseSize(h);
    const type = h.toString('ascii', 156, 157);
    const base = h.toString('utf8', 0, 100).replace(/\0.*$/s, '');
    const prefix = h.toString('utf8', 345, 500).replace(/\0.*$/s, '');
    const start = position + BLOCK;
    if (start + size > tar.length) throw new TarError(`the archive ends in the middle of ${base}`);
    if (type === '0' || type === '\0') {
      files.push({
        name: prefix ? `${prefix}/${base}` : base,
        data: tar.subarray(start, start + size),
      });
    }
    position = start + size + padding(size);
  }
  return files;
}
