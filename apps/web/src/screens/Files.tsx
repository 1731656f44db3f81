import { useBackendMutation, useBackendQuery, useRangeQuery } from '@app/backend-react';
import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ConfirmDialog, NameDialog } from '../components/Dialog';
import { ErrorText } from '../components/ErrorText';
import { type Entry, entryKey, FileList } from '../components/FileList';
import { useLayout } from '../components/layout-context';
import { UploadFolderButton } from '../components/UploadFolder';
import { Loading } from '../Loading';
import {
  createFolder,
  deleteFiles,
  deleteFolders,
  type FileRow,
  type FolderRow,
  keys,
  listAllFolders,
  listFiles,
  listFolders,
  moveItems,
  renameItem,
  type Sort,
  type SortKey,
  searchFiles,
  signedUrl,
} from '../lib/api';
import type { DriveClient } from '../lib/client-types';
import { useDrive } from '../lib/use-drive';

const MoveDialog = lazy(() => import('../components/MoveDialog'));
const ShareDialog = lazy(() => import('../components/ShareDialog'));
const Preview = lazy(() => import('../components/Preview'));

type Pane =
  | { kind: 'new-folder' }
  | { kind: 'rename'; entry: Entry }
  | { kind: 'delete'; entries: Entry[] }
  | { kind: 'move'; entries: Entry[] }
  | { kind: 'share'; file: FileRow }
  | { kind: 'preview'; file: FileRow }
  | null;

const LIVE = [['files'], ['folders'], [...keys.allFolders], [...keys.usage], ['search']];

/** Starts a download of a file through a short-lived signed URL. */
export async function download(client: DriveClient, file: FileRow): Promise<unknown> {
  const { data, error } = await signedUrl(client, file, true);
  if (error || !data) return error ?? new Error('No URL');
  const a = document.createElement('a');
  a.href = data.signedUrl;
  a.download = file.name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  return null;
}

function Breadcrumbs({
  folderId,
  folders,
}: {
  folderId: string | null;
  folders: FolderRow[] | undefined;
}) {
  const chain: FolderRow[] = [];
  const byId = new Map((folders ?? []).map((f) => [f.id, f]));
  let current = folderId ? byId.get(folderId) : undefined;
  while (current && chain.length < 100) {
    chain.unshift(current);
    current = current.parent_id ? byId.get(current.parent_id) : undefined;
  }
  return (
    <nav aria-label="Breadcrumbs" className="crumbs">
      <ol>
        <li>
          {folderId ? <Link to="/files">My files</Link> : <span aria-current="page">My files</span>}
        </li>
        {chain.map((f, i) => (
          <li key={f.id}>
            {i === chain.length - 1 ? (
              <span aria-current="page">{f.name}</span>
            ) : (
              <Link to={`/files/${f.id}`}>{f.name}</Link>
            )}
          </li>
        ))}
      </ol>
    </nav>
  );
}

export default function FilesScreen() {
  const { folderId: param } = useParams();
  const folderId = param ?? null;
  const client = useDrive();
  const navigate = useNavigate();
  const { setUploadTarget, addFiles } = useLayout();
  const [sort, setSort] = useState<Sort>({ key: 'name', ascending: true });
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [pane, setPane] = useState<Pane>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const picker = useRef<HTMLInputElement>(null);
  const search = query.trim();

  useEffect(() => {
    setUploadTarget(folderId);
    setSelected(new Set());
    setQuery('');
  }, [folderId, setUploadTarget]);

  const allFolders = useBackendQuery<FolderRow[], DriveClient>(
    keys.allFolders,
    (c) => listAllFolders(c) as never,
  );
  const folders = useBackendQuery<FolderRow[], DriveClient>(
    [...keys.folders(folderId), sort.key, sort.ascending],
    (c) => listFolders(c, folderId, sort) as never,
  );
  const files = useRangeQuery<FileRow, DriveClient>({
    queryKey: keys.files(folderId, sort),
    fetchRange: (c, from, to, _signal, { count }) =>
      listFiles(c, folderId, sort, from, to, count) as never,
    pageSize: 100,
    enabled: !search,
  });
  const results = useBackendQuery<FileRow[], DriveClient>(
    keys.search(search),
    (c) => searchFiles(c, search) as never,
    {
      enabled: search.length > 0,
    },
  );

  const exists =
    folderId === null || allFolders.isPending || allFolders.data?.some((f) => f.id === folderId);

  const newFolder = useBackendMutation(
    (name: string, c: DriveClient) => createFolder(c, name, folderId),
    { invalidates: LIVE, onSuccess: () => setPane(null) },
  );
  const rename = useBackendMutation(
    (v: { entry: Entry; name: string }, c: DriveClient) =>
      renameItem(c, v.entry.kind === 'file' ? 'files' : 'folders', v.entry.row.id, v.name),
    { invalidates: LIVE, onSuccess: () => setPane(null) },
  );
  const remove = useBackendMutation(
    async (entries: Entry[], c: DriveClient) => {
      const fileRows = entries.flatMap((e) => (e.kind === 'file' ? [e.row] : []));
      const folderIds = entries.flatMap((e) => (e.kind === 'folder' ? [e.row.id] : []));
      const a = await deleteFiles(c, fileRows);
      if (a.error) return a;
      return deleteFolders(c, folderIds);
    },
    {
      invalidates: LIVE,
      onSuccess: () => {
        setPane(null);
        setSelected(new Set());
      },
    },
  );
  const move = useBackendMutation(
    async (v: { entries: Entry[]; destination: string | null }, c: DriveClient) => {
      const fileIds = v.entries.flatMap((e) => (e.kind === 'file' ? [e.row.id] : []));
      const folderIds = v.entries.flatMap((e) => (e.kind === 'folder' ? [e.row.id] : []));
      if (fileIds.length) {
        const a = await moveItems(c, 'files', fileIds, v.destination);
        if (a.error) return a;
      }
      if (folderIds.length) return moveItems(c, 'folders', folderIds, v.destination);
      return { data: [], error: null };
    },
    {
      invalidates: LIVE,
      onSuccess: () => {
        setPane(null);
        setSelected(new Set());
      },
    },
  );

  const folderRows = search ? [] : (folders.data ?? []);
  const list = search
    ? { total: results.data?.length ?? 0, rowAt: (i: number) => results.data?.[i] }
    : files;

  const selectedEntries = useMemo(() => {
    const out: Entry[] = [];
    for (const f of folderRows)
      if (selected.has(`folder:${f.id}`)) out.push({ kind: 'folder', row: f });
    const total = list.total ?? 0;
    for (let i = 0; i < total && out.length < selected.size; i += 1) {
      const row = list.rowAt(i);
      if (row && selected.has(`file:${row.id}`)) out.push({ kind: 'file', row });
    }
    return out;
  }, [folderRows, list, selected]);
  const selectedFile =
    selectedEntries.length === 1 && selectedEntries[0]?.kind === 'file'
      ? selectedEntries[0].row
      : null;

  const toggle = (entry: Entry) => {
    const key = entryKey(entry);
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  };
  const open = (entry: Entry) => {
    if (entry.kind === 'folder') navigate(`/files/${entry.row.id}`);
    else if (entry.row.status === 'ready') setPane({ kind: 'preview', file: entry.row });
  };

  if (!exists) {
    return (
      <main className="page">
        <h1>Folder not found</h1>
        <p>This folder does not exist or is not yours.</p>
        <Link to="/files">Back to My files</Link>
      </main>
    );
  }

  const loadError = folders.error ?? files.error ?? results.error ?? allFolders.error;
  const currentName = folderId
    ? (allFolders.data?.find((f) => f.id === folderId)?.name ?? 'Folder')
    : 'My files';

  return (
    <main className="page files">
      <Breadcrumbs folderId={folderId} folders={allFolders.data} />
      <h1 className="sr-only">{currentName}</h1>
      <div className="toolbar" role="toolbar" aria-label="Folder actions">
        <button type="button" className="primary" onClick={() => picker.current?.click()}>
          Upload files
        </button>
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          aria-label="Choose files to upload"
          data-testid="file-picker"
          onChange={(e) => {
            const chosen = Array.from(e.target.files ?? []);
            if (chosen.length) addFiles(chosen, folderId);
            e.target.value = '';
          }}
        />
        <UploadFolderButton folderId={folderId} />
        <button type="button" onClick={() => setPane({ kind: 'new-folder' })}>
          New folder
        </button>
        <label className="search">
          <span className="sr-only">Search files by name</span>
          <input
            type="search"
            placeholder="Search files"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
          />
        </label>
        <label className="sort">
          <span>Sort by</span>
          <select
            value={`${sort.key}:${sort.ascending ? 'asc' : 'desc'}`}
            onChange={(e) => {
              const [key, dir] = e.target.value.split(':') as [SortKey, string];
              setSort({ key, ascending: dir === 'asc' });
            }}
          >
            <option value="name:asc">Name (A–Z)</option>
            <option value="name:desc">Name (Z–A)</option>
            <option value="size:desc">Size (largest)</option>
            <option value="size:asc">Size (smallest)</option>
            <option value="date:desc">Modified (newest)</option>
            <option value="date:asc">Modified (oldest)</option>
          </select>
        </label>
      </div>
      {selectedEntries.length > 0 ? (
        <div className="selection" role="toolbar" aria-label="Selection actions">
          <span>{selectedEntries.length} selected</span>
          {selectedFile ? (
            <>
              <button
                type="button"
                onClick={() => setPane({ kind: 'preview', file: selectedFile })}
              >
                Preview
              </button>
              <button
                type="button"
                onClick={async () => setActionError(await download(client, selectedFile))}
              >
                Download
              </button>
              <button type="button" onClick={() => setPane({ kind: 'share', file: selectedFile })}>
                Share
              </button>
            </>
          ) : null}
          {selectedEntries.length === 1 && selectedEntries[0] ? (
            <button
              type="button"
              onClick={() => setPane({ kind: 'rename', entry: selectedEntries[0] as Entry })}
            >
              Rename
            </button>
          ) : null}
          <button type="button" onClick={() => setPane({ kind: 'move', entries: selectedEntries })}>
            Move
          </button>
          <button
            type="button"
            className="danger"
            onClick={() => setPane({ kind: 'delete', entries: selectedEntries })}
          >
            Delete
          </button>
          <button type="button" onClick={() => setSelected(new Set())}>
            Clear selection
          </button>
        </div>
      ) : null}
      <ErrorText error={actionError ?? loadError} />
      {(search ? results.isPending : folders.isPending || files.isLoading) && !loadError ? (
        <Loading />
      ) : folderRows.length + (list.total ?? 0) === 0 ? (
        <div className="empty">
          <p>
            {search
              ? `No files match “${search}”.`
              : 'This folder is empty. Drop files anywhere, or use Upload files.'}
          </p>
        </div>
      ) : (
        <FileList
          folders={folderRows}
          files={list}
          selected={selected}
          onToggle={toggle}
          onOpen={open}
          label={search ? `Search results for ${search}` : `Contents of ${currentName}`}
        />
      )}
      {pane?.kind === 'new-folder' ? (
        <NameDialog
          title="New folder"
          label="Folder name"
          initial=""
          submitLabel="Create"
          pending={newFolder.isPending}
          error={newFolder.error}
          onSubmit={(name) => newFolder.mutate(name)}
          onClose={() => {
            newFolder.reset();
            setPane(null);
          }}
        />
      ) : null}
      {pane?.kind === 'rename' ? (
        <NameDialog
          title={`Rename ${pane.entry.kind}`}
          label="New name"
          initial={pane.entry.row.name}
          submitLabel="Rename"
          pending={rename.isPending}
          error={rename.error}
          onSubmit={(name) => rename.mutate({ entry: pane.entry, name })}
          onClose={() => {
            rename.reset();
            setPane(null);
          }}
        />
      ) : null}
      {pane?.kind === 'delete' ? (
        <ConfirmDialog
          title="Delete"
          message={
            pane.entries.length === 1
              ? `Delete “${pane.entries[0]?.row.name}”${pane.entries[0]?.kind === 'folder' ? ' and everything in it' : ''}? This cannot be undone.`
              : `Delete ${pane.entries.length} items (and everything in the folders)? This cannot be undone.`
          }
          confirmLabel="Delete"
          pending={remove.isPending}
          error={remove.error}
          onConfirm={() => remove.mutate(pane.entries)}
          onClose={() => {
            remove.reset();
            setPane(null);
          }}
        />
      ) : null}
      <Suspense fallback={null}>
        {pane?.kind === 'move' ? (
          <MoveDialog
            entries={pane.entries}
            folders={allFolders.data ?? []}
            pending={move.isPending}
            error={move.error}
            onMove={(destination) => move.mutate({ entries: pane.entries, destination })}
            onClose={() => {
              move.reset();
              setPane(null);
            }}
          />
        ) : null}
        {pane?.kind === 'share' ? (
          <ShareDialog file={pane.file} onClose={() => setPane(null)} />
        ) : null}
        {pane?.kind === 'preview' ? (
          <Preview
            file={pane.file}
            onClose={() => setPane(null)}
            onDownload={async () => setActionError(await download(client, pane.file))}
          />
        ) : null}
      </Suspense>
    </main>
  );
}
