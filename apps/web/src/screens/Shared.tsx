import { useBackendQuery } from '@app/backend-react';
import { useMemo } from 'react';
import { Browser } from '../components/Browser';
import { ErrorText } from '../components/ErrorText';
import type { Column } from '../components/FileList';
import { ViewNav } from '../components/ViewNav';
import { ViewToggle } from '../components/ViewToggle';
import { formatDate } from '../format';
import { t } from '../i18n';
import { type FileRow, type FolderRow, keys, listAllFolders } from '../lib/api';
import type { DriveClient } from '../lib/client-types';
import type { Entry } from '../lib/selection';
import { listSharedWithMe, type SharedItem } from '../lib/sharing-api';
import { usePictures } from '../lib/thumbnails';
import { useViewMode } from '../lib/view-mode';

const ROLE = { editor: 'role.editor', viewer: 'role.viewer' } as const;

/**
 * "Shared with me": files and folders others shared with me directly, with their owner, my
 * role and when they were shared, newest first. Opening a folder shows it as in My files
 * (breadcrumbs start here); the actions are those my role allows.
 */
export default function SharedScreen() {
  const [view, setView] = useViewMode();
  const picture = usePictures();
  const shared = useBackendQuery<
    { items: Map<string, SharedItem>; folders: FolderRow[]; files: FileRow[] },
    DriveClient
  >(keys.sharedWithMe, (c) => listSharedWithMe(c));
  const allFolders = useBackendQuery<FolderRow[], DriveClient>(
    keys.allFolders,
    (c) => listAllFolders(c) as never,
  );
  const folders = shared.data?.folders ?? [];
  const files = shared.data?.files ?? [];
  const items = shared.data?.items;
  const list = useMemo(() => ({ total: files.length, rowAt: (i: number) => files[i] }), [files]);
  const owner = useMemo<Column>(
    () => ({
      label: t('shared.ownerRole'),
      value: (e: Entry) => {
        const item = items?.get(e.row.id);
        return item
          ? t('shared.ownerAndRole', {
              owner: item.owner_name || item.owner_email,
              role: t(ROLE[item.role]),
            })
          : '';
      },
    }),
    [items],
  );
  const sharedAt = useMemo<Column>(
    () => ({
      label: t('shared.sharedAt'),
      value: (e: Entry) => formatDate(items?.get(e.row.id)?.shared_at),
    }),
    [items],
  );
  const roles = [...(items?.values() ?? [])].map((i) => i.role);
  return (
    <main className="page files">
      <ViewNav />
      <h1>{t('views.shared')}</h1>
      <div className="toolbar" role="toolbar" aria-label={t('shared.toolbar')}>
        <ViewToggle mode={view} onChange={setView} />
      </div>
      <ErrorText error={shared.error ?? allFolders.error} />
      <Browser
        mode="drive"
        folders={folders}
        files={list}
        label={t('shared.items')}
        everything={async () => [
          ...folders.map((row): Entry => ({ kind: 'folder', row })),
          ...files.map((row): Entry => ({ kind: 'file', row })),
        ]}
        allFolders={allFolders.data ?? []}
        view={view}
        picture={picture}
        typeColumn={owner}
        dateColumn={sharedAt}
        loading={shared.isPending && !shared.error}
        resetKey="shared"
        role={roles.includes('viewer') ? 'viewer' : 'editor'}
        empty={
          <div className="empty">
            <p>{t('shared.empty')}</p>
          </div>
        }
      />
    </main>
  );
}
