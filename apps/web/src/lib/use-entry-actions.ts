/**
 * What can be done to files and folders, from any view: move to Trash, restore, delete
 * forever, move, rename, star, download (one file, or several items as one zip). Each action
 * refreshes the lists, and says what it did in a toast — with Undo for trash, move and rename.
 */
import { unwrap, useQueryClient, useUser } from '@app/backend-react';
import { useMemo } from 'react';
import { t } from '../i18n';
import { offlineNow } from '../offline/online';
import {
  type FileRow,
  type FolderRow,
  keys,
  LIVE_KEYS,
  moveItems,
  renameItem,
  signedUrl,
} from './api';
import type { DriveClient } from './client-types';
import { describe, type Entry, idsOf } from './selection';
import { showToast } from './toasts';
import { useDrive, userErrorOf } from './use-drive';
import {
  deleteForever,
  type Restored,
  recordOpen,
  restoreItems,
  setStarred,
  trashItems,
} from './views-api';

export interface EntryActions {
  /** Moves entries to the Trash; toast with Undo. Resolves to false when it failed. */
  trash(entries: Entry[]): Promise<boolean>;
  /** Brings Trash entries back; says where they went. */
  restore(entries: Entry[]): Promise<boolean>;
  /** Deletes Trash entries forever (`'empty'`: all of them). */
  deleteForever(entries: Entry[] | 'empty'): Promise<boolean>;
  /** Moves entries into a folder (null: My files); toast with Undo. Resolves to the error. */
  move(entries: Entry[], destination: string | null, destinationName: string): Promise<unknown>;
  /** Renames an entry; toast with Undo. Resolves to the error. */
  rename(entry: Entry, name: string): Promise<unknown>;
  star(entries: Entry[], starred: boolean): Promise<boolean>;
  /** Downloads one file under its name. */
  download(file: FileRow): Promise<boolean>;
  /** Downloads entries as one zip, streamed. */
  downloadZip(entries: Entry[], name: string): Promise<boolean>;
  /** Notes that a file was opened (Recent). */
  opened(file: FileRow): void;
}

/** Starts a download of a file through a short-lived signed URL. */
async function downloadFile(client: DriveClient, file: FileRow): Promise<void> {
  const { data, error } = await signedUrl(client, file, true);
  if (error || !data) throw error ?? new Error('No URL');
  const a = document.createElement('a');
  a.href = data.signedUrl;
  a.download = file.name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
}

async function moveTo(client: DriveClient, entries: Entry[], destination: string | null) {
  const { files, folders } = idsOf(entries);
  if (files.length) await unwrap(moveItems(client, 'files', files, destination));
  if (folders.length) await unwrap(moveItems(client, 'folders', folders, destination));
}

const parentOf = (e: Entry) => (e.kind === 'file' ? e.row.folder_id : e.row.parent_id);

export function useEntryActions(): EntryActions {
  const client = useDrive();
  const queryClient = useQueryClient();
  const me = useUser()?.id;
  return useMemo(() => {
    const refresh = () =>
      Promise.all(LIVE_KEYS.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
    const fail = (error: unknown) => {
      showToast({ message: userErrorOf(error).message, error: true });
      return false;
    };
    const attempt = async (work: () => Promise<void>): Promise<boolean> => {
      try {
        await work();
        return true;
      } catch (error) {
        return fail(error);
      } finally {
        await refresh();
      }
    };

    const restore = (entries: Entry[], quiet = false) =>
      attempt(async () => {
        const back = (await unwrap(restoreItems(client, idsOf(entries)))) as Restored[];
        if (quiet) return;
        const only = back.length === 1 ? back[0] : undefined;
        // Where it went (sharing: an Editor's restore may land in the owner's My files).
        const theirs = entries.length === 1 && entries[0]?.row.owner_id !== me;
        const folders = queryClient.getQueryData<FolderRow[]>(keys.allFolders);
        const into = only?.parent_id ? folders?.find((f) => f.id === only.parent_id)?.name : null;
        const values = { what: describe(entries), folder: into, name: only?.name };
        const renamed = Boolean(only?.renamed);
        const message = only?.relocated
          ? theirs
            ? t(renamed ? 'restored.theirsRenamed' : 'restored.theirs', values)
            : t(renamed ? 'restored.mineRenamed' : 'restored.mine', values)
          : into
            ? t(renamed ? 'restored.intoRenamed' : 'restored.into', values)
            : t(renamed ? 'restored.renamed' : 'restored.plain', values);
        showToast({ message });
      });

    const actions: EntryActions = {
      trash: (entries) =>
        attempt(async () => {
          if (entries.length === 0) return;
          await unwrap(trashItems(client, idsOf(entries)));
          showToast({
            message: t('toast.trashed', { what: describe(entries) }),
            action: { label: t('toast.undo'), run: () => void restore(entries, true) },
          });
        }),
      restore: (entries) => restore(entries),
      deleteForever: (entries) =>
        attempt(async () => {
          await unwrap(deleteForever(client, entries === 'empty' ? 'empty' : idsOf(entries)));
          showToast({
            message:
              entries === 'empty'
                ? t('toast.trashEmptied')
                : t('toast.deletedForever', { what: describe(entries) }),
          });
        }),
      move: async (entries, destination, destinationName) => {
        if (await offlineNow()) {
          const { queueMove } = await import('../offline/queue');
          return queueMove(queryClient, entries, destination, destinationName).then(() => null);
        }
        try {
          await moveTo(client, entries, destination);
        } catch (error) {
          await refresh();
          return error;
        }
        await refresh();
        const from = new Map<string | null, Entry[]>();
        for (const e of entries) from.set(parentOf(e), [...(from.get(parentOf(e)) ?? []), e]);
        showToast({
          message: t('toast.moved', { what: describe(entries), where: destinationName }),
          action: {
            label: t('toast.undo'),
            run: () =>
              void attempt(async () => {
                for (const [parent, group] of from) await moveTo(client, group, parent);
              }),
          },
        });
        return null;
      },
      rename: async (entry, name) => {
        const table = entry.kind === 'file' ? 'files' : 'folders';
        const before = entry.row.name;
        if (await offlineNow()) {
          const { queueRename } = await import('../offline/queue');
          return queueRename(queryClient, entry, name).then(() => null);
        }
        try {
          await unwrap(renameItem(client, table, entry.row.id, name));
        } catch (error) {
          return error;
        } finally {
          await refresh();
        }
        showToast({
          message: t('toast.renamed', { before, name }),
          action: {
            label: t('toast.undo'),
            run: () =>
              void attempt(async () => {
                await unwrap(renameItem(client, table, entry.row.id, before));
              }),
          },
        });
        return null;
      },
      star: (entries, starred) =>
        attempt(async () => {
          await unwrap(setStarred(client, idsOf(entries), starred));
          showToast({
            message: starred
              ? t('toast.starred', { what: describe(entries) })
              : t('toast.unstarred', { what: describe(entries) }),
          });
        }),
      download: async (file) => {
        try {
          await downloadFile(client, file);
          actions.opened(file);
          return true;
        } catch (error) {
          return fail(error);
        }
      },
      downloadZip: async (entries, name) => {
        try {
          const { downloadZip } = await import('./zip');
          await downloadZip(client, idsOf(entries), name);
          showToast({ message: t('toast.downloading', { what: describe(entries), name }) });
          return true;
        } catch (error) {
          return fail(error);
        }
      },
      opened: (file) => {
        void Promise.resolve(recordOpen(client, file.id)).then(() =>
          queryClient.invalidateQueries({ queryKey: ['views', 'recent'] }),
        );
      },
    };
    return actions;
  }, [client, queryClient, me]);
}
