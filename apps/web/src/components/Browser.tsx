import { lazy, type ReactNode, Suspense, useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { t } from '../i18n';
import { ACCESS_REVOKED } from '../lib/activity-api';
import type { FileRow, FolderRow } from '../lib/api';
import { canEdit, type Role, useRoles, weakest } from '../lib/roles';
import {
  EMPTY,
  type Entry,
  entryKey,
  resolve,
  type Selection,
  selectAll,
  selectedCount,
  toggle,
} from '../lib/selection';
import { useDrive } from '../lib/use-drive';
import { useEntryActions } from '../lib/use-entry-actions';
import { ConfirmDialog, NameDialog } from './Dialog';
import {
  type Command,
  commandItem,
  entryCommands,
  ON_SELECTION,
  selectionCommands,
} from './entry-menu';
import FileGrid from './FileGrid';
import { type Column, FileList, type FileSource, type ListProps } from './FileList';
import { Menu } from './Menu';

const MoveDialog = lazy(() => import('./MoveDialog'));
const ShareDialog = lazy(() => import('./ShareDialog'));
const Preview = lazy(() => import('./Preview'));
const ActivityPanel = lazy(() => import('./ActivityPanel'));
const VersionsPanel = lazy(() => import('./VersionsPanel'));

type Pane =
  | { kind: 'rename'; entry: Entry }
  | { kind: 'move'; entries: Entry[] }
  | { kind: 'share'; entries: Entry[] }
  | { kind: 'preview'; file: FileRow }
  | { kind: 'delete-forever'; entries: Entry[] }
  | { kind: 'activity'; entry: Entry }
  | { kind: 'versions'; file: FileRow }
  | null;

export type ViewMode = 'list' | 'grid';

interface Props {
  /** Drive views (folders, Recent, Starred) or the Trash. */
  mode: 'drive' | 'trash';
  folders: FolderRow[];
  files: FileSource;
  label: string;
  /** Every entry of the view (for Ctrl/Cmd+A on a view whose rows are not all loaded). */
  everything(): Promise<Entry[]>;
  /** Every folder of the user (move dialog, names of places). */
  allFolders: FolderRow[];
  view?: ViewMode;
  typeColumn?: Column;
  dateColumn?: Column;
  picture?: ListProps['picture'];
  /** Shown instead of the list when the view is empty. */
  empty: ReactNode;
  loading: boolean;
  /** Changes when the view shows something else (another folder): the selection is cleared. */
  resetKey: string;
  /** My role on a selection of everything not loaded yet (default: owner). */
  role?: Role | null;
}

const editable = (el: Element | null) =>
  el instanceof HTMLElement &&
  (el.isContentEditable ||
    el.tagName === 'TEXTAREA' ||
    el.tagName === 'SELECT' ||
    (el.tagName === 'INPUT' &&
      !['checkbox', 'radio', 'button'].includes((el as HTMLInputElement).type)));

function zipName(entries: Entry[]): string {
  const only = entries[0];
  if (entries.length === 1 && only?.kind === 'folder') return `${only.row.name}.zip`;
  return t('browser.zipName', { count: entries.length });
}

/**
 * A view of entries with everything people do to them: selection (with Ctrl/Cmd+A), the row
 * menu (⋯ button or right-click), the selection bar, keyboard commands (Delete, F2, Escape),
 * and the dialogs they open. Files, Recent, Starred and Trash are this, with their own rows.
 */
export function Browser(props: Props) {
  const navigate = useNavigate();
  const actions = useEntryActions();
  const [selection, setSelection] = useState<Selection>(EMPTY);
  const [pane, setPane] = useState<Pane>(null);
  const [menu, setMenu] = useState<{
    entry: Entry;
    at: { x: number; y: number };
    trigger: HTMLElement | null;
  } | null>(null);
  const [task, setTask] = useState<{ pending: boolean; error: unknown }>({
    pending: false,
    error: null,
  });
  const { mode, folders, files, everything, resetKey } = props;
  const client = useDrive();
  const total = folders.length + (files.total ?? 0);
  const count = selectedCount(selection, total);
  const known = selection.all ? null : [...selection.picked.values()];
  const roleOf = useRoles();
  const roleOfAll = (entries: Entry[] | null) =>
    entries ? weakest(entries.map((e) => roleOf(e.row))) : (props.role ?? 'owner');

  // Another folder: nothing selected.
  // biome-ignore lint/correctness/useExhaustiveDependencies: resetKey is the trigger.
  useEffect(() => {
    setSelection(EMPTY);
    setMenu(null);
  }, [resetKey]);

  const clear = () => setSelection(EMPTY);
  const open = (entry: Entry) => {
    if (mode === 'trash') return;
    if (entry.kind === 'folder') navigate(`/files/${entry.row.id}`);
    else if (entry.row.status === 'ready') run('preview', [entry]);
  };

  const run = async (command: Command, entries: Entry[]) => {
    const one = entries[0];
    if (!one) return;
    switch (command) {
      case 'open':
        open(one);
        break;
      case 'preview':
        if (one.kind === 'file') {
          setPane({ kind: 'preview', file: one.row });
          actions.opened(one.row);
        }
        break;
      case 'download':
        if (entries.length === 1 && one.kind === 'file') await actions.download(one.row);
        else await actions.downloadZip(entries, zipName(entries));
        break;
      case 'share':
        setPane({ kind: 'share', entries });
        break;
      case 'rename':
        setPane({ kind: 'rename', entry: one });
        break;
      case 'move':
        setPane({ kind: 'move', entries });
        break;
      case 'star':
      case 'unstar':
        await actions.star(entries, command === 'star');
        break;
      case 'trash':
        if (await actions.trash(entries)) clear();
        break;
      case 'restore':
        if (await actions.restore(entries)) clear();
        break;
      case 'delete-forever':
        setPane({ kind: 'delete-forever', entries });
        break;
      case 'activity':
        setPane({ kind: 'activity', entry: one });
        break;
      case 'versions':
        if (one.kind === 'file') setPane({ kind: 'versions', file: one.row });
        break;
    }
  };
  const runOnSelection = async (command: Command) => {
    const entries = await resolve(selection, everything);
    await run(command, entries);
  };
  const selectionOr = (entry: Entry) =>
    selectedCount(selection, total) > 0 && (selection.all || selection.picked.has(entryKey(entry)))
      ? resolve(selection, everything)
      : Promise.resolve([entry]);

  // Access to the previewed file (or a folder above it) removed: the preview closes.
  useEffect(() => {
    if (pane?.kind !== 'preview') return;
    const file = pane.file;
    const revoked = (event: Event) => {
      const id = (event as CustomEvent<{ id: string }>).detail?.id;
      if (id !== file.id && !file.ancestors?.includes(id)) return;
      // The owner hears of it too, and access may remain through another grant.
      void Promise.resolve(client.from('files').select('id').eq('id', file.id).maybeSingle()).then(
        (r) => {
          if (!r.error && !r.data)
            setPane((p) => (p?.kind === 'preview' && p.file.id === file.id ? null : p));
        },
      );
    };
    window.addEventListener(ACCESS_REVOKED, revoked);
    return () => window.removeEventListener(ACCESS_REVOKED, revoked);
  }, [pane, client]);

  // Ctrl/Cmd+A selects everything in the view; Escape clears the selection.
  useEffect(() => {
    if (pane || menu) return;
    const onKey = (e: KeyboardEvent) => {
      if (editable(document.activeElement) || document.querySelector('dialog[open]')) return;
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'a') {
        e.preventDefault();
        setSelection(selectAll());
      } else if (e.key === 'Escape') {
        setSelection(EMPTY);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [pane, menu]);

  const listProps: ListProps = {
    folders,
    files,
    selection,
    label: props.label,
    onToggle: (entry) => setSelection((s) => toggle(s, entry)),
    onOpen: open,
    onMenu: (entry, at, trigger) => setMenu({ entry, at, trigger }),
    onCommand: async (command, entry) => {
      if (!canEdit(roleOf(entry.row))) return;
      if (command === 'rename' && mode === 'drive') setPane({ kind: 'rename', entry });
      if (command === 'trash') {
        const entries = await selectionOr(entry);
        if (!canEdit(roleOfAll(entries))) return;
        if (mode === 'trash' && roleOfAll(entries) !== 'owner') return;
        if (mode === 'trash') setPane({ kind: 'delete-forever', entries });
        else await run('trash', entries);
      }
    },
    typeColumn: props.typeColumn,
    dateColumn: props.dateColumn,
    picture: props.picture,
  };
  const closePane = () => {
    setPane(null);
    setTask({ pending: false, error: null });
  };
  const doTask = async (work: () => Promise<unknown>) => {
    setTask({ pending: true, error: null });
    const error = await work();
    if (error) setTask({ pending: false, error });
    else {
      closePane();
      clear();
    }
  };
  const folderName = useMemo(() => {
    const byId = new Map(props.allFolders.map((f) => [f.id, f.name]));
    return (id: string | null) =>
      id ? (byId.get(id) ?? t('browser.theFolder')) : t('views.myFiles');
  }, [props.allFolders]);

  return (
    <>
      {count > 0 ? (
        <div className="selection" role="toolbar" aria-label={t('browser.selectionActions')}>
          <span>{t('browser.selected', { count })}</span>
          {selectionCommands(known, mode, roleOfAll(known))
            .map(commandItem)
            .map(({ command, label, danger }) => (
              <button
                key={command}
                type="button"
                className={danger ? 'danger' : undefined}
                onClick={() => void runOnSelection(command)}
              >
                {label}
              </button>
            ))}
          <button type="button" onClick={clear}>
            {t('browser.clearSelection')}
          </button>
        </div>
      ) : null}
      {props.loading ? (
        <p className="loading" role="status">
          {t('row.loading')}
        </p>
      ) : total === 0 ? (
        props.empty
      ) : props.view === 'grid' ? (
        <FileGrid {...listProps} />
      ) : (
        <FileList {...listProps} />
      )}
      {menu ? (
        <Menu
          label={t('row.actions', { name: menu.entry.row.name })}
          at={menu.at}
          trigger={menu.trigger}
          onClose={() => setMenu(null)}
          items={entryCommands(menu.entry, mode, roleOf(menu.entry.row))
            .map(commandItem)
            .map(({ command, label, danger }) => ({
              label,
              danger,
              onSelect: () => {
                const entry = menu.entry;
                void (
                  ON_SELECTION.has(command) ? selectionOr(entry) : Promise.resolve([entry])
                ).then((entries) => run(command, entries));
              },
            }))}
        />
      ) : null}
      {pane?.kind === 'rename' ? (
        <NameDialog
          title={pane.entry.kind === 'folder' ? t('browser.renameFolder') : t('browser.renameFile')}
          label={t('browser.newName')}
          initial={pane.entry.row.name}
          submitLabel={t('cmd.rename')}
          pending={task.pending}
          error={task.error}
          onSubmit={(name) => doTask(() => actions.rename(pane.entry, name))}
          onClose={closePane}
        />
      ) : null}
      {pane?.kind === 'delete-forever' ? (
        <ConfirmDialog
          title={t('cmd.deleteForever')}
          message={
            pane.entries.length === 1
              ? pane.entries[0]?.kind === 'folder'
                ? t('browser.deleteFolderConfirm', { name: pane.entries[0].row.name })
                : t('browser.deleteFileConfirm', { name: pane.entries[0]?.row.name })
              : t('browser.deleteConfirm', { count: pane.entries.length })
          }
          confirmLabel={t('cmd.deleteForever')}
          pending={false}
          error={null}
          onConfirm={() => {
            const entries = pane.entries;
            closePane();
            void actions.deleteForever(entries).then((ok) => ok && clear());
          }}
          onClose={closePane}
        />
      ) : null}
      <Suspense fallback={null}>
        {pane?.kind === 'move' ? (
          <MoveDialog
            entries={pane.entries}
            folders={props.allFolders.filter(
              (f) =>
                !f.trashed_at &&
                canEdit(roleOf(f)) &&
                pane.entries.every((e) => e.row.owner_id === f.owner_id),
            )}
            root={pane.entries.every((e) => roleOf(e.row) === 'owner')}
            pending={task.pending}
            error={task.error}
            onMove={(destination) =>
              doTask(() => actions.move(pane.entries, destination, folderName(destination)))
            }
            onClose={closePane}
          />
        ) : null}
        {pane?.kind === 'activity' ? (
          <ActivityPanel
            kind={pane.entry.kind}
            id={pane.entry.row.id}
            name={pane.entry.row.name}
            onClose={closePane}
          />
        ) : null}
        {pane?.kind === 'versions' ? (
          <VersionsPanel
            file={pane.file}
            role={roleOf(pane.file)}
            onClose={closePane}
            onDownload={(file) => void actions.download(file)}
          />
        ) : null}
        {pane?.kind === 'share' ? (
          <ShareDialog entries={pane.entries} role={roleOfAll(pane.entries)} onClose={closePane} />
        ) : null}
        {pane?.kind === 'preview' ? (
          <Preview
            file={pane.file}
            onClose={closePane}
            onDownload={() => void actions.download(pane.file)}
          />
        ) : null}
      </Suspense>
    </>
  );
}
