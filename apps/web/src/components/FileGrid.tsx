import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useLayoutEffect, useRef, useState } from 'react';
import { formatBytes, formatDate } from '../format';
import type { FileRow, FolderRow } from '../lib/api';
import { type Entry, entryKey, isSelected, type Selection } from '../lib/selection';
import { blockRange, typeLabel } from './FileList';
import {
  describeEntry,
  entryAt,
  type FileSource,
  type ListProps,
  type RowActions,
  useListKeys,
  useRowActions,
} from './list-behaviour';

/** Height of a line of cards, and the narrowest a card gets. */
export const CARD_ROW = 196;
export const CARD_MIN = 164;
/** Lines of cards come and go in blocks of this many (see `blockRange`). */
const GRID_BLOCK = 4;
const GRID_MARGIN = 1;

type CardProps = {
  index: number;
  top: number;
  column: number;
  columns: number;
  selected: boolean;
  actions: RowActions;
} & ({ kind: 'folder'; row: FolderRow } | { kind: 'file'; row: FileRow });

/** One entry as a card: its picture (a thumbnail for images), name, size and date. */
const Card = memo(function Card({
  index,
  top,
  column,
  columns,
  selected,
  actions,
  ...entryProps
}: CardProps) {
  const entry = entryProps as Entry;
  const name = entry.row.name;
  const file = entry.kind === 'file' ? entry.row : null;
  const type = actions.typeColumn?.value(entry) ?? (file ? typeLabel(file) : 'Folder');
  const date =
    actions.dateColumn?.value(entry) ?? formatDate(file ? file.updated_at : entry.row.created_at);
  const dateLabel = actions.dateColumn
    ? `${actions.dateColumn.label.toLowerCase()} ${date}`
    : `modified ${date}`;
  const picture = actions.picture?.(entry, 'large');
  return (
    <li
      className={`tile${selected ? ' selected' : ''}${file?.status === 'uploading' ? ' pending' : ''}`}
      style={{
        transform: `translateY(${top}px)`,
        left: `${(column * 100) / columns}%`,
        width: `${100 / columns}%`,
        height: CARD_ROW,
      }}
      data-kind={entry.kind}
      data-name={name}
      data-index={index}
      onDoubleClick={() => actions.open(entry)}
      onContextMenu={(e) => actions.menu(e, entry, false)}
    >
      <div className="tile-inner">
        <div className="tile-picture">
          {picture ?? <span className={`big-${entry.kind}`} aria-hidden="true" />}
        </div>
        <div className="tile-top">
          <input
            type="checkbox"
            checked={selected}
            aria-label={`Select ${name}`}
            onChange={() => actions.toggle(entry)}
          />
          <button
            type="button"
            className="menu-button"
            aria-label={`Actions for ${name}`}
            aria-haspopup="menu"
            onClick={(e) => actions.menu(e, entry, true)}
          >
            <span aria-hidden="true">⋯</span>
          </button>
        </div>
        <button
          type="button"
          className="name-button"
          title={name}
          onClick={() => actions.open(entry)}
          aria-label={describeEntry(entry, type, dateLabel)}
        >
          <span className="name-text">{name}</span>
        </button>
        <span className="tile-meta">
          {entry.row.starred_at ? <span aria-hidden="true">★ </span> : null}
          {file ? formatBytes(Number(file.size)) : 'Folder'}
          {file?.status === 'uploading' ? ' · uploading' : ''}
        </span>
      </div>
    </li>
  );
});

const Slot = memo(function Slot({
  top,
  column,
  columns,
}: {
  top: number;
  column: number;
  columns: number;
}) {
  return (
    <li
      className="tile placeholder"
      aria-busy="true"
      style={{
        transform: `translateY(${top}px)`,
        left: `${(column * 100) / columns}%`,
        width: `${100 / columns}%`,
        height: CARD_ROW,
      }}
    >
      <div className="tile-inner">Loading…</div>
    </li>
  );
});

interface LinesProps {
  first: number;
  last: number;
  columns: number;
  count: number;
  folders: FolderRow[];
  files: FileSource;
  selection: Selection;
  actions: RowActions;
}

/** Lines `first`..`last` of cards; memoised, as `Rows` of the list. */
const Lines = memo(function Lines(props: LinesProps) {
  const { first, last, columns, count, folders, files, selection, actions } = props;
  const out = [];
  for (let line = first; line <= last; line += 1) {
    for (let column = 0; column < columns; column += 1) {
      const index = line * columns + column;
      if (index >= count) break;
      const top = line * CARD_ROW;
      const entry = entryAt(folders, files, index);
      if (!entry) {
        out.push(<Slot key={`index:${index}`} top={top} column={column} columns={columns} />);
        continue;
      }
      const key = entryKey(entry);
      out.push(
        <Card
          key={key}
          {...entry}
          index={index}
          top={top}
          column={column}
          columns={columns}
          selected={isSelected(selection, key)}
          actions={actions}
        />,
      );
    }
  }
  return out;
});

/**
 * The grid view: the same entries as the list, as cards with thumbnails. Virtualised by
 * lines of cards (as many per line as fit), fetched by ranges like the list.
 */
export default function FileGrid(props: ListProps) {
  const { folders, files, selection, label } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  const columns = Math.max(2, Math.floor((width || 4 * CARD_MIN) / CARD_MIN));
  const count = folders.length + (files.total ?? 0);
  const lines = Math.ceil(count / columns);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    setWidth(el.clientWidth);
    const observer = new ResizeObserver(() => setWidth(el.clientWidth));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const virtualizer = useVirtualizer({
    count: lines,
    getScrollElement: () => scroller.current,
    estimateSize: () => CARD_ROW,
    rangeExtractor: (range) => blockRange(range, GRID_BLOCK, GRID_MARGIN),
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  const setVisibleRange = files.setVisibleRange;
  useLayoutEffect(() => {
    if (!setVisibleRange) return;
    const from = first * columns - folders.length;
    const to = (last + 1) * columns - 1 - folders.length;
    setVisibleRange(Math.max(0, from), Math.max(0, to));
  }, [first, last, columns, folders.length, setVisibleRange]);

  const actions = useRowActions(props);
  const keys = useListKeys(
    props,
    count,
    columns,
    columns * Math.max(1, Math.floor((scroller.current?.clientHeight ?? 400) / CARD_ROW)),
    (index) => virtualizer.scrollToIndex(Math.floor(index / columns), { align: 'auto' }),
    scroller,
  );
  useLayoutEffect(() => keys.focusPending());

  return (
    <div className="list grid">
      {/* biome-ignore lint/a11y/noStaticElementInteractions: keys of the cards' buttons bubble here. */}
      <div
        className="list-scroll"
        ref={scroller}
        data-testid="list-scroll"
        onKeyDown={keys.onKeyDown}
      >
        <ul
          aria-label={label}
          style={{ height: virtualizer.getTotalSize() }}
          className="rows tiles"
        >
          {items.length > 0 ? (
            <Lines
              first={first}
              last={last}
              columns={columns}
              count={count}
              folders={folders}
              files={files}
              selection={selection}
              actions={actions}
            />
          ) : null}
        </ul>
      </div>
    </div>
  );
}
