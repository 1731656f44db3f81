/**
 * The one IndexedDB database of offline use (`drive-offline`): per user, the last listings
 * seen (`listings`) and the changes made offline (`queue`). Small on purpose: get, put and
 * delete by key; every failure reads as "nothing kept" (private modes may refuse IndexedDB).
 */
const DB = 'drive-offline';
export type StoreName = 'listings' | 'queue';

let opening: Promise<IDBDatabase> | null = null;

function db(): Promise<IDBDatabase> {
  opening ??= new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => {
      request.result.createObjectStore('listings');
      request.result.createObjectStore('queue');
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  opening.catch(() => {
    opening = null;
  });
  return opening;
}

async function run<T>(
  store: StoreName,
  mode: IDBTransactionMode,
  act: (s: IDBObjectStore) => IDBRequest,
): Promise<T> {
  const tx = (await db()).transaction(store, mode);
  const request = act(tx.objectStore(store));
  return new Promise<T>((resolve, reject) => {
    tx.oncomplete = () => resolve(request.result as T);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

/** The value kept under `key`, or undefined. */
export function read<T>(store: StoreName, key: string): Promise<T | undefined> {
  return run<T | undefined>(store, 'readonly', (s) => s.get(key)).catch(() => undefined);
}

/** Keeps `value` under `key`. */
export function write(store: StoreName, key: string, value: unknown): Promise<void> {
  return run<void>(store, 'readwrite', (s) => s.put(value, key)).catch((error: unknown) => {
    console.warn('Could not keep this for offline use.', error);
  });
}

/** Forgets every key of `store` but `keep`; returns how many it forgot. */
export async function forgetOthers(store: StoreName, keep: string | null): Promise<number> {
  const keys = await run<IDBValidKey[]>(store, 'readonly', (s) => s.getAllKeys()).catch(
    () => [] as IDBValidKey[],
  );
  const others = keys.filter((key) => key !== keep);
  for (const key of others) await run(store, 'readwrite', (s) => s.delete(key)).catch(() => {});
  return others.length;
}
