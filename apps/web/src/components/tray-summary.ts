import type { UploadState } from '@app/backend-react';
import { formatNumber } from '../format';
import { t } from '../i18n';

/**
 * The upload tray's one-line summary. Only uploads that are moving count as "uploading" (with
 * their overall %); paused, incomplete (left by a reload) and failed ones are said as such, and a tray that holds nothing
 * but refused files does not claim that uploads are complete.
 *
 * @example
 * traySummary([{ state: 'failed', size: 10, bytesUploaded: 0 }], 0); // '1 upload failed'
 */
export function traySummary(
  items: ReadonlyArray<{
    state: UploadState;
    size: number;
    bytesUploaded: number;
    pausedBy?: string | null;
  }>,
  refused: number,
): string {
  let running = 0;
  let paused = 0;
  let incomplete = 0;
  let failed = 0;
  let sent = 0;
  let total = 0;
  for (const item of items) {
    if (item.state === 'failed') failed += 1;
    else if (item.state === 'paused' && item.pausedBy === 'reload') incomplete += 1;
    else if (item.state === 'paused') paused += 1;
    else if (item.state !== 'done') running += 1;
    if (item.state !== 'done' && item.state !== 'failed') {
      sent += item.bytesUploaded;
      total += item.size;
    }
  }
  const pct = total > 0 ? Math.floor((sent / total) * 100) : 100;
  const parts: string[] = [];
  if (running > 0) parts.push(t('tray.uploading', { count: running, pct: formatNumber(pct) }));
  if (paused > 0) parts.push(t('tray.paused', { count: paused }));
  if (incomplete > 0) parts.push(t('tray.incomplete', { count: incomplete }));
  if (failed > 0) parts.push(t('tray.failed', { count: failed }));
  if (parts.length > 0) return parts.join(' · ');
  if (items.length === 0 && refused > 0) return t('tray.notUploaded', { count: refused });
  return t('tray.complete');
}
