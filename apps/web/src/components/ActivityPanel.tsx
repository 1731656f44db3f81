import { useBackendQuery, useUser } from '@app/backend-react';
import { useRef, useState } from 'react';
import { formatDate } from '../format';
import { currentLocale, t } from '../i18n';
import type { MessageKey } from '../i18n/messages/en';
import { ACTIVITY_MAX, type ActivityRow, itemActivity } from '../lib/activity-api';
import { keys } from '../lib/api';
import type { DriveClient } from '../lib/client-types';
import { Dialog } from './Dialog';
import { ErrorText } from './ErrorText';

const PAGE = 50;

let relative: { locale: string; format: Intl.RelativeTimeFormat } | null = null;

/** "3 min ago", "yesterday": how long ago, in the active language. */
export function timeAgo(iso: string, now = Date.now()): string {
  const locale = currentLocale();
  if (relative?.locale !== locale)
    relative = { locale, format: new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }) };
  const f = relative.format;
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return t('activity.justNow');
  if (abs < 3600) return f.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return f.format(Math.round(seconds / 3600), 'hour');
  if (abs < 30 * 86_400) return f.format(Math.round(seconds / 86_400), 'day');
  return formatDate(iso);
}

const MESSAGES = {
  created: 'activity.created',
  uploaded: 'activity.uploaded',
  renamed: 'activity.renamed',
  moved: 'activity.moved',
  trashed: 'activity.trashed',
  restored: 'activity.restored',
  version_uploaded: 'activity.versionUploaded',
  version_restored: 'activity.versionRestored',
  version_deleted: 'activity.versionDeleted',
} as const satisfies Partial<Record<ActivityRow['action'], MessageKey>>;

/**
 * Who did what, as one sentence: "Ed renamed “a.txt” to “b.txt”", "You uploaded “c.txt”".
 * `actor` stands for the actor's name (default: their name, else "Someone").
 */
export function describeActivity(
  row: ActivityRow,
  me: string | undefined,
  actor = row.actor_name || t('activity.someone'),
): string {
  const d = row.details;
  const by = row.actor_id && row.actor_id === me ? 'me' : 'other';
  // The name it had then (created, uploaded, trashed, restored), else its name now.
  const item = String(d.name ?? row.item_name ?? t('activity.anItem'));
  const place = (id: unknown, name: string | null) => {
    if (name) return t('activity.place.folder', { name });
    if (id == null)
      return row.owner_id === me ? t('activity.place.mine') : t('activity.place.owners');
    return t('activity.place.hidden');
  };
  const values = { by, actor, item };
  switch (row.action) {
    case 'renamed':
      return t('activity.renamed', { ...values, from: String(d.from), to: String(d.to) });
    case 'moved':
      return t('activity.moved', {
        ...values,
        from: place(d.from, row.from_name),
        to: place(d.to, row.to_name),
      });
    case 'shared': {
      const people = {
        ...values,
        target: d.user === me ? 'me' : 'other',
        email: String(d.email),
        role: d.role === 'editor' ? 'editor' : 'viewer',
      };
      if (d.previous_role) return t('activity.roleChanged', people);
      return d.pending ? t('activity.invited', people) : t('activity.shared', people);
    }
    case 'unshared':
      if (d.user && d.user === row.actor_id) return t('activity.left', values);
      return t('activity.removed', {
        ...values,
        target: d.user === me ? 'me' : 'other',
        email: String(d.email),
      });
    default:
      return t(MESSAGES[row.action], values);
  }
}

/** The actor's name in bold within the sentence (the sentence is the language's own). */
function Sentence({ row, me }: { row: ActivityRow; me: string | undefined }) {
  const [before, after] = describeActivity(row, me, '\u0000').split('\u0000');
  if (after === undefined) return <span>{before}</span>;
  return (
    <span>
      {before}
      <strong>{row.actor_name || t('activity.someone')}</strong>
      {after}
    </span>
  );
}

/**
 * Who did what to an item and when (a folder: to everything below it too), newest first, as
 * the database recorded it. Refreshed live while open (every change refetches the page's
 * queries); "Show more" loads older entries, up to 500.
 */
export default function ActivityPanel(props: {
  kind: 'file' | 'folder';
  id: string;
  name: string;
  onClose: () => void;
}) {
  const user = useUser();
  const [limit, setLimit] = useState(PAGE);
  const activity = useBackendQuery<ActivityRow[], DriveClient>(
    keys.activity(props.kind, props.id, limit),
    (c) => itemActivity(c, props.kind, props.id, limit) as never,
  );
  // While more are loading, the entries already shown stay.
  const last = useRef<ActivityRow[]>([]);
  if (activity.data) last.current = activity.data;
  const rows = activity.data ?? last.current;
  const more = rows.length >= limit && limit < ACTIVITY_MAX;
  const now = Date.now();

  return (
    <Dialog title={t('activity.title', { name: props.name })} onClose={props.onClose} wide>
      <ErrorText error={activity.error} />
      {activity.isPending && rows.length === 0 ? (
        <p role="status">{t('row.loading')}</p>
      ) : rows.length === 0 && !activity.error ? (
        <p>{t('activity.none')}</p>
      ) : (
        <ol className="activity" aria-label={t('activity.list')}>
          {rows.map((row) => (
            <li key={row.id}>
              <Sentence row={row} me={user?.id} />{' '}
              <time dateTime={row.at} title={formatDate(row.at)}>
                {timeAgo(row.at, now)}
              </time>
            </li>
          ))}
        </ol>
      )}
      <div className="dialog-actions">
        {more ? (
          <button
            type="button"
            disabled={activity.isFetching}
            onClick={() => setLimit((n) => Math.min(n + PAGE * 2, ACTIVITY_MAX))}
          >
            {t('activity.showMore')}
          </button>
        ) : null}
        <button type="button" className="primary" onClick={props.onClose}>
          {t('dialog.close')}
        </button>
      </div>
    </Dialog>
  );
}
