/**
 * What was dropped or picked, as files with the folders they sit in: a dropped folder (or one
 * picked with a folder input) becomes its files with their relative folder path, and its empty
 * folders. Where the browser gives File System Access handles (Chromium), each file keeps its
 * handle, so an unfinished upload resumes after a reload without picking the file again.
 */

/** A file to upload, with the folders (names, outermost first) it goes into. */
export interface PickedFile {
  file: File;
  /** Folder names below the target folder; empty for a file dropped on its own. */
  path: string[];
  handle?: FileSystemFileHandle;
}

/** The files and the folders (empty ones too) of a drop or a folder pick. */
export interface Picked {
  files: PickedFile[];
  folders: string[][];
}

interface HandleLike {
  kind: 'file' | 'directory';
  name: string;
  getFile?(): Promise<File>;
  values?(): AsyncIterable<HandleLike>;
}

interface EntryLike {
  isFile: boolean;
  isDirectory: boolean;
  name: string;
  file?(ok: (file: File) => void, fail: (error: unknown) => void): void;
  createReader?(): {
    readEntries(ok: (entries: EntryLike[]) => void, fail: (e: unknown) => void): void;
  };
}

/** Walks File System Access handles (files and folders). */
export async function fromHandles(handles: HandleLike[], path: string[] = []): Promise<Picked> {
  const out: Picked = { files: [], folders: [] };
  for (const handle of handles) {
    if (handle.kind === 'file' && handle.getFile) {
      out.files.push({
        file: await handle.getFile(),
        path,
        handle: handle as unknown as FileSystemFileHandle,
      });
    } else if (handle.kind === 'directory' && handle.values) {
      const inner = [...path, handle.name];
      out.folders.push(inner);
      const children: HandleLike[] = [];
      for await (const child of handle.values()) children.push(child);
      const below = await fromHandles(children, inner);
      out.files.push(...below.files);
      out.folders.push(...below.folders);
    }
  }
  return out;
}

/** Walks `webkitGetAsEntry()` entries (browsers without handles). */
export async function fromEntries(entries: EntryLike[], path: string[] = []): Promise<Picked> {
  const out: Picked = { files: [], folders: [] };
  for (const entry of entries) {
    if (entry.isFile && entry.file) {
      const read = entry.file.bind(entry);
      out.files.push({ file: await new Promise<File>((ok, fail) => read(ok, fail)), path });
    } else if (entry.isDirectory && entry.createReader) {
      const inner = [...path, entry.name];
      out.folders.push(inner);
      const reader = entry.createReader();
      const children: EntryLike[] = [];
      // readEntries gives a batch at a time until it gives an empty one.
      for (;;) {
        const batch = await new Promise<EntryLike[]>((ok, fail) => reader.readEntries(ok, fail));
        if (batch.length === 0) break;
        children.push(...batch);
      }
      const below = await fromEntries(children, inner);
      out.files.push(...below.files);
      out.folders.push(...below.folders);
    }
  }
  return out;
}

/** Files of a folder input (`webkitdirectory`): their folders from `webkitRelativePath`. */
export function fromFolderInput(files: File[]): Picked {
  const out: Picked = { files: [], folders: [] };
  const seen = new Set<string>();
  for (const file of files) {
    const parts = (file.webkitRelativePath || file.name).split('/').filter(Boolean);
    const path = parts.slice(0, -1);
    out.files.push({ file, path });
    for (let i = 1; i <= path.length; i += 1) {
      const key = path.slice(0, i).join('/');
      if (!seen.has(key)) {
        seen.add(key);
        out.folders.push(path.slice(0, i));
      }
    }
  }
  return out;
}

type DropItem = DataTransferItem & {
  getAsFileSystemHandle?(): Promise<HandleLike | null | undefined> | null | undefined;
};

/** What one dropped item offers, read in the drop event (its handle comes later, if at all). */
interface ItemSources {
  handle: Promise<HandleLike | null>;
  entry: EntryLike | null;
  file: File | null;
}

/** A handle that can be read: a file's with `getFile`, a folder's with `values`. */
const isHandle = (h: unknown): h is HandleLike => {
  const handle = h as HandleLike | null | undefined;
  if (typeof handle !== 'object' || handle === null) return false;
  if (handle.kind === 'file') return typeof handle.getFile === 'function';
  return handle.kind === 'directory' && typeof handle.values === 'function';
};

/** A call that may be missing, throw, or give nothing: its value, or null. */
function attempt<T>(read: () => T | null | undefined): T | null {
  try {
    return read() ?? null;
  } catch {
    return null;
  }
}

function sourcesOf(item: DropItem): ItemSources {
  const handle = attempt(() => item.getAsFileSystemHandle?.());
  return {
    handle: Promise.resolve(handle).then(
      (h) => (isHandle(h) ? h : null),
      () => null,
    ),
    entry: attempt(() => item.webkitGetAsEntry?.() as unknown as EntryLike | null),
    file: attempt(() => item.getAsFile()),
  };
}

/**
 * One item, by the best it offers: its file-system handle (Chromium, from the disk: the upload
 * can resume from it), else its webkit entry (folders keep their tree), else its file. A drop
 * from another page or from an app that hands over no disk file has only the last.
 */
async function fromItem(sources: ItemSources): Promise<Picked> {
  const handle = await sources.handle;
  const entry = sources.entry?.isFile || sources.entry?.isDirectory ? sources.entry : null;
  let failure: unknown = null;
  if (handle) {
    try {
      return await fromHandles([handle]);
    } catch (error) {
      failure = error;
    }
  }
  if (entry) {
    try {
      return await fromEntries([entry]);
    } catch (error) {
      failure = error;
    }
  }
  // A folder's `getAsFile()` is no file to upload: its walk's failure stands.
  const folder = handle?.kind === 'directory' || entry?.isDirectory;
  if (sources.file && !folder) return { files: [{ file: sources.file, path: [] }], folders: [] };
  if (failure) throw failure;
  return { files: [], folders: [] };
}

/**
 * What a drop carries, item by item. Must be called in the drop event itself: the items can
 * only be read then (the walk that follows is asynchronous).
 */
export function fromDrop(data: DataTransfer): Promise<Picked> {
  const items = Array.from(data.items ?? []).filter((i) => i.kind === 'file') as DropItem[];
  if (items.length === 0) {
    return Promise.resolve({
      files: Array.from(data.files ?? []).map((file) => ({ file, path: [] })),
      folders: [],
    });
  }
  const sources = items.map(sourcesOf);
  return (async () => {
    const out: Picked = { files: [], folders: [] };
    for (const one of sources) {
      const picked = await fromItem(one);
      out.files.push(...picked.files);
      out.folders.push(...picked.folders);
    }
    return out;
  })();
}
