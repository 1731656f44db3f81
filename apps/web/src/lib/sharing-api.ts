/**
 * Sharing with people: who has access, share, change a role, remove, transfer ownership,
 * "Shared with me" (the rpcs of backend/SHARING.md; the database checks every call).
 */
import type { FileRow, FolderRow } from './api';
import type { DriveClient } from './client-types';

export type ItemKind = 'file' | 'folder';
export type PersonRole = 'owner' | 'editor' | 'viewer';

/** One person with access to an item (`grant_id` null: the owner). */
export interface AccessRow {
  grant_id: string | null;
  user_id: string | null;
  display_name: string;
  email: string;
  role: PersonRole;
  pending: boolean;
  via_kind: ItemKind | null;
  via_id: string | null;
  inherited: boolean;
  granted_by: string | null;
  granted_by_name: string | null;
  created_at: string | null;
}

/** An item shared with me directly. */
export interface SharedItem {
  kind: ItemKind;
  id: string;
  name: string;
  owner_id: string;
  owner_name: string;
  owner_email: string;
  role: 'editor' | 'viewer';
  granted_by_name: string | null;
  shared_at: string;
}

export function listAccess(client: DriveClient, kind: ItemKind, id: string) {
  return client.rpc('list_access', { p_kind: kind, p_id: id });
}

export function shareWith(
  client: DriveClient,
  kind: ItemKind,
  id: string,
  email: string,
  role: 'viewer' | 'editor',
) {
  return client.rpc('share_with', { p_kind: kind, p_id: id, p_email: email, p_role: role });
}

export function setShareRole(client: DriveClient, grant: string, role: 'viewer' | 'editor') {
  return client.rpc('set_share_role', { p_grant: grant, p_role: role });
}

/** Removes a grant: the owner removes anyone; anyone removes themself ("Leave"). */
export function unshare(client: DriveClient, grant: string) {
  return client.rpc('unshare', { p_grant: grant });
}

export function transferOwnership(client: DriveClient, kind: ItemKind, id: string, to: string) {
  return client.rpc('transfer_ownership', { p_kind: kind, p_id: id, p_to: to });
}

/**
 * Asks the `notify` function to send the mails my last share queued. Fire and forget: the
 * share is done whatever happens to its mail (the outbox keeps it for the next run).
 */
export function notifyPeople(client: DriveClient): void {
  try {
    void Promise.resolve(client.functions.invoke('notify', { body: {} })).catch(() => {});
  } catch {
    // Not the user's concern: the share itself succeeded.
  }
}

/** "Shared with me": the items, and their rows (for preview, download, roles). */
export async function listSharedWithMe(client: DriveClient) {
  const shared = await client.rpc('shared_with_me');
  if (shared.error) return { data: null, error: shared.error };
  const items = (shared.data ?? []) as SharedItem[];
  const ids = (kind: ItemKind) => items.filter((i) => i.kind === kind).map((i) => i.id);
  const rows = async (table: 'folders' | 'files', list: string[]) =>
    list.length ? await client.from(table).select('*').in('id', list) : { data: [], error: null };
  const [folders, files] = await Promise.all([
    rows('folders', ids('folder')),
    rows('files', ids('file')),
  ]);
  const error = folders.error ?? files.error;
  if (error) return { data: null, error };
  const byId = new Map(items.map((i) => [i.id, i]));
  const order = (a: { id: string }, b: { id: string }) =>
    items.indexOf(byId.get(a.id) as SharedItem) - items.indexOf(byId.get(b.id) as SharedItem);
  return {
    data: {
      items: byId,
      folders: ((folders.data ?? []) as FolderRow[]).sort(order),
      files: ((files.data ?? []) as FileRow[]).sort(order),
    },
    error: null,
  };
}
