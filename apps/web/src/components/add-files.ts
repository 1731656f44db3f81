import { type UploadQueue, unwrap, useQueryClient } from '@app/backend-react';
import { useCallback } from 'react';
import { formatBytes } from '../format';
import { type FileRow, keys, storageUsage, type Usage } from '../lib/api';
import { useDrive } from '../lib/use-drive';

export const MAX_FILE_BYTES = 5 * 1024 ** 3;

/** Problems found before an upload starts, one sentence each. */
let notify: (messages: string[]) => void = () => {};

/** Shows the pre-upload problems (set by the tray). */
export function onUploadProblems(listener: (messages: string[]) => void): void {
  notify = listener;
}

/**
 * Queues files after the checks the product wants before an upload starts: files over the
 * 5 GB limit, and files that would exceed the quota, are refused with a sentence.
 */
export function useAddFiles(queue: UploadQueue<FileRow>) {
  const client = useDrive();
  const queryClient = useQueryClient();
  return useCallback(
    async (files: File[], folderId: string | null) => {
      const problems: string[] = [];
      const ok = files.filter((file) => {
        if (file.size > MAX_FILE_BYTES) {
          problems.push(`${file.name} is too large: the limit is 5 GB per file.`);
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
        let used = Number(usage.used_bytes);
        const quota = Number(usage.quota_bytes);
        accepted = ok.filter((file) => {
          if (used + file.size > quota) {
            problems.push(
              `Not enough storage for ${file.name}: you are using ${formatBytes(used)} of ${formatBytes(quota)}.`,
            );
            return false;
          }
          used += file.size;
          return true;
        });
      }
      if (accepted.length) queue.add(accepted, folderId);
      notify(problems);
    },
    [client, queryClient, queue],
  );
}
