/**
 * Trash, Starred, Recent and downloads of several items: the queries and writes behind them
 * (row level security decides what each one reaches; see backend/migrations).
 */
import type { FileRow, FolderRow } from './api';
import type { DriveClient } from './client-types';

/** Files and folders of a selection, by id. */
export interface Ids {
  files: string[];
  folders: string[];
}

/** Moves files and folders (with everything in them) to the Trash; resolves to the count. */
export function trashItems(client: DriveClient, ids: Ids) {
  return client.rpc('trash_items', { p_files: ids.files, p_folders: ids.folders });
}

/** Where a restored item went. */
export interface Restored {
  kind: 'file' | 'folder';
  id: string;
  name: string;
  parent_id: string | null;
  renamed: boolean;
  relocated: boolean;
}

/** Brings Trash entries back to their original place (or to My files when it is gone). */
export function restoreItems(client: DriveClient, ids: Ids) {
  return client.rpc('restore_items', { p_files: ids.files, p_folders: ids.folders });
}

/**
 * Deletes Trash entries forever, objects and rows (the `trash` function); `'empty'` takes
 * every entry, `'purge'` those deleted more than 30 days ago.
 */
export function deleteForever(client: DriveClient, what: Ids | 'empty' | 'purge') {
  return client.functions.invoke('trash', {
    body: typeof what === 'string' ? { action: what } : { action: 'delete', ...what },
  });
}

/** The entries of the Trash (items deleted by themselves), newest first. */
export async function listTrash(client: DriveClient) {
  const [folders, files] = await Promise.all([
    client
      .from('folders')
      .select('*')
      .not('trashed_at', 'is', null)
      .is('trashed_via', null)
      .order('trashed_at', { ascending: false })
      .limit(1000),
    client
      .from('files')
      .select('*')
      .not('trashed_at', 'is', null)
      .is('trashed_via', null)
      .order('trashed_at', { ascending: false })
      .limit(1000),
  ]);
  if (folders.error) return { data: null, error: folders.error };
  if (files.error) return { data: null, error: files.error };
  return {
    data: { folders: (folders.data ?? []) as FolderRow[], files: (files.data ?? []) as FileRow[] },
    error: null,
  };
}

/** Starred folders and files (not in the Trash), most recently starred first. */
export async function listStarred(client: DriveClient) {
  const [folders, files] = await Promise.all([
    client
      .from('folders')
      .select('*')
      .not('starred_at', 'is', null)
      .is('trashed_at', null)
      .order('starred_at', { ascending: false })
      .limit(1000),
    client
      .from('files')
      .select('*')
      .not('starred_at', 'is', null)
      .is('trashed_at', null)
      .order('starred_at', { ascending: false })
      .limit(1000),
  ]);
  if (folders.error) return { data: null, error: folders.error };
  if (files.error) return { data: null, error: files.error };
  return {
    data: { folders: (folders.data ?? []) as FolderRow[], files: (files.data ?? []) as FileRow[] },
    error: null,
  };
}

/** Files changed or opened last. */
export function recentFiles(client: DriveClient, limit = 50) {
  return client.rpc('recent_files', { p_limit: limit });
}

/** Notes that a file was opened (for Recent); failures are not the user's concern. */
export function recordOpen(client: DriveClient, fileId: string) {
  return client.rpc('record_open', { p_file_id: fileId });
}

/** Stars or unstars items. */
export async function setStarred(client: DriveClient, ids: Ids, starred: boolean) {
  const value = { starred_at: starred ? new Date().toISOString() : null };
  for (const [table, list] of [
    ['files', ids.files],
    ['folders', ids.folders],
  ] as const) {
    if (list.length === 0) continue;
    const r = await client.from(table).update(value).in('id', list).select('id');
    if (r.error) return r;
  }
  return { data: true, error: null };
}

/** An entry of a zip: a folder (path ends in "/") or a file and where its bytes are. */
export interface DownloadEntry {
  kind: 'file' | 'folder';
  path: string;
  size: number | string;
  object_path: string | null;
  updated_at: string;
}

/** What a download of several items contains. */
export function downloadEntries(client: DriveClient, ids: Ids) {
  return client.rpc('download_entries', { p_files: ids.files, p_folders: ids.folders });
}
