/**
 * How Drive uploads one file: `begin_upload` gives (or gives back) the files row, the SDK's
 * resumable upload sends the bytes in 6 MiB chunks (a large file in parts side by side, where
 * the backend offers it), then the row is marked ready.
 *
 * Nothing is lost on a reload or a crash: this browser keeps a record of each unfinished
 * upload (upload-records.ts; with the file's handle where the browser has one), and the
 * backend keeps its progress, its tus URL and the key of its file (`record_upload`), so the
 * same file resumes from the server's offset — after a reload, on another device, or after
 * signing in again. Cancelling deletes the server's upload and the placeholder row.
 */
import { createUploadQueue, type UploadQueue, type UploadRunner, unwrap } from '@app/backend-react';
import { parallelParts } from '@app/backend-sdk/tus';
import { BUCKET, beginUpload, discardUpload, type FileRow, markReady, type UploadRow } from './api';
import type { DriveClient } from './client-types';
import { requestIndexing } from './search-api';
import { onSignOutByUser } from './session';
import { uploadRecords } from './upload-records';
import { beginVersion, finishVersion } from './versions-api';

/** Delays before each retry of a failed chunk, as the product fixes them. */
export const RETRY_DELAYS = [0, 1000, 3000, 5000] as const;
export const CHUNK_SIZE = 6 * 1024 * 1024;
/**
 * Parts of a large file sent side by side, where the backend offers tus concatenation (the
 * local backend does; elsewhere a file goes up as one upload, in 6 MiB chunks). Three parts
 * made a 256 MiB upload in Chromium about 1.4× as fast as one (apps/web/bench/upload.bench.ts).
 */
export const PARALLEL_PARTS = 3;
/**
 * Each part's chunk: 12 MiB once every part gets at least four of them (fewer, larger requests
 * cost less per byte: 0.80 s against 0.88 s for 256 MiB), else 6 MiB, so smaller files still
 * show progress often. The same file always gets the same chunks, so it resumes.
 */
export const partChunkSize = (size: number) =>
  size >= PARALLEL_PARTS * 4 * 2 * CHUNK_SIZE ? 2 * CHUNK_SIZE : CHUNK_SIZE;
/** How often progress is written down (browser record and backend), at most. */
const REPORT_EVERY_MS = 2000;

/** What Drive keeps with a queued upload. */
export interface DriveUploadMeta {
  /** The files row, once `begin_upload` gave it (a new version's row, with `replace`). */
  fileId?: string;
  /** A new version of this file ("Replace"), not a new file. */
  replace?: string;
  /** The file's handle (File System Access API), when it came with one. */
  handle?: FileSystemFileHandle;
}

interface Settled {
  data: unknown;
  error: unknown;
}

interface SdkUpload {
  result: Promise<Settled>;
  url: string | undefined;
  pause(): void;
  abort(options?: { terminate?: boolean }): Promise<void>;
}

/**
 * The SDK's URL store for one files row: the backend's record of its upload, as
 * `begin_upload` gave it first (read again after that: a retry may follow a new record).
 */
function rowUrlStore(
  client: DriveClient,
  row: FileRow,
  known: UploadRow | null | undefined,
  bytes: () => number,
) {
  let first = known;
  return {
    async get(key: string) {
      let found = first;
      first = undefined;
      if (found === undefined) {
        const { data } = await client
          .from('uploads')
          .select('upload_url,upload_key')
          .eq('file_id', row.id)
          .maybeSingle();
        found = data as UploadRow | null;
      }
      return found?.upload_key === key ? found.upload_url : null;
    },
    async set(key: string, url: string) {
      await client.rpc('record_upload', {
        p_file_id: row.id,
        p_bytes: bytes(),
        p_url: url,
        p_key: key,
      });
    },
    // Forgotten on success (the row's record goes when it is ready) and before a restart
    // (the next URL replaces it).
    remove() {},
  };
}

/** Deletes a resumable upload on the server, given its URL (no-op when it is gone). */
async function terminate(client: DriveClient, path: string, url: string) {
  const upload = client.storage
    .from(BUCKET)
    .uploadResumable(path, new Blob([]), { autoStart: false, urlStore: false }) as SdkUpload;
  upload.url = url;
  await upload.abort({ terminate: true });
}

/** Cancels an upload for good: the server's upload, the placeholder row, the record. */
export async function discard(client: DriveClient, meta: DriveUploadMeta | null): Promise<void> {
  const fileId = meta?.fileId;
  if (!fileId) return;
  if (meta?.replace) {
    // A new version: the file is untouched; the unfinished version and its tus upload expire
    // (the retention's pruning removes them).
    versionUrls.delete(fileId);
    await uploadRecords.remove(fileId);
    return;
  }
  const [file, record] = await Promise.all([
    client
      .from('files')
      .select('object_path')
      .eq('id', fileId)
      .eq('status', 'uploading')
      .maybeSingle(),
    client.from('uploads').select('upload_url').eq('file_id', fileId).maybeSingle(),
  ]);
  const path = (file.data as { object_path: string } | null)?.object_path;
  const url = (record.data as { upload_url: string | null } | null)?.upload_url;
  // A chunk of a running upload may still hold the upload's lock for a moment.
  for (let attempt = 0; path && url && attempt < 3; attempt += 1) {
    try {
      await terminate(client, path, url);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  await discardUpload(client, fileId);
  await uploadRecords.remove(fileId);
}

/**
 * The runner of Drive's upload queue. `begun(itemId, fileId)` is told which files row an
 * upload goes into (a file picked again resumes the row of its unfinished upload).
 */
export function driveUploadRunner(
  client: DriveClient,
  begun: (itemId: string, fileId: string) => void = () => {},
): UploadRunner<FileRow> {
  return async (item, control) => {
    const file = item.file as File;
    const meta = (item.meta ?? {}) as DriveUploadMeta;
    if (meta.replace) return uploadVersion(client, meta.replace, file, item, control);
    const { upload: record, ...row } = (await unwrap(
      beginUpload(client, (item.target as string | null) ?? null, {
        name: item.name,
        size: item.size,
        type: file.type,
      }),
    )) as FileRow & { upload: UploadRow | null };
    // A restored upload whose row expired meanwhile starts again in a new one.
    if (meta.fileId && meta.fileId !== row.id) await uploadRecords.remove(meta.fileId);
    control.setMeta({ ...meta, fileId: row.id });
    begun(item.id, row.id);
    if (control.signal.aborted) throw control.signal.reason;
    // Written while the upload starts; progress is written down at the earliest 2 s later.
    const recorded = uploadRecords.put({
      fileId: row.id,
      ownerId: row.owner_id,
      name: item.name,
      size: item.size,
      type: file.type,
      lastModified: file.lastModified ?? 0,
      folderId: row.folder_id,
      bytes: item.bytesUploaded,
      ...(meta.handle ? { handle: meta.handle } : {}),
      updatedAt: Date.now(),
    });

    let bytes = item.bytesUploaded;
    let reported = Date.now();
    const report = () => {
      reported = Date.now();
      const at = bytes;
      void recorded.then(() => uploadRecords.patch(row.id, { bytes: at }));
      // A query runs when awaited (then); a lost report is made good by the next one.
      client.rpc('record_upload', { p_file_id: row.id, p_bytes: bytes }).then(
        () => {},
        () => {},
      );
    };
    const upload = client.storage.from(BUCKET).uploadResumable(row.object_path, file, {
      contentType: row.mime_type,
      chunkSize: CHUNK_SIZE,
      parallel: parallelParts(PARALLEL_PARTS, { chunkSize: partChunkSize(item.size) }),
      // The creation request carries the first chunk (the SDK's default): a file of up to one
      // chunk goes up in a single request.
      retryDelays: RETRY_DELAYS,
      name: `${row.id}:${item.name}`,
      urlStore: rowUrlStore(client, row, record, () => bytes),
      onProgress: (p: { bytes: number; total?: number }) => {
        bytes = p.bytes;
        control.onProgress(p.bytes, p.total ?? item.size);
        if (Date.now() - reported >= REPORT_EVERY_MS && p.bytes < item.size) report();
      },
      onRetry: (r: { delay: number; error: unknown }) => control.onRetry(r.delay, r.error),
    }) as SdkUpload;
    // A cancel is discarded by the queue's onCancel (the server's upload included).
    const outcome = await settle(upload, control, report);
    if (outcome.error) {
      report();
      throw outcome.error;
    }
    const ready = (await unwrap(markReady(client, row.id))) as FileRow;
    requestIndexing(client);
    await recorded;
    await uploadRecords.remove(row.id);
    return ready;
  };
}

type Item = Parameters<UploadRunner<FileRow>>[0];
type Control = Parameters<UploadRunner<FileRow>>[1];

/** Runs an SDK upload until it ends, pausing it (or dropping it, on Cancel) when stopped. */
async function settle(upload: SdkUpload, control: Control, onStop: () => void = () => {}) {
  const stopped = new Promise<never>((_, reject) => {
    const stop = () => {
      const reason = control.signal.reason;
      if (reason === 'cancel') void upload.abort();
      else {
        upload.pause();
        onStop();
      }
      reject(reason);
    };
    if (control.signal.aborted) stop();
    else control.signal.addEventListener('abort', stop, { once: true });
  });
  return Promise.race([upload.result, stopped]);
}

/** tus upload URLs of new versions, by version: a paused or retried one resumes. */
const versionUrls = new Map<string, string>();

/**
 * A new version of a file ("Replace"): `begin_version` gives (or, for the same uploader and
 * size, gives back) its row and object path, the bytes go up resumably as any upload's, and
 * `finish_version` switches the file to it — readers get the old content until then.
 */
async function uploadVersion(
  client: DriveClient,
  fileId: string,
  file: File,
  item: Item,
  control: Control,
): Promise<FileRow> {
  const begun = (await unwrap(beginVersion(client, fileId, item.size, file.type))) as {
    id: string;
    object_path: string;
    mime_type: string;
  };
  if (control.signal.aborted) throw control.signal.reason;
  const meta = (item.meta ?? {}) as DriveUploadMeta;
  // A restored replacement whose version expired meanwhile starts again in a new one.
  if (meta.fileId && meta.fileId !== begun.id) await uploadRecords.remove(meta.fileId);
  control.setMeta({ ...meta, fileId: begun.id });
  // Remembered in this browser, so that a reload lists it and Resume goes on (same uploader
  // and size: `begin_version` gives the same version back, and the tus URL is in the record).
  const before = await uploadRecords.get(begun.id);
  const { data: auth } = await client.auth.getSession();
  const recorded = uploadRecords.put({
    fileId: begun.id,
    ownerId: auth.session?.user.id ?? '',
    name: item.name,
    size: item.size,
    type: file.type,
    lastModified: file.lastModified ?? 0,
    folderId: (item.target as string | null) ?? null,
    bytes: item.bytesUploaded,
    replaces: fileId,
    ...(before?.uploadUrl ? { uploadUrl: before.uploadUrl } : {}),
    ...(meta.handle ? { handle: meta.handle } : {}),
    updatedAt: Date.now(),
  });
  let bytes = item.bytesUploaded;
  let reported = Date.now();
  const report = () => {
    reported = Date.now();
    const at = bytes;
    void recorded.then(() => uploadRecords.patch(begun.id, { bytes: at }));
  };
  const upload = client.storage.from(BUCKET).uploadResumable(begun.object_path, file, {
    contentType: begun.mime_type,
    chunkSize: CHUNK_SIZE,
    parallel: parallelParts(PARALLEL_PARTS, { chunkSize: partChunkSize(item.size) }),
    retryDelays: RETRY_DELAYS,
    name: `${begun.id}:${item.name}`,
    urlStore: {
      get: async () =>
        versionUrls.get(begun.id) ?? (await uploadRecords.get(begun.id))?.uploadUrl ?? null,
      set: async (_key: string, url: string) => {
        versionUrls.set(begun.id, url);
        await recorded;
        await uploadRecords.patch(begun.id, { uploadUrl: url });
      },
      remove() {},
    },
    onProgress: (p: { bytes: number; total?: number }) => {
      bytes = p.bytes;
      control.onProgress(p.bytes, p.total ?? item.size);
      if (Date.now() - reported >= REPORT_EVERY_MS && p.bytes < item.size) report();
    },
    onRetry: (r: { delay: number; error: unknown }) => control.onRetry(r.delay, r.error),
  }) as SdkUpload;
  const outcome = await settle(upload, control, report);
  if (outcome.error) {
    report();
    throw outcome.error;
  }
  versionUrls.delete(begun.id);
  const finished = (await unwrap(finishVersion(client, begun.id))) as FileRow;
  requestIndexing(client);
  await recorded;
  await uploadRecords.remove(begun.id);
  return finished;
}

let shared: UploadQueue<FileRow> | null = null;

/**
 * Drive's one upload queue (3 at a time), created on first use and kept for the page's life.
 * Signing out stops it and forgets this browser's records (the backend's stay, and expire).
 */
export function driveUploadQueue(
  client: DriveClient,
  onDone?: (row: FileRow) => void,
): UploadQueue<FileRow> {
  if (!shared) {
    // The same file picked again while its restored entry waits: that entry is this upload.
    const begun = (itemId: string, fileId: string) => {
      for (const other of queue.getItems()) {
        if (other.id !== itemId && (other.meta as DriveUploadMeta | null)?.fileId === fileId) {
          queue.dismiss(other.id);
        }
      }
    };
    const queue: UploadQueue<FileRow> = createUploadQueue<FileRow>({
      concurrency: 3,
      run: driveUploadRunner(client, (itemId, fileId) => begun(itemId, fileId)),
      onDone: (item) => {
        if (item.result) onDone?.(item.result);
      },
      onCancel: (item) => {
        discard(client, item.meta as DriveUploadMeta | null).catch((error: unknown) =>
          console.warn('Could not discard the cancelled upload', error),
        );
      },
    });
    onSignOutByUser(() => {
      queue.clear();
      restoredFor = null;
      void uploadRecords.clear();
    });
    shared = queue;
  }
  return shared;
}

let restoredFor: string | null = null;

/** Lists this browser's unfinished uploads of `ownerId` in the queue (once per sign-in). */
export async function restoreUploads(queue: UploadQueue<FileRow>, ownerId: string) {
  if (restoredFor === ownerId) return;
  restoredFor = ownerId;
  const known = new Set(
    queue.getItems().map((i) => (i.meta as DriveUploadMeta | null)?.fileId ?? ''),
  );
  const records = (await uploadRecords.list(ownerId)).filter((r) => !known.has(r.fileId));
  queue.restore(
    records.map((r) => ({
      name: r.name,
      size: r.size,
      target: r.folderId,
      bytesUploaded: r.bytes,
      meta: {
        fileId: r.fileId,
        ...(r.replaces ? { replace: r.replaces } : {}),
        ...(r.handle ? { handle: r.handle } : {}),
      } as DriveUploadMeta,
    })),
  );
}

/**
 * The file of a restored upload, from its handle, asking the browser for permission to read
 * it again if it must (call from a click); null when there is no handle or it is refused.
 */
export async function fileFromHandle(handle: FileSystemFileHandle | undefined) {
  if (!handle) return null;
  try {
    const h = handle as FileSystemFileHandle & {
      queryPermission?(d: { mode: 'read' }): Promise<PermissionState>;
      requestPermission?(d: { mode: 'read' }): Promise<PermissionState>;
    };
    let state = (await h.queryPermission?.({ mode: 'read' })) ?? 'granted';
    if (state === 'prompt') state = (await h.requestPermission?.({ mode: 'read' })) ?? 'denied';
    return state === 'granted' ? await handle.getFile() : null;
  } catch {
    return null;
  }
}
