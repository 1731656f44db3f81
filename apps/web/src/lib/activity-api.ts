/**
 * Sharing, live: the activity of items, where a folder is (its path, for presence and for
 * losing access), and who moved Trash entries there. Row level security and the rpcs of
 * backend/migrations/*_sharing_*.sql decide what each person reaches (see backend/SHARING.md).
 */
import type { DriveClient } from './client-types';
import type { Ids } from './views-api';

/** A window event (detail `{id}`) when the user's access to an item was removed. */
export const ACCESS_REVOKED = 'drive:access-revoked';

/** One entry of `item_activity`. */
export interface ActivityRow {
  id: number;
  item_kind: 'file' | 'folder';
  item_id: string;
  owner_id: string;
  actor_id: string | null;
  action:
    | 'created'
    | 'uploaded'
    | 'renamed'
    | 'moved'
    | 'trashed'
    | 'restored'
    | 'shared'
    | 'unshared'
    | 'version_uploaded'
    | 'version_restored'
    | 'version_deleted';
  details: Record<string, unknown>;
  at: string;
  actor_name: string | null;
  /** The item's name now (null: no longer visible). */
  item_name: string | null;
  /** For a move: the places' names as the reader sees them (null: not visible, or a root). */
  from_name: string | null;
  to_name: string | null;
}

/** Most entries one panel shows (the rpc's own limit). */
export const ACTIVITY_MAX = 500;

/** The activity of an item (a folder: and of everything below it), newest first. */
export function itemActivity(
  client: DriveClient,
  kind: 'file' | 'folder',
  id: string,
  limit: number,
) {
  return client.rpc('item_activity', { p_kind: kind, p_id: id, p_limit: limit });
}

/** A folder with the folders above it (outermost first), as the reader may see them. */
export interface FolderPlace {
  id: string;
  name: string;
  owner_id: string;
  ancestors: string[];
}

/** The current folder's row with its path (null: not visible to the reader). */
export async function folderPlace(client: DriveClient, id: string) {
  const { data, error } = await client
    .from('folders')
    .select('id,name,owner_id,ancestors')
    .eq('id', id)
    .maybeSingle();
  if (error) return { data: null, error };
  return { data: (data as FolderPlace | null) ?? null, error: null };
}

/** Who moved Trash entries there, by name (entries the reader can see). */
export interface TrashedBy {
  kind: 'file' | 'folder';
  id: string;
  trashed_by: string;
  name: string;
}

export function trashedByNames(client: DriveClient, ids: Ids) {
  return client.rpc('trashed_by_names', { p_files: ids.files, p_folders: ids.folders });
}
