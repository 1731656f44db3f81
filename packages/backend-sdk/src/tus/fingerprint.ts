import type { SourceInfo } from './source';

/**
 * Where upload URLs are remembered between sessions so an upload of the same file resumes.
 * Methods may be sync or async.
 */
export interface UrlStore {
  get(key: string): string | null | undefined | Promise<string | null | undefined>;
  set(key: string, url: string): void | Promise<void>;
  remove(key: string): void | Promise<void>;
}

/**
 * The key of one upload: the file's name, type, size and modification time, plus the
 * endpoint, bucket and path it goes to.
 *
 * @example
 * fingerprint(file, 'https://x/storage/v1/upload/resumable', 'docs', 'a/b.pdf');
 */
export const fingerprint = (
  info: SourceInfo,
  endpoint: string,
  bucket: string,
  path: string,
): string =>
  [
    'tus',
    endpoint,
    bucket,
    path,
    info.name,
    info.type,
    info.size ?? '',
    Math.trunc(info.lastModified),
  ].join('::');

/** An in-memory store (the default in Node). */
export function memoryUrlStore(): UrlStore {
  const map = new Map<string, string>();
  return {
    get: (key) => map.get(key),
    set: (key, url) => void map.set(key, url),
    remove: (key) => void map.delete(key),
  };
}

/** A store in `localStorage` (the default in browsers); does nothing where it is unavailable. */
export function localStorageUrlStore(storage?: Storage): UrlStore {
  // Access can throw (privacy mode, quota exceeded): resuming across reloads is best effort.
  const use = <T>(f: (s: Storage) => T): T | undefined => {
    try {
      return f(storage ?? localStorage);
    } catch {}
  };
  return {
    get: (key) => use((s) => s.getItem(key)),
    set: (key, url) => void use((s) => s.setItem(key, url)),
    remove: (key) => void use((s) => s.removeItem(key)),
  };
}

const nodeFs = 'node:fs/promises';

/**
 * A store in a JSON file (Node), so uploads resume after a process restart.
 *
 * @example
 * const store = fileUrlStore('/var/lib/app/uploads.json');
 */
export function fileUrlStore(file: string): UrlStore {
  let chain: Promise<unknown> = Promise.resolve();
  const load = async (): Promise<Record<string, string>> => {
    const fs: typeof import('node:fs/promises') = await import(/* @vite-ignore */ nodeFs);
    try {
      return JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, string>;
    } catch {
      return {};
    }
  };
  const update = (change: (all: Record<string, string>) => void): Promise<void> => {
    const next = chain.then(async () => {
      const fs: typeof import('node:fs/promises') = await import(/* @vite-ignore */ nodeFs);
      const all = await load();
      change(all);
      await fs.writeFile(`${file}.tmp`, JSON.stringify(all));
      await fs.rename(`${file}.tmp`, file);
    });
    chain = next.catch(() => {});
    return next;
  };
  return {
    get: async (key) => {
      await chain;
      return (await load())[key];
    },
    set: (key, url) =>
      update((all) => {
        all[key] = url;
      }),
    remove: (key) =>
      update((all) => {
        delete all[key];
      }),
  };
}

/** The platform default: `localStorage` in browsers, memory elsewhere. */
export const defaultUrlStore = (): UrlStore =>
  typeof window !== 'undefined' && typeof localStorage !== 'undefined'
    ? localStorageUrlStore()
    : memoryUrlStore();
