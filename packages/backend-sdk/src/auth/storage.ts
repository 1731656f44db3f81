/**
 * Session storage: localStorage in browsers, memory elsewhere, or any custom store.
 */
import type { SessionStorage } from './types';

/**
 * A storage that keeps values in memory (the default outside browsers).
 *
 * @example
 * createClient(url, key, { auth: { storage: memoryStorage() } });
 */
export function memoryStorage(): SessionStorage {
  const map = new Map<string, string>();
  return {
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => {
      map.set(k, v);
    },
    removeItem: (k) => {
      map.delete(k);
    },
  };
}

/** localStorage when usable, else {@link memoryStorage}. */
export function defaultStorage(): SessionStorage {
  try {
    const ls = (globalThis as { localStorage?: SessionStorage }).localStorage;
    if (ls) {
      ls.getItem('');
      return ls;
    }
  } catch {}
  return memoryStorage();
}
