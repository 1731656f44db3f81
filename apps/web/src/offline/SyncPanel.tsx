/**
 * The changes made offline (queue.ts), on every signed-in page: sends them when the browser is
 * back online, says how many wait while offline, and lists those that need a decision, each
 * with its choices.
 */
import { useQueryClient, useUser } from '@app/backend-react';
import { useEffect, useState } from 'react';
import { t } from '../i18n';
import { useDrive } from '../lib/use-drive';
import { useOnline } from './online';
import { openQueue, sendQueued, settle, useQueue } from './queue';
import type { Conflict } from './queue-logic';

/** The sentence saying what a conflict is about. */
function describe(c: Conflict): string {
  const change = c.change;
  const reason = c.message ?? '';
  if (change.kind === 'folder') {
    return c.reason === 'taken'
      ? t('offline.conflict.folderTaken', { name: change.name })
      : t('offline.conflict.folderRefused', { name: change.name, reason });
  }
  if (change.kind === 'rename') {
    const values = { before: change.before, name: change.name, theirs: c.theirs ?? '', reason };
    return t(`offline.conflict.rename.${c.reason}`, values);
  }
  const values = { name: change.name, where: change.toName, reason };
  return t(`offline.conflict.move.${c.reason}`, values);
}

/** The choices a conflict offers: [mine, theirs] labels (no `mine`: it cannot be made). */
function choices(c: Conflict): [string | null, string] {
  if (c.reason === 'changed') return [t('offline.keepMine'), t('offline.keepTheirs')];
  if (c.reason === 'taken') return [t('offline.keepBoth'), t('offline.discard')];
  return [null, t('offline.dismiss')];
}

export function SyncPanel() {
  const client = useDrive();
  const queryClient = useQueryClient();
  const userId = useUser()?.id ?? null;
  const online = useOnline();
  const queue = useQueue();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    void openQueue(userId).then(() => {
      if (userId && online) void sendQueued(client, queryClient);
    });
  }, [userId, online, client, queryClient]);

  const decide = (c: Conflict, choice: 'mine' | 'theirs') => {
    setBusy(true);
    void settle(client, queryClient, c, choice)
      .catch(() => {})
      .finally(() => setBusy(false));
  };

  return (
    <>
      {!online && queue.changes.length > 0 ? (
        <p className="banner sync" role="status">
          {t('offline.waiting', { count: queue.changes.length })}
        </p>
      ) : null}
      {queue.conflicts.length > 0 ? (
        <section className="sync-conflicts" aria-labelledby="sync-conflicts-title">
          <h2 id="sync-conflicts-title">{t('offline.conflicts')}</h2>
          <ul>
            {queue.conflicts.map((c) => {
              const [mine, theirs] = choices(c);
              return (
                <li key={c.change.id}>
                  <p>{describe(c)}</p>
                  {mine ? (
                    <button
                      type="button"
                      disabled={busy || !online}
                      onClick={() => decide(c, 'mine')}
                    >
                      {mine}
                    </button>
                  ) : null}
                  <button type="button" disabled={busy} onClick={() => decide(c, 'theirs')}>
                    {theirs}
                  </button>
                </li>
              );
            })}
          </ul>
        </section>
      ) : null}
    </>
  );
}
