import { useBackendQuery, useUser } from '@app/backend-react';
import { useRef, useState } from 'react';
import { formatDate } from '../format';
import { ACTIVITY_MAX, type ActivityRow, itemActivity } from '../lib/activity-api';
import { keys } from '../lib/api';
import type { DriveClient } from '../lib/client-types';
import { Dialog } from './Dialog';
import { ErrorText } from './ErrorText';

const PAGE = 50;

const ROLE: Record<string, string> = { viewer: 'Viewer', editor: 'Editor' };

let relative: Intl.RelativeTimeFormat | null = null;

/** "3 min ago", "yesterday": how long ago, in the reader's locale. */
export function timeAgo(iso: string, now = Date.now()): string {
  relative ??= new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return 'just now';
  if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return relative.format(Math.round(seconds / 3600), 'hour');
  if (abs < 30 * 86_400) return relative.format(Math.round(seconds / 86_400), 'day');
  return formatDate(iso);
}

const quoted = (name: unknown) => `“${String(name)}”`;

/** What was done, after the actor's name: "renamed “a.txt” to “b.txt”". */
export function describeActivity(row: ActivityRow, me: string | undefined): string {
  const d = row.details;
  // The name it had then (created, uploaded, trashed, restored), else its name now.
  const item = quoted(d.name ?? row.item_name ?? 'an item');
  const place = (id: unknown, name: string | null) => {
    if (name) return quoted(name);
    if (id == null) return row.owner_id === me ? 'My files' : 'the owner’s files';
    return 'a folder you cannot see';
  };
  switch (row.action) {
    case 'created':
      return `created the folder ${item}`;
    case 'uploaded':
      return `uploaded ${item}`;
    case 'renamed':
      return `renamed ${quoted(d.from)} to ${quoted(d.to)}`;
    case 'moved':
      return `moved ${item} from ${place(d.from, row.from_name)} to ${place(d.to, row.to_name)}`;
    case 'trashed':
      return `moved ${item} to the Trash`;
    case 'restored':
      return `restored ${item}`;
    case 'version_uploaded':
      return `uploaded a new version of ${item}`;
    case 'version_restored':
      return `restored a version of ${item}`;
    case 'version_deleted':
      return `deleted an older version of ${item}`;
    case 'shared': {
      const who = d.user === me ? 'you' : String(d.email);
      const role = ROLE[String(d.role)] ?? String(d.role);
      if (d.previous_role)
        return `made ${who} ${role === 'Editor' ? 'an' : 'a'} ${role} of ${item}`;
      return d.pending
        ? `invited ${who} to ${item} as ${role}`
        : `shared ${item} with ${who} as ${role}`;
    }
    case 'unshared':
      if (d.user && d.user === row.actor_id) return `left ${item}`;
      return `removed ${d.user === me ? 'your' : `${String(d.email)}’s`} access to ${item}`;
  }
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
    <Dialog title={`Activity of “${props.name}”`} onClose={props.onClose} wide>
      <ErrorText error={activity.error} />
      {activity.isPending && rows.length === 0 ? (
        <p role="status">Loading…</p>
      ) : rows.length === 0 && !activity.error ? (
        <p>No activity in the last 90 days.</p>
      ) : (
        <ol className="activity" aria-label="Activity, newest first">
          {rows.map((row) => (
            <li key={row.id}>
              <span>
                <strong>
                  {row.actor_id && row.actor_id === user?.id ? 'You' : row.actor_name || 'Someone'}
                </strong>{' '}
                {describeActivity(row, user?.id)}
              </span>{' '}
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
            Show more
          </button>
        ) : null}
        <button type="button" className="primary" onClick={props.onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
