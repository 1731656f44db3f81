/**
 * What a list row and a grid card share: the words they show of an entry, their item's
 * attributes and handlers (open, menu), the select box, the name button and the ⋯ button,
 * and the loop over the rendered range (entries, and slots for those not loaded yet).
 */
import type { KeyboardEvent, ReactNode, RefObject } from 'react';
import { formatDate } from '../format';
import { t } from '../i18n';
import type { FileRow, FolderRow } from '../lib/api';
import { type Entry, entryKey, isSelected, type Selection } from '../lib/selection';
import { describeEntry, entryAt, type FileSource, type RowActions } from './list-behaviour';

export function typeLabel(file: Pick<FileRow, 'mime_type' | 'name'>): string {
  const mime = file.mime_type || '';
  if (mime.startsWith('image/')) return t('type.image');
  if (mime.startsWith('video/')) return t('type.video');
  if (mime.startsWith('audio/')) return t('type.audio');
  if (mime === 'application/pdf') return 'PDF';
  if (mime.startsWith('text/')) return t('type.text');
  const ext = /\.([a-z0-9]{1,8})$/i.exec(file.name)?.[1];
  return ext ? ext.toUpperCase() : t('type.file');
}

/** An entry as a row or a card shows it, in the words of the view's columns. */
export function entryText(entry: Entry, actions: RowActions) {
  const file = entry.kind === 'file' ? entry.row : null;
  const type = actions.typeColumn?.value(entry) ?? (file ? typeLabel(file) : t('type.folder'));
  const date =
    actions.dateColumn?.value(entry) ?? formatDate(file ? file.updated_at : entry.row.created_at);
  const dateLabel = actions.dateColumn
    ? `${actions.dateColumn.label.toLowerCase()} ${date}`
    : `modified ${date}`;
  return { name: entry.row.name, file, type, date, spoken: describeEntry(entry, type, dateLabel) };
}

/** The attributes and handlers of a row's or card's `<li>`: double-click opens, right-click menus. */
export function itemProps(entry: Entry, index: number, actions: RowActions) {
  return {
    'data-kind': entry.kind,
    'data-name': entry.row.name,
    'data-index': index,
    onDoubleClick: () => actions.open(entry),
    onContextMenu: (e: React.MouseEvent<HTMLElement>) => actions.menu(e, entry, false),
  };
}

interface PartProps {
  entry: Entry;
  actions: RowActions;
}

export function SelectBox({ entry, actions, selected }: PartProps & { selected: boolean }) {
  return (
    <input
      type="checkbox"
      checked={selected}
      aria-label={t('row.select', { name: entry.row.name })}
      onChange={() => actions.toggle(entry)}
    />
  );
}

/** The entry's name: opens it; a screen reader hears its type, size, star and date. */
export function NameButton({ entry, actions, spoken }: PartProps & { spoken: string }) {
  const name = entry.row.name;
  return (
    <button
      type="button"
      className="name-button"
      title={name}
      onClick={() => actions.open(entry)}
      aria-label={entry.row.pending ? `${spoken}, ${t('offline.pending')}` : spoken}
    >
      <span className="name-text">{name}</span>
      {entry.row.pending ? (
        <span className="sync-mark" title={t('offline.pending')} aria-hidden="true">
          ⟳
        </span>
      ) : null}
    </button>
  );
}

/** The ⋯ button: the entry's menu, under the button. */
export function MenuButton({ entry, actions }: PartProps) {
  return (
    <button
      type="button"
      className="menu-button"
      aria-label={t('row.actions', { name: entry.row.name })}
      aria-haspopup="menu"
      onClick={(e) => actions.menu(e, entry, true)}
    >
      <span aria-hidden="true">⋯</span>
    </button>
  );
}

/**
 * The scrolling box of a list or grid and its `<ul>` (as tall as all its rows: the rendered
 * ones are placed in it); the keys of the rows' buttons bubble to `onKeyDown`.
 */
export function ListScroll(props: {
  scroller: RefObject<HTMLDivElement | null>;
  onKeyDown(e: KeyboardEvent<HTMLElement>): void;
  label: string;
  height: number;
  className: string;
  children: ReactNode;
}) {
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: keys of the rows' buttons bubble here.
    <div
      className="list-scroll"
      ref={props.scroller}
      data-testid="list-scroll"
      onKeyDown={props.onKeyDown}
    >
      <ul aria-label={props.label} style={{ height: props.height }} className={props.className}>
        {props.children}
      </ul>
    </div>
  );
}

/**
 * Indices `from`..`to` of a list (folders first): `item` for each loaded entry (with its key
 * and whether it is selected), `slot` for each one still loading.
 */
export function eachEntry(
  range: { from: number; to: number },
  source: { folders: FolderRow[]; files: FileSource; selection: Selection },
  item: (entry: Entry, index: number, key: string, selected: boolean) => ReactNode,
  slot: (index: number) => ReactNode,
): ReactNode[] {
  const out: ReactNode[] = [];
  for (let index = range.from; index <= range.to; index += 1) {
    const entry = entryAt(source.folders, source.files, index);
    if (!entry) {
      out.push(slot(index));
      continue;
    }
    const key = entryKey(entry);
    out.push(item(entry, index, key, isSelected(source.selection, key)));
  }
  return out;
}
