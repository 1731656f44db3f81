import { type UploadQueue, unwrap, useQueryClient } from '@app/backend-react';
import { useCallback } from 'react';
import { formatBytes } from '../format';
import { t } from '../i18n';
import { type FileRow, keys, storageUsage, type Usage } from '../lib/api';
import type { DriveClient } from '../lib/client-types';
import type { Picked, PickedFile } from '../lib/dropped';
import { useDrive, userErrorOf } from '../lib/use-drive';
import { askReplace } from './ReplaceDialog';

export const MAX_FILE_BYTES = 5 * 1024 ** 3;

/** Problems found before an upload starts, one sentence each. */
let notify: (messages: string[]) => void = () => {};

/** Shows the pre-upload problems (set by the tray). */
export function onUploadProblems(listener: (messages: string[]) => void): void {
  notify = listener;
}

/** Creates the folders of a folder upload below `parent`; the id of each path (joined by /). */
async function createTree(client: DriveClient, parent: string | null, folders: string[][]) {
  const ids = new Map<string, string | null>([['', parent]]);
  const all = new Map<string, string[]>();
  for (const path of folders) {
    for (let i = 1; i <= path.length; i += 1) all.set(path.slice(0, i).join('/'), path.slice(0, i));
  }
  const paths = [...all.values()].sort((a, b) => a.length - b.length);
  for (const path of paths) {
    const key = path.join('/');
    if (ids.has(key)) continue;
    const above = ids.get(path.slice(0, -1).join('/')) ?? parent;
    const id = (await unwrap(
      client.rpc('ensure_folder_path', { p_parent_id: above, p_names: path.slice(-1) }),
    )) as string;
    ids.set(key, id);
  }
  return ids;
}

/**
 * The ready files of `folderId` (null: my own My files) named like one of `files`, by lower-case
 * name: the ones an upload would replace.
 */
async function takenNames(
  client: DriveClient,
  folderId: string | null,
  files: PickedFile[],
): Promise<Map<string, string>> {
  if (files.length === 0) return new Map();
  let query = client
    .from('files')
    .select('id,name,owner_id')
    .eq('status', 'ready')
    .is('trashed_at', null)
    .in(
      'name',
      files.map((f) => f.file.name),
    );
  if (folderId) query = query.eq('folder_id', folderId);
  else {
    const { data } = await client.auth.getSession();
    query = query.is('folder_id', null).eq('owner_id', data.session?.user.id ?? '');
  }
  const rows = (await unwrap(query)) as Array<{ id: string; name: string }>;
  return new Map(rows.map((r) => [r.name.toLowerCase(), r.id]));
}

/**
 * Queues files after the checks the product wants before an upload starts: files over the
 * 5 GB limit, and files that would exceed the quota (counting what the uploads already
 * running still have to send), are refused with a sentence. A folder (dropped or picked)
 * has its tree recreated below the target first; files keep their handles, if any.
 */
export function useAddFiles(queue: UploadQueue<FileRow>) {
  const client = useDrive();
  const queryClient = useQueryClient();
  return useCallback(
    async (given: Array<File | PickedFile> | Picked, folderId: string | null) => {
      const picked: Picked = Array.isArray(given)
        ? {
            files: given.map((f) => (f instanceof File ? { file: f, path: [] } : f)),
            folders: [],
          }
        : given;
      const problems: string[] = [];
      const ok = picked.files.filter(({ file }) => {
        if (file.size > MAX_FILE_BYTES) {
          problems.push(
            t('addFiles.tooLarge', { name: file.name, limit: formatBytes(MAX_FILE_BYTES) }),
          );
          return false;
        }
        return true;
      });
      let usage: Usage | null = null;
      try {
        usage = await queryClient.fetchQuery({
          queryKey: keys.usage,
          queryFn: () => unwrap(storageUsage(client)) as Promise<Usage>,
          staleTime: 5_000,
        });
      } catch {
        usage = null; // The backend checks the quota anyway.
      }
      let accepted = ok;
      if (usage) {
        // What the unfinished uploads of this page will still add.
        let used = Number(usage.used_bytes);
        for (const item of queue.getItems()) {
          if (item.state !== 'done') used += Math.max(0, item.size - item.bytesUploaded);
        }
        const quota = Number(usage.quota_bytes);
        accepted = ok.filter(({ file }) => {
          if (used + file.size > quota) {
            problems.push(
              t('addFiles.noRoom', {
                name: file.name,
                used: formatBytes(Math.min(used, quota)),
                quota: formatBytes(quota),
              }),
            );
            return false;
          }
          used += file.size;
          return true;
        });
      }
      let folders = new Map<string, string | null>([['', folderId]]);
      if (picked.folders.length > 0 || accepted.some((f) => f.path.length > 0)) {
        try {
          folders = await createTree(client, folderId, [
            ...picked.folders,
            ...accepted.map((f) => f.path),
          ]);
        } catch (error) {
          notify([t('addFiles.noFolders', { reason: userErrorOf(error).message })]);
          return;
        }
      }
      // Files (not folder uploads) whose names are taken here: Replace or Keep both.
      let taken = new Map<string, string>();
      try {
        taken = await takenNames(
          client,
          folderId,
          accepted.filter((f) => f.path.length === 0),
        );
      } catch {
        taken = new Map(); // Keep both, as before: the backend picks a free name.
      }
      if (taken.size > 0) {
        const choice = await askReplace(
          [...new Set(accepted.map((f) => f.file.name))].filter((n) => taken.has(n.toLowerCase())),
        );
        if (choice === null) {
          accepted = accepted.filter(
            (f) => f.path.length > 0 || !taken.has(f.file.name.toLowerCase()),
          );
        } else if (choice === 'keep') taken = new Map();
      }
      if (accepted.length) {
        queue.add(
          accepted.map((f) => {
            const replace = f.path.length === 0 ? taken.get(f.file.name.toLowerCase()) : undefined;
            return {
              file: f.file,
              target: folders.get(f.path.join('/')) ?? folderId,
              meta: replace ? { replace } : f.handle ? { handle: f.handle } : null,
            };
          }),
        );
      }
      notify(problems);
    },
    [client, queryClient, queue],
  );
}
