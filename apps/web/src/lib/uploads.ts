/**
 * How Drive uploads one file: `begin_upload` gives (or gives back, after a reload) the files
 * row, the SDK's resumable upload sends the bytes in 6 MiB chunks (resuming from the
 * server's offset for an upload it has seen before), then the row is marked ready.
 */
import { createUploadQueue, type UploadQueue, type UploadRunner, unwrap } from '@app/backend-react';
import { BUCKET, beginUpload, discardUpload, type FileRow, markReady } from './api';
import type { DriveClient } from './client-types';

/** Delays before each retry of a failed chunk, as the product fixes them. */
export const RETRY_DELAYS = [0, 1000, 3000, 5000] as const;
export const CHUNK_SIZE = 6 * 1024 * 1024;

interface Settled {
  data: unknown;
  error: unknown;
}

interface SdkUpload {
  result: Promise<Settled>;
  pause(): void;
  abort(options?: { terminate?: boolean }): Promise<void>;
}

/** The runner of Drive's upload queue. */
export function driveUploadRunner(client: DriveClient): UploadRunner<FileRow> {
  return async (item, control) => {
    const file = item.file as File;
    const row = (await unwrap(
      beginUpload(client, (item.target as string | null) ?? null, {
        name: item.name,
        size: item.size,
        type: file.type,
      }),
    )) as FileRow;
    if (control.signal.aborted) throw control.signal.reason;
    const upload = client.storage.from(BUCKET).uploadResumable(row.object_path, file, {
      contentType: row.mime_type,
      chunkSize: CHUNK_SIZE,
      // The creation request carries the first chunk (the SDK's default): a file of up to one
      // chunk goes up in a single request.
      retryDelays: RETRY_DELAYS,
      name: `${row.id}:${item.name}`,
      onProgress: (p: { bytes: number; total?: number }) =>
        control.onProgress(p.bytes, p.total ?? item.size),
      onRetry: (r: { delay: number; error: unknown }) => control.onRetry(r.delay, r.error),
    }) as SdkUpload;
    const stopped = new Promise<never>((_, reject) => {
      const stop = () => {
        const reason = control.signal.reason;
        if (reason === 'cancel') {
          void upload
            .abort({ terminate: true })
            .then(() => discardUpload(client, row.id))
            .catch((error: unknown) =>
              console.warn('Could not discard the cancelled upload', error),
            );
        } else {
          upload.pause();
        }
        reject(reason);
      };
      if (control.signal.aborted) stop();
      else control.signal.addEventListener('abort', stop, { once: true });
    });
    const outcome = await Promise.race([upload.result, stopped]);
    if (outcome.error) throw outcome.error;
    return (await unwrap(markReady(client, row.id))) as FileRow;
  };
}

let shared: UploadQueue<FileRow> | null = null;

/** Drive's one upload queue (3 at a time), created on first use and kept for the page's life. */
export function driveUploadQueue(
  client: DriveClient,
  onDone?: (row: FileRow) => void,
): UploadQueue<FileRow> {
  if (!shared) {
    shared = createUploadQueue<FileRow>({
      concurrency: 3,
      run: driveUploadRunner(client),
      onDone: (item) => {
        if (item.result) onDone?.(item.result);
      },
    });
  }
  return shared;
}
