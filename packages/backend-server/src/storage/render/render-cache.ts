import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OUTPUT_TYPES, type OutputFormat, type Rendered } from './image';

const VERSION = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ENTRY = /^([0-9a-f]{32})\.([a-z]+)$/;

interface Entry {
  key: string;
  version: string;
  file: string;
  format: OutputFormat;
  size: number;
  /** The bytes, kept in memory for small variants (thumbnails), most recently used. */
  data?: Buffer;
}

/** Variants up to this size are also kept in memory… */
const HOT_ENTRY = 256 * 1024;
/** …up to this much in all. */
const HOT_BYTES = 64 * 1024 * 1024;

/**
 * Rendered variants on disk, `<root>/<xx>/<version>/<hash>.<ext>`, keyed by the object
 * version (a new upload is a new version) and the request's canonical options. An index in
 * memory knows every entry, least recently used first; past `maxBytes` the oldest go. Small
 * variants are kept in memory too (64 MiB in all), so a hit of a thumbnail reads no file.
 * `dropVersion` removes every variant of a version (the object was replaced, moved or
 * deleted); the startup scan removes those of versions no row references.
 */
export class RenderCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byVersion = new Map<string, Set<string>>();
  private bytes = 0;
  private hotBytes = 0;
  private readonly tmp: string;

  constructor(
    readonly root: string,
    private readonly maxBytes: number,
  ) {
    this.tmp = join(root, 'tmp');
  }

  private dirOf(version: string): string {
    return join(this.root, version.slice(0, 2), version);
  }

  private keyOf(version: string, variant: string): { key: string; hash: string } {
    const hash = createHash('sha256').update(variant).digest('hex').slice(0, 32);
    return { key: `${version}/${hash}`, hash };
  }

  /** Scans the cache dir: keeps variants of `referenced` versions, removes the rest. */
  async init(referenced: ReadonlySet<string>): Promise<void> {
    await rm(this.tmp, { recursive: true, force: true });
    await mkdir(this.tmp, { recursive: true });
    // A render still writing is not in the index; its temp file went with `tmp` above.
    for (const shard of await readdir(this.root)) {
      if (shard === 'tmp') continue;
      const shardDir = join(this.root, shard);
      for (const version of await readdir(shardDir).catch(() => [] as string[])) {
        const dir = join(shardDir, version);
        if (!VERSION.test(version) || !referenced.has(version)) {
          await rm(dir, { recursive: true, force: true });
          continue;
        }
        for (const name of await readdir(dir).catch(() => [] as string[])) {
          const match = ENTRY.exec(name);
          const format = match?.[2] as OutputFormat | undefined;
          if (!match?.[1] || !format || !(format in OUTPUT_TYPES)) {
            await rm(join(dir, name), { force: true });
            continue;
          }
          const file = join(dir, name);
          const { size } = await stat(file);
          const key = `${version}/${match[1]}`;
          this.add(key, { key, version, file, format, size });
        }
      }
    }
    await this.evict();
  }

  private add(key: string, entry: Entry): void {
    this.remove(key);
    this.entries.set(key, entry);
    this.bytes += entry.size;
    let keys = this.byVersion.get(entry.version);
    if (!keys) {
      keys = new Set();
      this.byVersion.set(entry.version, keys);
    }
    keys.add(key);
  }

  private remove(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.bytes -= entry.size;
    if (entry.data) this.hotBytes -= entry.size;
    const keys = this.byVersion.get(entry.version);
    keys?.delete(key);
    if (keys?.size === 0) this.byVersion.delete(entry.version);
    return entry;
  }

  /** A cached variant, or null. */
  async get(version: string, variant: string): Promise<Rendered | null> {
    const { key } = this.keyOf(version, variant);
    const entry = this.entries.get(key);
    if (!entry) return null;
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (entry.data) return { data: entry.data, format: entry.format };
    try {
      const data = await readFile(entry.file);
      this.keepHot(entry, data);
      return { data, format: entry.format };
    } catch {
      this.remove(key);
      return null;
    }
  }

  /** Keeps a small variant's bytes in memory, dropping those of the least recently used. */
  private keepHot(entry: Entry, data: Buffer): void {
    if (entry.data || data.byteLength > HOT_ENTRY || this.entries.get(entry.key) !== entry) return;
    entry.data = data;
    this.hotBytes += entry.size;
    for (const other of this.entries.values()) {
      if (this.hotBytes <= HOT_BYTES) break;
      if (other.data && other !== entry) {
        other.data = undefined;
        this.hotBytes -= other.size;
      }
    }
  }

  /**
   * Stores a variant (temp file, then rename). `stillThere` is asked afterwards: when the
   * version went away meanwhile, the variant is dropped again.
   */
  async put(
    version: string,
    variant: string,
    rendered: Rendered,
    stillThere: () => Promise<boolean>,
  ): Promise<void> {
    const { key, hash } = this.keyOf(version, variant);
    const dir = this.dirOf(version);
    const file = join(dir, `${hash}.${rendered.format}`);
    const temp = join(this.tmp, randomUUID());
    try {
      await writeFile(temp, rendered.data);
      await mkdir(dir, { recursive: true });
      await rename(temp, file);
    } catch {
      await rm(temp, { force: true });
      return;
    }
    const entry: Entry = {
      key,
      version,
      file,
      format: rendered.format,
      size: rendered.data.byteLength,
    };
    this.add(key, entry);
    this.keepHot(entry, rendered.data);
    if (!(await stillThere())) await this.dropVersion(version);
    await this.evict();
  }

  /** Removes every variant of `version`. */
  async dropVersion(version: string): Promise<void> {
    if (!VERSION.test(version)) return;
    for (const key of [...(this.byVersion.get(version) ?? [])]) this.remove(key);
    await rm(this.dirOf(version), { recursive: true, force: true });
  }

  private async evict(): Promise<void> {
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) return;
      this.remove(key);
      await rm(entry.file, { force: true });
    }
  }

  /** Bytes held (for tests and logs). */
  get size(): number {
    return this.bytes;
  }
}
