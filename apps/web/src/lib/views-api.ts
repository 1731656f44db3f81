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

/**
 * Folders and files (up to 1,000 of each) whose `column` is set and `unset` is null, newest
 * `column` first.
 */
async function foldersAndFiles(
  client: DriveClient,
  column: 'trashed_at' | 'starred_at',
  unset: 'trashed_via' | 'trashed_at',
  /** Whose entries: mine (Starred), or also those I trashed in others' folders (Trash). */
  who?: { me: string; trashedByMe?: boolean },
) {
  const query = (table: 'folders' | 'files') => {
    const q = client.from(table).select('*').not(column, 'is', null).is(unset, null);
    const scoped = !who
      ? q
      : who.trashedByMe
        ? q.or(`owner_id.eq.${who.me},trashed_by.eq.${who.me}`)
        : q.eq('owner_id', who.me);
    return scoped.order(column, { ascending: false }).limit(1000);
  };
  const [folders, files] = await Promise.all([query('folders'), query('files')]);
  if (folders.error) return { data: null, error: folders.error };
  if (files.error) return { data: null, error: files.error };
  return {
    data: { folders: (folders.data ?? []) as FolderRow[], files: (files.data ?? []) as FileRow[] },
    error: null,
  };
}

/**
 * The entries of the Trash (items deleted by themselves), newest first: the user's own, and
 * (sharing) those the user moved there from someone else's folder.
 */
export function listTrash(client: DriveClient, me?: string) {
  return foldersAndFiles(
    client,
    'trashed_at',
    'trashed_via',
    me ? { me, trashedByMe: true } : undefined,
  );
}

/**
 * My starred folders and files (not in the Trash), most recently starred first. Stars are the
 * owner's: items shared with me that their owner starred are not mine to list.
 */
export function listStarred(client: DriveClient, me: string) {
  return foldersAndFiles(client, 'starred_at', 'trashed_at', { me });
}

/** My own files changed or opened last (the backend lists the caller's files only). */
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
