import { createHash, type Hash } from 'node:crypto';

/** How long bytes nothing references must sit untouched before a sweep removes them. */
export const SWEEP_GRACE_MS = 10 * 60_000;

/** Raised when a write goes past its size limit. */
export class SizeLimitExceeded extends Error {}

/** The error of reading a version whose bytes are gone (`code` as Node's file errors). */
export class VersionGone extends Error {
  readonly code = 'ENOENT';
  constructor(version: string) {
    super(`no bytes for version ${version}`);
  }
}

const VERSION = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Checks that `version` is a version uuid (keys never name stored bytes). */
export function checkVersion(version: string): string {
  if (!VERSION.test(version)) throw new Error(`not a version id: ${version}`);
  return version;
}

/** A chunk as a Buffer over the same bytes (no copy). */
export const asBuffer = (chunk: Uint8Array): Buffer =>
  Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);

/** Counts, hashes (md5) and limits the bytes of a write. */
export class Meter {
  size = 0;
  private readonly hash: Hash = createHash('md5');

  constructor(private readonly limit: number) {}

  /** The chunk as a Buffer, counted and hashed; throws SizeLimitExceeded past the limit. */
  add(chunk: Uint8Array): Buffer {
    this.size += chunk.byteLength;
    if (this.size > this.limit) throw new SizeLimitExceeded();
    const buffer = asBuffer(chunk);
    this.hash.update(buffer);
    return buffer;
  }

  digest(): { size: number; md5: string } {
    return { size: this.size, md5: this.hash.digest('hex') };
  }
}

/**
 * New bytes being written as version `version`: `write` the chunks, `finish` (durable, not
 * yet visible to readers of the version on disk), `commit` (in place), or `discard`.
 */
export interface ObjectWriter {
  readonly version: string;
  /** Appends bytes; throws SizeLimitExceeded past the limit. */
  write(chunk: Uint8Array): Promise<void>;
  /**
   * Ends the write; the size and hex md5 of what was written (with an S3 store and a known
   * length, the store's ETag: the md5 of a single PUT's bytes).
   */
  finish(): Promise<{ size: number; md5: string }>;
  /** Puts the finished bytes in place as `version`. */
  commit(): Promise<void>;
  /** Drops what was written (any stage). */
  discard(): Promise<void>;
}

/** The bytes of one stored version, opened for reading. */
export interface StoredObject {
  size: number;
  /** `length` bytes from `start`, streamed (the object is released at the end). */
  stream(start: number, length: number): ReadableStream<Uint8Array>;
  /** Releases it when no stream is taken. */
  close(): Promise<void>;
}

/**
 * Where object bytes live, by version uuid: a directory (`file`, the default) or an
 * S3-compatible bucket (`s3`). Metadata stays in `storage.objects` either way.
 */
export interface ObjectBackend {
  readonly kind: 'file' | 's3';
  /** Called for every version whose bytes were removed (the render cache drops its variants). */
  onRemove: ((version: string) => Promise<void>) | null;
  init(): Promise<void>;
  /**
   * A writer of new bytes limited to `limit` bytes, as a new version. `length`, when the
   * size is known before the first byte (a body with a Content-Length), lets a backend store
   * it in one request; the writer then takes exactly that many bytes.
   */
  createWriter(limit: number, length?: number): Promise<ObjectWriter>;
  /** Makes a finished, fsynced local file (a tus upload) version `version`; the file is gone after. */
  adoptFile(path: string, version: string): Promise<void>;
  /** Opens a version for reading; rejects with VersionGone (code ENOENT) when it is not there. */
  open(version: string): Promise<StoredObject>;
  /** Whether a version's bytes are there. */
  exists(version: string): Promise<boolean>;
  /** The local file of a version, when the backend keeps one (libvips reads it itself). */
  localPath(version: string): string | null;
  /** Removes a version's bytes (no error when they are already gone). */
  remove(version: string): Promise<void>;
  /** Copies a version's bytes to a new version. */
  copy(from: string, to: string): Promise<void>;
  /**
   * Removes bytes no row references (and unfinished writes), once untouched for `graceMs`:
   * a younger one may be another replica's write in flight. Returns how many.
   */
  sweep(referenced: ReadonlySet<string>, graceMs?: number): Promise<number>;
}
