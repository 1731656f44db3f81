/**
 * Versions of a file (backend/migrations/*_versions*.sql): the list, restore and delete. The
 * database decides who may do what (readers list, preview and download; the owner and Editors
 * restore and delete); a new version is an upload (uploads.ts, `replace`).
 */
import type { FileRow } from './api';
import type { DriveClient } from './client-types';

/** One version of `list_versions`, newest first. */
export interface VersionRow {
  id: string;
  size: number | string;
  mime_type: string;
  uploaded_by: string | null;
  uploader_name: string | null;
  created_at: string;
  is_current: boolean;
  restored_from: string | null;
  object_path: string;
}

export const versionsKey = (fileId: string) => ['versions', fileId] as const;

export function listVersions(client: DriveClient, fileId: string) {
  return client.rpc('list_versions', { p_file_id: fileId });
}

export function restoreVersion(client: DriveClient, versionId: string) {
  return client.rpc('restore_version', { p_version: versionId });
}

/** Deletes an older version: its row, and its stored object when no other version holds it. */
export async function deleteVersion(client: DriveClient, versionId: string) {
  const { error } = await client.functions.invoke('trash', {
    body: { action: 'version', version: versionId },
  });
  return { data: null, error };
}

/** A version as the preview and the download take a file: its own object, type and size. */
export function versionFile(file: FileRow, version: VersionRow): FileRow {
  return {
    ...file,
    id: `${file.id}@${version.id}`,
    object_path: version.object_path,
    size: version.size,
    mime_type: version.mime_type,
  };
}

/** Starts (or resumes, same uploader and size) a new version of a file. */
export function beginVersion(client: DriveClient, fileId: string, size: number, type: string) {
  return client
    .rpc('begin_version', {
      p_file_id: fileId,
      p_size: size,
      p_mime_type: type || 'application/octet-stream',
    })
    .single();
}

/** Makes a stored new version the file's current one (one transaction in the database). */
export function finishVersion(client: DriveClient, versionId: string) {
  return client.rpc('finish_version', { p_version: versionId }).single();
}
