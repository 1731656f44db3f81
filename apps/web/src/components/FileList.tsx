import type { RangeQueryResult } from '@app/backend-react';
import { type Range, useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, memo, useLayoutEffect, useRef, useState } from 'react';
import { formatBytes, formatDate } from '../format';
import type { FileRow, FolderRow } from '../lib/api';

export const ROW_HEIGHT = 44;
/** Rows are added and removed in blocks of this many, not one by one as the list scrolls. */
export const BLOCK = 16;
/** Rows kept rendered at least beyond each edge of the visible ones. */
export const MARGIN = 8;

/**
 * The rows to render for the visible ones: whole blocks covering them and a margin either
 * side. While the list scrolls within those, the DOM does not change at all (the browser
 * just moves the layer); when it changes, a whole block comes and goes at once.
 */
export function blockRange({ startIndex, endIndex, count }: Range): number[] {
  if (count === 0) return [];
  // Both ends move together, once per block: the start is the block before the margin, and
  // enough whole blocks follow it to cover the visible rows and the margin after them.
  const start = Math.max(0, Math.floor((startIndex - MARGIN) / BLOCK) * BLOCK);
  const blocks = Math.ceil((endIndex - startIndex + 1 + 2 * MARGIN + BLOCK) / BLOCK);
  const end = Math.min(count - 1, start + blocks * BLOCK - 1);
  const out: number[] = [];
  for (let i = start; i <= end; i += 1) out.push(i);
  return out;
}

/** An entry of the list: a folder or a file. */
export type Entry = { kind: 'folder'; row: FolderRow } | { kind: 'file'; row: FileRow };

export const entryKey = (e: Entry) => `${e.kind}:${e.row.id}`;

export function typeLabel(file: Pick<FileRow, 'mime_type' | 'name'>): string {
  const mime = file.mime_type || '';
  if (mime.startsWith('image/')) return 'Image';
  if (mime.startsWith('video/')) return 'Video';
  if (mime.startsWith('audio/')) return 'Audio';
  if (mime === 'application/pdf') return 'PDF';
  if (mime.startsWith('text/')) return 'Text';
  const ext = /\.([a-z0-9]{1,8})$/i.exec(file.name)?.[1];
  return ext ? ext.toUpperCase() : 'File';
}

interface Props {
  folders: FolderRow[];
  files:
    | RangeQueryResult<FileRow>
    | { total: number; rowAt(i: number): FileRow | undefined; setVisibleRange?: undefined };
  selected: Set<string>;
  onToggle(entry: Entry): void;
  onOpen(entry: Entry): void;
  label: string;
}

/** What a row does; one object for the whole list, so rows only re-render when their data does. */
interface RowActions {
  toggle(entry: Entry): void;
  open(entry: Entry): void;
  keyDown(e: KeyboardEvent<HTMLButtonElement>, entry: Entry): void;
}

type RowProps = { start: number; selected: boolean; actions: RowActions } & (
  | { kind: 'folder'; row: FolderRow }
  | { kind: 'file'; row: FileRow }
);

/** One entry of the list; memoised on its row object, position and selection. */
const Row = memo(function Row({ start, selected, actions, ...entryProps }: RowProps) {
  const entry = entryProps as Entry;
  const name = entry.row.name;
  const file = entry.kind === 'file' ? entry.row : null;
  const size = file ? formatBytes(Number(file.size)) : '—';
  const type = file ? typeLabel(file) : 'Folder';
  const date = formatDate(file ? file.updated_at : entry.row.created_at);
  return (
    <li
      className={`row${selected ? ' selected' : ''}${file?.status === 'uploading' ? ' pending' : ''}`}
      style={{ transform: `translateY(${start}px)`, height: ROW_HEIGHT }}
      data-kind={entry.kind}
      data-name={name}
      onDoubleClick={() => actions.open(entry)}
    >
      <span className="c-select">
        <input
          type="checkbox"
          checked={selected}
          aria-label={`Select ${name}`}
          onChange={() => actions.toggle(entry)}
        />
      </span>
      <span className="c-name">
        <button
          type="button"
          className="name-button"
          onClick={() => actions.open(entry)}
          onKeyDown={(e) => actions.keyDown(e, entry)}
          aria-label={`${name}, ${type}${file ? `, ${size}` : ''}, modified ${date}`}
        >
          <span className={`icon-${entry.kind}`} aria-hidden="true" />
          {name}
        </button>
        {file?.status === 'uploading' ? (
          <span
            className="badge"
            title="This upload has not finished: resume it from the uploads panel"
          >
            incomplete
          </span>
        ) : null}
      </span>
      <span className="c-size">{size}</span>
      <span className="c-type">{type}</span>
      <span className="c-date">{date}</span>
    </li>
  );
});

/** A row whose page is still loading. */
const Placeholder = memo(function Placeholder({ start }: { start: number }) {
  return (
    <li
      className="row placeholder"
      style={{ transform: `translateY(${start}px)`, height: ROW_HEIGHT }}
      aria-busy="true"
    >
      <span className="c-select" />
      <span className="c-name">Loading…</span>
    </li>
  );
});

interface RowsProps {
  first: number;
  last: number;
  folders: FolderRow[];
  files: Props['files'];
  selected: Set<string>;
  actions: RowActions;
}

/**
 * Rows `first`..`last`. Memoised on the range: the virtualiser re-renders the list on every
 * scroll event, but while the rendered block stays the same this bails out.
 */
const Rows = memo(function Rows({ first, last, folders, files, selected, actions }: RowsProps) {
  const out = [];
  for (let index = first; index <= last; index += 1) {
    const start = index * ROW_HEIGHT;
    const folder = index < folders.length ? folders[index] : undefined;
    const file = index < folders.length ? undefined : files.rowAt(index - folders.length);
    const entry: Entry | null = folder
      ? { kind: 'folder', row: folder }
      : file
        ? { kind: 'file', row: file }
        : null;
    if (!entry) {
      out.push(<Placeholder key={`index:${index}`} start={start} />);
      continue;
    }
    const key = entryKey(entry);
    out.push(
      <Row key={key} {...entry} start={start} selected={selected.has(key)} actions={actions} />,
    );
  }
  return out;
});

/**
 * The folder browser's list: folders first, then files, virtualised (only the rows on screen
 * exist in the DOM) and fetched by ranges around what is visible.
 */
export function FileList({ folders, files, selected, onToggle, onOpen, label }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const fileCount = files.total ?? 0;
  const count = folders.length + fileCount;
  const handlers = useRef({ onToggle, onOpen });
  handlers.current = { onToggle, onOpen };
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    rangeExtractor: blockRange,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  const setVisibleRange = files.setVisibleRange;
  // A layout effect, not a passive one: it runs inside the scroll's synchronous render instead
  // of scheduling another task per scroll step (and the hook only sets state when the set of
  // pages changes).
  useLayoutEffect(() => {
    if (!setVisibleRange) return;
    setVisibleRange(Math.max(0, first - folders.length), Math.max(0, last - folders.length));
  }, [first, last, folders.length, setVisibleRange]);

  const [actions] = useState<RowActions>(() => ({
    toggle: (entry) => handlers.current.onToggle(entry),
    open: (entry) => handlers.current.onOpen(entry),
    keyDown: (e, entry) => {
      if (e.key === ' ' && !e.repeat && e.shiftKey) {
        e.preventDefault();
        handlers.current.onToggle(entry);
      } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const row = e.currentTarget.closest('li');
        const next = e.key === 'ArrowDown' ? row?.nextElementSibling : row?.previousElementSibling;
        const button = next?.querySelector<HTMLButtonElement>('.name-button');
        if (button) button.focus();
        else scroller.current?.scrollBy({ top: e.key === 'ArrowDown' ? ROW_HEIGHT : -ROW_HEIGHT });
      }
    },
  }));

  return (
    <div className="list">
      <div className="list-head" aria-hidden="true">
        <span className="c-select" />
        <span className="c-name">Name</span>
        <span className="c-size">Size</span>
        <span className="c-type">Type</span>
        <span className="c-date">Modified</span>
      </div>
      <div className="list-scroll" ref={scroller} data-testid="list-scroll">
        <ul aria-label={label} style={{ height: virtualizer.getTotalSize() }} className="rows">
          {items.length > 0 ? (
            <Rows
              first={first}
              last={last}
              folders={folders}
              files={files}
              selected={selected}
              actions={actions}
            />
          ) : null}
        </ul>
      </div>
    </div>
  );
}
