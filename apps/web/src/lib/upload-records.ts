/**
 * This browser's records of its unfinished uploads, in IndexedDB: what to list in the upload
 * panel after a reload or a crash, and — where the browser has the File System Access API —
 * the file's handle, so the upload resumes without picking the file again. One record per
 * `files` row (or per new version of a file, "Replace"); removed when the upload finishes or is cancelled, all of them on sign-out.
 * Where IndexedDB is missing (or refused), records live in memory for the page's life.
 */

/** One unfinished upload of this browser. */
export interface UploadRecord {
  fileId: string;
  ownerId: string;
  name: string;
  size: number;
  type: string;
  lastModified: number;
  folderId: string | null;
  /** Bytes the server had when last heard of. */
  bytes: number;
  /** The file's handle (File System Access API), when the file came with one. */
  handle?: FileSystemFileHandle;
  /**
   * A new version ("Replace") of this file: then `fileId` is the version's id, and
   * `uploadUrl` its tus upload's URL (a version has no `uploads` row to keep it).
   */
  replaces?: string;
  uploadUrl?: string;
  updatedAt: number;
}

const DB_NAME = 'drive-uploads';
const STORE = 'uploads';

let opened: Promise<IDBDatabase | null> | null = null;
const memory = new Map<string, UploadRecord>();

function open(): Promise<IDBDatabase | null> {
  opened ??= new Promise((resolve) => {
    try {
      if (typeof indexedDB === 'undefined') return resolve(null);
      const request = indexedDB.open(DB_NAME, 1);
      request.onupgradeneeded = () => {
        request.result.createObjectStore(STORE, { keyPath: 'fileId' });
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => resolve(null);
      request.onblocked = () => resolve(null);
    } catch {
      resolve(null);
    }
  });
  return opened;
}

/** Runs one request on the store; resolves with its result (undefined when unavailable). */
async function run<T>(
  mode: IDBTransactionMode,
  action: (store: IDBObjectStore) => IDBRequest<T>,
): Promise<T | undefined> {
  const db = await open();
  if (!db) return undefined;
  return new Promise((resolve) => {
    try {
      const tx = db.transaction(STORE, mode);
      const request = action(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(request.result);
      tx.onerror = () => resolve(undefined);
      tx.onabort = () => resolve(undefined);
    } catch {
      resolve(undefined);
    }
  });
}

export const uploadRecords = {
  /** The records of one user, oldest first. */
  async list(ownerId: string): Promise<UploadRecord[]> {
    const db = await open();
    const all = db
      ? ((await run('readonly', (s) => s.getAll() as IDBRequest<UploadRecord[]>)) ?? [])
      : [...memory.values()];
    return all.filter((r) => r.ownerId === ownerId).sort((a, b) => a.updatedAt - b.updatedAt);
  },
  async get(fileId: string): Promise<UploadRecord | undefined> {
    if (!(await open())) return memory.get(fileId);
    return run('readonly', (s) => s.get(fileId) as IDBRequest<UploadRecord | undefined>);
  },
  async put(record: UploadRecord): Promise<void> {
    if (!(await open())) {
      memory.set(record.fileId, record);
      return;
    }
    // A handle that cannot be stored (an old browser) must not lose the record itself.
    const stored = await run('readwrite', (s) => s.put(record));
    if (stored === undefined && record.handle) {
      const { handle: _, ...rest } = record;
      await run('readwrite', (s) => s.put(rest));
    }
  },
  async patch(fileId: string, patch: Partial<UploadRecord>): Promise<void> {
    const current = await uploadRecords.get(fileId);
    if (current) await uploadRecords.put({ ...current, ...patch, updatedAt: Date.now() });
  },
  async remove(fileId: string): Promise<void> {
    memory.delete(fileId);
    await run('readwrite', (s) => s.delete(fileId));
  },
  /** Forgets every record (sign-out). */
  async clear(): Promise<void> {
    memory.clear();
    await run('readwrite', (s) => s.clear());
  },
};
