import { useBackendQuery, useQueryClient, useUser } from '@app/backend-react';
import { useEffect, useMemo, useState } from 'react';
import { Browser } from '../components/Browser';
import { ConfirmDialog } from '../components/Dialog';
import { ErrorText } from '../components/ErrorText';
import type { Column } from '../components/FileList';
import { ViewNav } from '../components/ViewNav';
import { formatDate } from '../format';
import { t } from '../i18n';
import { type TrashedBy, trashedByNames } from '../lib/activity-api';
import { type FileRow, type FolderRow, keys, listAllFolders } from '../lib/api';
import type { DriveClient } from '../lib/client-types';
import type { Entry } from '../lib/selection';
import { useDrive } from '../lib/use-drive';
import { useEntryActions } from '../lib/use-entry-actions';
import { deleteForever, listTrash } from '../lib/views-api';

/** "My files › Photos › 2026": where an item was, from every folder of the user. */
export function placeOf(parent: string | null, folders: FolderRow[]): string {
  const byId = new Map(folders.map((f) => [f.id, f]));
  const names: string[] = [];
  let current = parent ? byId.get(parent) : undefined;
  while (current && names.length < 50) {
    names.unshift(current.name);
    current = current.parent_id ? byId.get(current.parent_id) : undefined;
  }
  return [t('views.myFiles'), ...names].join(' › ');
}

/**
 * The Trash: what was deleted, with where it was and when. Restore brings it back (a folder
 * with its content); Delete forever and Empty Trash free the space. Entries older than 30
 * days are deleted by the backend (the `trash` function; asked here too when the Trash opens).
 */
export default function TrashScreen() {
  const client = useDrive();
  const actions = useEntryActions();
  const [confirm, setConfirm] = useState(false);
  const me = useUser()?.id;
  const trash = useBackendQuery<{ folders: FolderRow[]; files: FileRow[] }, DriveClient>(
    [...keys.view('trash'), me],
    (c) => listTrash(c, me),
    { enabled: Boolean(me) },
  );
  const allFolders = useBackendQuery<FolderRow[], DriveClient>(
    keys.allFolders,
    (c) => listAllFolders(c) as never,
  );
  const folders = trash.data?.folders ?? [];
  const files = trash.data?.files ?? [];
  const all = allFolders.data ?? [];
  // Sharing: who moved an entry there, when it was someone else (an Editor of the owner's
  // folder, or the owner of a folder the user edits).
  const others = useMemo(() => {
    const ids = { files: [] as string[], folders: [] as string[] };
    for (const f of folders) if (f.trashed_by && f.trashed_by !== me) ids.folders.push(f.id);
    for (const f of files) if (f.trashed_by && f.trashed_by !== me) ids.files.push(f.id);
    return ids;
  }, [folders, files, me]);
  const names = useBackendQuery<TrashedBy[], DriveClient>(
    ['views', 'trash', 'by', others],
    (c) => trashedByNames(c, others) as never,
    { enabled: others.files.length + others.folders.length > 0 },
  );
  const byName = useMemo(
    () => new Map((names.data ?? []).map((n) => [n.id, n.name])),
    [names.data],
  );

  // Entries past 30 days go now, whoever schedules the purge (see the README).
  const queryClient = useQueryClient();
  useEffect(() => {
    void Promise.resolve(deleteForever(client, 'purge')).then((r) => {
      if (!r.error && (r.data as { deleted?: number } | null)?.deleted) {
        void queryClient.invalidateQueries({ queryKey: keys.views });
      }
    });
  }, [client, queryClient]);

  const place = useMemo<Column>(
    () => ({
      label: t('trash.place'),
      value: (e: Entry) => {
        const place = placeOf(e.kind === 'file' ? e.row.folder_id : e.row.parent_id, all);
        // Someone else's folder (what the user trashed there): its path, not "My files".
        return e.row.owner_id === me ? place : place.replace(/^My files( › )?/, '') || '—';
      },
    }),
    [all, me],
  );
  const deleted = useMemo<Column>(
    () => ({
      label: t('trash.deleted'),
      value: (e: Entry) => {
        const when = formatDate(e.row.trashed_at);
        const by = e.row.trashed_by;
        // Only for shared trees: one's own deletions of one's own items say nothing more.
        if (!by || (by === me && e.row.owner_id === me)) return when;
        if (by === me) return t('trash.byYou', { when });
        const name = byName.get(e.row.id);
        // Until the names are in, the date alone (not a wrong "someone else").
        if (name === undefined) return names.isPending ? when : t('trash.bySomeone', { when });
        return name ? t('trash.byName', { when, name }) : t('trash.bySomeone', { when });
      },
    }),
    [me, byName, names.isPending],
  );
  const list = useMemo(() => ({ total: files.length, rowAt: (i: number) => files[i] }), [files]);
  // Empty Trash deletes the user's own entries (not what they trashed in others' folders).
  const owned = [...folders, ...files].filter((row) => row.owner_id === me).length;

  return (
    <main className="page files">
      <ViewNav />
      <h1>{t('trash.title')}</h1>
      <div className="toolbar" role="toolbar" aria-label={t('trash.toolbar')}>
        <p className="hint">{t('trash.hint')}</p>
        <button
          type="button"
          className="danger"
          disabled={owned === 0}
          onClick={() => setConfirm(true)}
        >
          {t('trash.emptyTitle')}
        </button>
      </div>
      <ErrorText error={trash.error ?? allFolders.error} />
      <Browser
        mode="trash"
        folders={folders}
        files={list}
        label={t('trash.items')}
        everything={async () => [
          ...folders.map((row): Entry => ({ kind: 'folder', row })),
          ...files.map((row): Entry => ({ kind: 'file', row })),
        ]}
        allFolders={all}
        typeColumn={place}
        dateColumn={deleted}
        loading={trash.isPending && !trash.error}
        resetKey="trash"
        empty={
          <div className="empty">
            <p>{t('trash.empty')}</p>
          </div>
        }
      />
      {confirm ? (
        <ConfirmDialog
          title={t('trash.emptyTitle')}
          message={t('trash.emptyConfirm', { count: owned })}
          confirmLabel={t('trash.emptyTitle')}
          pending={false}
          error={null}
          onConfirm={() => {
            setConfirm(false);
            void actions.deleteForever('empty');
          }}
          onClose={() => setConfirm(false)}
        />
      ) : null}
    </main>
  );
}
