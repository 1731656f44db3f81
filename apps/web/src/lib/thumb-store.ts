/**
 * Thumbnails made in this browser (PDF pages, video frames, SVG pictures), kept in IndexedDB
 * so each is made once per version of a file: the key holds the user, the file's id and its
 * `updated_at`. At most `MAX_KEPT` are kept (the oldest go first). A file whose thumbnail
 * could not be made is kept as `null`, so it is not tried again on every visit.
 */
const DB = 'drive-thumbnails';
const STORE = 'pictures';
const MAX_KEPT = 1000;

interface Kept {
  key: string;
  picture: Blob | null;
  at: number;
}

let opening: Promise<IDBDatabase> | null = null;

function db(): Promise<IDBDatabase> {
  opening ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => {
      const store = req.result.createObjectStore(STORE, { keyPath: 'key' });
      store.createIndex('at', 'at');
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  opening.catch(() => {
    opening = null;
  });
  return opening;
}

const done = (req: IDBRequest) =>
  new Promise<unknown>((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });

/** The kept picture (`null`: none can be made), or `undefined` when there is none kept. */
export async function readKept(key: string): Promise<Blob | null | undefined> {
  try {
    const store = (await db()).transaction(STORE).objectStore(STORE);
    const row = (await done(store.get(key))) as Kept | undefined;
    return row?.picture;
  } catch {
    return undefined;
  }
}

/** Keeps a picture (or `null`) and lets the oldest go past `MAX_KEPT`. */
export async function keep(key: string, picture: Blob | null): Promise<void> {
  try {
    const store = (await db()).transaction(STORE, 'readwrite').objectStore(STORE);
    await done(store.put({ key, picture, at: Date.now() } satisfies Kept));
    const count = (await done(store.count())) as number;
    if (count <= MAX_KEPT) return;
    let extra = count - MAX_KEPT;
    const cursors = store.index('at').openCursor();
    cursors.onsuccess = () => {
      const cursor = cursors.result;
      if (!cursor || extra <= 0) return;
      cursor.delete();
      extra -= 1;
      cursor.continue();
    };
  } catch {
    // No storage: the picture is made again next time.
  }
}

/** Forgets every kept picture of this browser (sign-out). */
export async function forgetKept(): Promise<void> {
  try {
    const store = (await db()).transaction(STORE, 'readwrite').objectStore(STORE);
    await done(store.clear());
  } catch {
    // Nothing kept where there is no storage.
  }
}
