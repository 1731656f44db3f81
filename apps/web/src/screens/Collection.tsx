import { useBackendQuery, useUser } from '@app/backend-react';
import { useMemo } from 'react';
import { Browser } from '../components/Browser';
import { ErrorText } from '../components/ErrorText';
import type { Column } from '../components/FileList';
import { ViewNav } from '../components/ViewNav';
import { ViewToggle } from '../components/ViewToggle';
import { t } from '../i18n';
import type { MessageKey } from '../i18n/messages/en';
import { type FileRow, type FolderRow, keys, listAllFolders } from '../lib/api';
import type { DriveClient } from '../lib/client-types';
import type { Entry } from '../lib/selection';
import { usePictures } from '../lib/thumbnails';
import { useViewMode } from '../lib/view-mode';
import { listStarred, recentFiles } from '../lib/views-api';
import { placeOf } from './Trash';

const TEXT: Record<
  'recent' | 'starred',
  Record<'title' | 'toolbar' | 'label' | 'empty', MessageKey>
> = {
  recent: {
    title: 'views.recent',
    toolbar: 'collection.recentToolbar',
    label: 'collection.recentLabel',
    empty: 'collection.recentEmpty',
  },
  starred: {
    title: 'views.starred',
    toolbar: 'collection.starredToolbar',
    label: 'collection.starredLabel',
    empty: 'collection.starredEmpty',
  },
};

/** Recent (files changed or opened last) and Starred (starred files and folders). */
export default function CollectionScreen({ which }: { which: 'recent' | 'starred' }) {
  const [view, setView] = useViewMode();
  const picture = usePictures();
  const me = useUser()?.id ?? '';
  const items = useBackendQuery<{ folders: FolderRow[]; files: FileRow[] }, DriveClient>(
    keys.view(which),
    async (c) => {
      if (which === 'starred') return listStarred(c, me);
      const r = await recentFiles(c);
      return r.error
        ? { data: null, error: r.error }
        : { data: { folders: [], files: (r.data ?? []) as FileRow[] }, error: null };
    },
  );
  const allFolders = useBackendQuery<FolderRow[], DriveClient>(
    keys.allFolders,
    (c) => listAllFolders(c) as never,
  );
  const all = allFolders.data ?? [];
  const folders = items.data?.folders ?? [];
  const files = items.data?.files ?? [];
  const list = useMemo(() => ({ total: files.length, rowAt: (i: number) => files[i] }), [files]);
  const location = useMemo<Column>(
    () => ({
      label: t('collection.location'),
      value: (e: Entry) => placeOf(e.kind === 'file' ? e.row.folder_id : e.row.parent_id, all),
    }),
    [all],
  );
  const text = TEXT[which];
  return (
    <main className="page files">
      <ViewNav />
      <h1>{t(text.title)}</h1>
      <div className="toolbar" role="toolbar" aria-label={t(text.toolbar)}>
        <ViewToggle mode={view} onChange={setView} />
      </div>
      <ErrorText error={items.error ?? allFolders.error} />
      <Browser
        mode="drive"
        folders={folders}
        files={list}
        label={t(text.label)}
        everything={async () => [
          ...folders.map((row): Entry => ({ kind: 'folder', row })),
          ...files.map((row): Entry => ({ kind: 'file', row })),
        ]}
        allFolders={all}
        view={view}
        picture={picture}
        typeColumn={location}
        loading={items.isPending && !items.error}
        resetKey={which}
        empty={
          <div className="empty">
            <p>{t(text.empty)}</p>
          </div>
        }
      />
    </main>
  );
}
