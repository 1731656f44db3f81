/**
 * Drive's data: rows, queries and writes, in one place. Screens call these through the
 * hooks of `@app/backend-react`; access control is the backend's row level security.
 */
import type { DriveClient } from './client-types';

export interface FolderRow {
  id: string;
  owner_id: string;
  parent_id: string | null;
  name: string;
  created_at: string;
  /** When it went to the Trash (null: not in the Trash). */
  trashed_at?: string | null;
  /** The trashed folder it went to the Trash with (null: deleted by itself). */
  trashed_via?: string | null;
  /** When it was starred (null: not starred). */
  starred_at?: string | null;
  /** Ids of the folders above, outermost first (sharing: a grant on any of them covers it). */
  ancestors?: string[];
  /** Who moved it to the Trash (sharing: an Editor's deletion is in the owner's Trash). */
  trashed_by?: string | null;
  /** Changed offline and not saved yet (offline/queue.ts). */
  pending?: boolean;
}

export interface FileRow {
  id: string;
  owner_id: string;
  folder_id: string | null;
  name: string;
  size: number | string;
  mime_type: string;
  object_path: string;
  status: 'uploading' | 'ready';
  created_at: string;
  updated_at: string;
  trashed_at?: string | null;
  trashed_via?: string | null;
  starred_at?: string | null;
  ancestors?: string[];
  trashed_by?: string | null;
  /** The version readers get (see versions-api.ts). */
  current_version_id?: string | null;
  /** Changed offline and not saved yet (offline/queue.ts). */
  pending?: boolean;
}

export interface ShareRow {
  id: string;
  file_id: string;
  token: string;
  expires_at: string;
  revoked_at: string | null;
  created_at: string;
  download_count: number;
}

export interface Usage {
  used_bytes: number | string;
  file_count: number;
  quota_bytes: number | string;
}

export type SortKey = 'name' | 'size' | 'date';
export interface Sort {
  key: SortKey;
  ascending: boolean;
}

export const BUCKET = 'files';

const fileOrder = (sort: Sort): string =>
  sort.key === 'size' ? 'size' : sort.key === 'date' ? 'updated_at' : 'name';

export const keys = {
  folders: (parentId: string | null) => ['folders', parentId] as const,
  folder: (id: string) => ['folder', id] as const,
  files: (folderId: string | null, sort: Sort) =>
    ['files', folderId, sort.key, sort.ascending] as const,
  usage: ['usage'] as const,
  profile: (id: string) => ['profile', id] as const,
  shares: (fileId: string) => ['shares', fileId] as const,
  allFolders: ['folders-all'] as const,
  /** Recent, Starred and Trash (they change with files and folders alike). */
  views: ['views'] as const,
  view: (name: 'recent' | 'starred' | 'trash') => ['views', name] as const,
  /** My grants (roles on others' items); refreshed on changes and on the `access` event. */
  grants: ['grants'] as const,
  /** The activity of an item (a folder: with everything below it). */
  activity: (kind: 'file' | 'folder', id: string, limit: number) =>
    ['activity', kind, id, limit] as const,
  /** Items others shared with me. */
  sharedWithMe: ['views', 'shared'] as const,
  /** Who has access to an item. */
  access: (id: string) => ['access', id] as const,
};

/** What a change to files or folders (here, on another device, or by an upload) refreshes. */
export const LIVE_KEYS = [
  ['files'],
  ['folders'],
  [...keys.allFolders],
  [...keys.usage],
  ['search'],
  [...keys.views],
  [...keys.grants],
  ['access'],
  ['versions'],
];

/**
 * Sub-folders of a folder (null: the root of My files, `me`'s own: a root-level folder shared
 * with me is not mine), by name; not those in the Trash.
 */
export function listFolders(client: DriveClient, parentId: string | null, sort: Sort, me: string) {
  const q = client.from('folders').select('*').is('trashed_at', null);
  return (
    parentId ? q.eq('parent_id', parentId) : q.is('parent_id', null).eq('owner_id', me)
  ).order(sort.key === 'date' ? 'created_at' : 'name', {
    ascending: sort.key === 'size' ? true : sort.ascending,
  });
}

/**
 * Every folder the user can see (their own and those shared with them), those in the Trash
 * too (breadcrumbs, "move to", places); `owner_id` and `ancestors` give the role on each.
 */
export function listAllFolders(client: DriveClient) {
  return client
    .from('folders')
    .select('id,owner_id,parent_id,name,trashed_at,trashed_via,ancestors')
    .order('name');
}

/**
 * Files of a folder (null: the root of My files, `me`'s own), rows `from`..`to`, with the
 * exact total when `count`.
 */
export function listFiles(
  client: DriveClient,
  folderId: string | null,
  sort: Sort,
  from: number,
  to: number,
  count: boolean,
  me: string,
) {
  const q = client
    .from('files')
    .select('*', count ? { count: 'exact' } : undefined)
    .is('trashed_at', null);
  return (folderId ? q.eq('folder_id', folderId) : q.is('folder_id', null).eq('owner_id', me))
    .order(fileOrder(sort), { ascending: sort.ascending })
    .order('id', { ascending: true })
    .range(from, to);
}

export function createFolder(client: DriveClient, name: string, parentId: string | null) {
  return client.from('folders').insert({ name, parent_id: parentId }).select().single();
}

export function renameItem(
  client: DriveClient,
  table: 'files' | 'folders',
  id: string,
  name: string,
) {
  return client.from(table).update({ name }).eq('id', id).select().single();
}

export function moveItems(
  client: DriveClient,
  table: 'files' | 'folders',
  ids: string[],
  destination: string | null,
) {
  const column = table === 'files' ? 'folder_id' : 'parent_id';
  return client
    .from(table)
    .update({ [column]: destination })
    .in('id', ids)
    .select('id');
}

export function storageUsage(client: DriveClient) {
  return client.rpc('storage_usage').single();
}

export function getProfile(client: DriveClient, id: string) {
  return client.from('profiles').select('*').eq('id', id).maybeSingle();
}

export function updateProfile(client: DriveClient, id: string, displayName: string) {
  return client
    .from('profiles')
    .update({ display_name: displayName })
    .eq('id', id)
    .select()
    .single();
}

export function listShares(client: DriveClient, fileId: string) {
  return client
    .from('shares')
    .select('*')
    .eq('file_id', fileId)
    .order('created_at', { ascending: false });
}

export function createShare(client: DriveClient, fileId: string, hours: number) {
  const expires = new Date(Date.now() + hours * 3600_000).toISOString();
  return client.from('shares').insert({ file_id: fileId, expires_at: expires }).select().single();
}

export function revokeShare(client: DriveClient, id: string) {
  return client
    .from('shares')
    .update({ revoked_at: new Date().toISOString() })
    .eq('id', id)
    .select()
    .single();
}

/** A short-lived URL to read a file (preview), or to download it under its name. */
export function signedUrl(
  client: DriveClient,
  file: Pick<FileRow, 'object_path' | 'name'>,
  download: boolean,
) {
  return client.storage
    .from(BUCKET)
    .createSignedUrl(file.object_path, 600, download ? { download: file.name } : undefined);
}

/** The backend's record of an unfinished upload (`public.uploads`): where its bytes go. */
export interface UploadRow {
  upload_url: string | null;
  upload_key: string | null;
}

/**
 * The files row of an upload (a new one, or the unfinished one of the same file), with the
 * backend's record of its tus upload embedded — one round trip for both.
 */
export function beginUpload(
  client: DriveClient,
  folderId: string | null,
  file: { name: string; size: number; type: string },
) {
  return client
    .rpc('begin_upload', {
      p_folder_id: folderId,
      p_name: file.name,
      p_size: file.size,
      p_mime_type: file.type || 'application/octet-stream',
    })
    .select('*,upload:uploads(upload_url,upload_key)')
    .single();
}

export function markReady(client: DriveClient, id: string) {
  return client.from('files').update({ status: 'ready' }).eq('id', id).select().single();
}

export function discardUpload(client: DriveClient, id: string) {
  return client.from('files').delete().eq('id', id).eq('status', 'uploading');
}

/** The public view of a share, through the `share` function. */
export interface SharedFile {
  name: string;
  size: number;
  mimeType: string;
  expiresAt: string;
  url: string;
}

export function openShare(client: DriveClient, token: string) {
  return client.functions.invoke('share', { body: { token } });
}
