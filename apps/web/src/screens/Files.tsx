import {
  unwrap,
  useBackendMutation,
  useBackendQuery,
  useQueryClient,
  useRangeQuery,
  useUser,
} from '@app/backend-react';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { Browser } from '../components/Browser';
import { NameDialog } from '../components/Dialog';
import { ErrorText } from '../components/ErrorText';
import { FolderPresence } from '../components/FolderPresence';
import { useLayout } from '../components/layout-context';
import { UploadFolderButton } from '../components/UploadFolder';
import { ViewNav } from '../components/ViewNav';
import { ViewToggle } from '../components/ViewToggle';
import { t } from '../i18n';
import { type FolderPlace, folderPlace } from '../lib/activity-api';
import {
  createFolder,
  type FileRow,
  type FolderRow,
  keys,
  LIVE_KEYS,
  listAllFolders,
  listFiles,
  listFolders,
  type Sort,
  type SortKey,
} from '../lib/api';
import type { DriveClient } from '../lib/client-types';
import { pickWithHandles } from '../lib/pickers';
import { canEdit, useRoles } from '../lib/roles';
import type { Entry } from '../lib/selection';
import { usePictures } from '../lib/thumbnails';
import { useDrive } from '../lib/use-drive';
import { useViewMode } from '../lib/view-mode';
import { offlineNow } from '../offline/online';

const ALL_PAGE = 1000;
const ActivityPanel = lazy(() => import('../components/ActivityPanel'));

function Breadcrumbs({
  folderId,
  folders,
  me,
}: {
  folderId: string | null;
  folders: FolderRow[] | undefined;
  me: string;
}) {
  const chain: FolderRow[] = [];
  const byId = new Map((folders ?? []).map((f) => [f.id, f]));
  let current = folderId ? byId.get(folderId) : undefined;
  while (current && chain.length < 100) {
    chain.unshift(current);
    current = current.parent_id ? byId.get(current.parent_id) : undefined;
  }
  // In someone else's folder, the path starts at the top folder shared with me.
  const shared = chain[0] !== undefined && chain[0].owner_id !== me;
  return (
    <nav aria-label={t('files.crumbs')} className="crumbs">
      <ol>
        <li>
          {shared ? (
            <Link to="/shared">{t('views.shared')}</Link>
          ) : folderId ? (
            <Link to="/files">{t('views.myFiles')}</Link>
          ) : (
            <span aria-current="page">{t('views.myFiles')}</span>
          )}
        </li>
        {chain.map((f, i) => (
          <li key={f.id}>
            {i === chain.length - 1 ? (
              <span aria-current="page" title={f.name}>
                {f.name}
              </span>
            ) : (
              <Link to={`/files/${f.id}`} title={f.name}>
                {f.name}
              </Link>
            )}
          </li>
        ))}
      </ol>
    </nav>
  );
}

/** Every file of a folder (not in the Trash), for "select all". */
async function allFiles(client: DriveClient, folderId: string | null, sort: Sort, me: string) {
  const out: FileRow[] = [];
  for (let from = 0; ; from += ALL_PAGE) {
    const page = (await unwrap(
      listFiles(client, folderId, sort, from, from + ALL_PAGE - 1, false, me),
    )) as FileRow[];
    out.push(...page);
    if (page.length < ALL_PAGE) return out;
  }
}

export default function FilesScreen() {
  const { folderId: param } = useParams();
  const folderId = param ?? null;
  const client = useDrive();
  const queryClient = useQueryClient();
  const { setUploadTarget, addFiles } = useLayout();
  const [sort, setSort] = useState<Sort>({ key: 'name', ascending: true });
  const [creating, setCreating] = useState(false);
  const [activity, setActivity] = useState(false);
  const [view, setView] = useViewMode();
  const picker = useRef<HTMLInputElement>(null);
  const navigate = useNavigate();
  const picture = usePictures();
  const me = useUser()?.id ?? '';
  const roleOf = useRoles();

  useEffect(() => {
    setUploadTarget(folderId);
  }, [folderId, setUploadTarget]);

  const allFolders = useBackendQuery<FolderRow[], DriveClient>(
    keys.allFolders,
    (c) => listAllFolders(c) as never,
  );
  const folders = useBackendQuery<FolderRow[], DriveClient>(
    [...keys.folders(folderId), sort.key, sort.ascending],
    (c) => listFolders(c, folderId, sort, me) as never,
  );
  const files = useRangeQuery<FileRow, DriveClient>({
    queryKey: keys.files(folderId, sort),
    fetchRange: (c, from, to, _signal, { count }) =>
      listFiles(c, folderId, sort, from, to, count, me) as never,
    pageSize: 100,
  });
  // The folder with the folders above it: the page leaves it when access to any of them goes
  // (components/Layout.tsx, event `access`).
  useBackendQuery<FolderPlace | null, DriveClient>(
    keys.folder(folderId ?? ''),
    (c) => folderPlace(c, folderId ?? ''),
    { enabled: folderId !== null },
  );

  const here = folderId ? allFolders.data?.find((f) => f.id === folderId) : undefined;
  const exists = folderId === null || allFolders.isPending || here !== undefined;
  // A folder shared with me as a Viewer: nothing to add (the backend refuses it anyway).
  const role = here ? roleOf(here) : 'owner';
  const mine = !here || here.owner_id === me;

  const newFolder = useBackendMutation(
    (name: string, c: DriveClient) => createFolder(c, name, folderId),
    { invalidates: LIVE_KEYS, onSuccess: () => setCreating(false) },
  );

  if (!exists || here?.trashed_at) {
    return (
      <main className="page">
        <ViewNav />
        <h1>{here ? t('files.inTrash') : t('files.notFound')}</h1>
        <p>{here ? t('files.inTrashHint') : t('files.notFoundHint')}</p>
        <p>
          {here ? <Link to="/trash">{t('files.goTrash')}</Link> : null}{' '}
          <Link to="/files">{t('files.backHome')}</Link>{' '}
          <Link to="/shared">{t('views.shared')}</Link>
        </p>
      </main>
    );
  }

  const loadError = folders.error ?? files.error ?? allFolders.error;
  const currentName = here?.name ?? t('views.myFiles');
  const folderRows = folders.data ?? [];
  const list = files;
  const everything = async (): Promise<Entry[]> => {
    const fileRows = await allFiles(client, folderId, sort, me);
    return [
      ...folderRows.map((row): Entry => ({ kind: 'folder', row })),
      ...fileRows.map((row): Entry => ({ kind: 'file', row })),
    ];
  };

  return (
    <main className="page files">
      <ViewNav />
      <Breadcrumbs folderId={folderId} folders={allFolders.data} me={me} />
      {folderId ? <FolderPresence folderId={folderId} /> : null}
      <h1 className="sr-only">
        {currentName}
        {mine ? '' : ` (shared with you${role === 'viewer' ? ', view only' : ''})`}
      </h1>
      <div className="toolbar" role="toolbar" aria-label={t('files.toolbar')}>
        {canEdit(role) ? (
          <>
            <button
              type="button"
              className="primary"
              onClick={async () => {
                const picked = await pickWithHandles('files');
                if (picked === null) picker.current?.click();
                else if (picked.files.length) addFiles(picked, folderId);
              }}
            >
              {t('files.upload')}
            </button>
            <input
              ref={picker}
              type="file"
              multiple
              hidden
              aria-label={t('files.chooseFiles')}
              data-testid="file-picker"
              onChange={(e) => {
                const chosen = Array.from(e.target.files ?? []);
                if (chosen.length) addFiles(chosen, folderId);
                e.target.value = '';
              }}
            />
            <UploadFolderButton folderId={folderId} />
            <button type="button" onClick={() => setCreating(true)}>
              {t('files.newFolder')}
            </button>
          </>
        ) : null}
        <label className="search">
          <span className="sr-only">{t('files.searchLabel')}</span>
          <input
            type="search"
            placeholder={t('files.searchPlaceholder')}
            value=""
            onChange={(e) => {
              // Search is its own page (screens/Search.tsx); typing here takes me there.
              if (e.target.value.trim()) {
                navigate(`/search?q=${encodeURIComponent(e.target.value)}`);
              }
            }}
          />
        </label>
        <label className="sort">
          <span>{t('files.sortBy')}</span>
          <select
            value={`${sort.key}:${sort.ascending ? 'asc' : 'desc'}`}
            onChange={(e) => {
              const [key, dir] = e.target.value.split(':') as [SortKey, string];
              setSort({ key, ascending: dir === 'asc' });
            }}
          >
            <option value="name:asc">{t('files.sort.nameAsc')}</option>
            <option value="name:desc">{t('files.sort.nameDesc')}</option>
            <option value="size:desc">{t('files.sort.sizeDesc')}</option>
            <option value="size:asc">{t('files.sort.sizeAsc')}</option>
            <option value="date:desc">{t('files.sort.dateDesc')}</option>
            <option value="date:asc">{t('files.sort.dateAsc')}</option>
          </select>
        </label>
        {folderId ? (
          <button type="button" onClick={() => setActivity(true)}>
            {t('files.activity')}
          </button>
        ) : null}
        <ViewToggle mode={view} onChange={setView} />
      </div>
      <ErrorText error={loadError} />
      <Browser
        mode="drive"
        folders={folderRows}
        files={list}
        label={t('files.contents', { name: currentName })}
        everything={everything}
        allFolders={allFolders.data ?? []}
        view={view}
        picture={picture}
        loading={(folders.isPending || files.isLoading) && !loadError}
        resetKey={`${folderId}`}
        role={role}
        empty={
          <div className="empty">
            <p>{canEdit(role) ? t('files.emptyEditable') : t('files.empty')}</p>
          </div>
        }
      />
      {creating ? (
        <NameDialog
          title={t('files.newFolder')}
          label={t('files.folderName')}
          initial=""
          submitLabel={t('files.create')}
          pending={newFolder.isPending}
          error={newFolder.error}
          onSubmit={async (name) => {
            if (!(await offlineNow())) return newFolder.mutate(name);
            void import('../offline/queue')
              .then(({ queueFolder }) => queueFolder(queryClient, name, folderId))
              .then(() => setCreating(false));
          }}
          onClose={() => {
            newFolder.reset();
            setCreating(false);
          }}
        />
      ) : null}
      {activity && folderId ? (
        <Suspense fallback={null}>
          <ActivityPanel
            kind="folder"
            id={folderId}
            name={currentName}
            onClose={() => setActivity(false)}
          />
        </Suspense>
      ) : null}
    </main>
  );
}
