import { FileBackend } from './disk';
import { S3Backend, type S3BackendSettings } from './s3';
import type { DiskStore } from './storage-dir';
import type { ObjectBackend } from './types';

export type { ObjectBackend, ObjectWriter, StoredObject } from './types';
export { SizeLimitExceeded, SWEEP_GRACE_MS, VersionGone } from './types';

/** The object backend the settings name: the storage directory, or an S3 bucket. */
export function createBackend(dir: DiskStore, s3: S3BackendSettings | null): ObjectBackend {
  return s3 ? new S3Backend(s3) : new FileBackend(dir);
}
