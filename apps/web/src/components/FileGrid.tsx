import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useLayoutEffect, useRef, useState } from 'react';
import { formatBytes } from '../format';
import { t } from '../i18n';
import type { FileRow, FolderRow } from '../lib/api';
import type { Entry, Selection } from '../lib/selection';
import {
  eachEntry,
  entryText,
  itemProps,
  ListScroll,
  MenuButton,
  NameButton,
  SelectBox,
} from './EntryParts';
import { blockRange } from './FileList';
import {
  type FileSource,
  type ListProps,
  type RowActions,
  useListControls,
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
  const { file, spoken } = entryText(entry, actions);
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
      {...itemProps(entry, index, actions)}
    >
      <div className="tile-inner">
        <div className="tile-picture">
          {picture ?? <span className={`big-${entry.kind}`} aria-hidden="true" />}
        </div>
        <div className="tile-top">
          <SelectBox entry={entry} actions={actions} selected={selected} />
          <MenuButton entry={entry} actions={actions} />
        </div>
        <NameButton entry={entry} actions={actions} spoken={spoken} />
        <span className="tile-meta">
          {entry.row.starred_at ? <span aria-hidden="true">★ </span> : null}
          {!file
            ? t('type.folder')
            : file.status === 'uploading'
              ? t('grid.uploading', { size: formatBytes(Number(file.size)) })
              : formatBytes(Number(file.size))}
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
      <div className="tile-inner">{t('row.loading')}</div>
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
  const top = (index: number) => Math.floor(index / columns) * CARD_ROW;
  return eachEntry(
    { from: first * columns, to: Math.min((last + 1) * columns, count) - 1 },
    { folders, files, selection },
    (entry, index, key, selected) => (
      <Card
        key={key}
        {...entry}
        index={index}
        top={top(index)}
        column={index % columns}
        columns={columns}
        selected={selected}
        actions={actions}
      />
    ),
    (index) => (
      <Slot key={`index:${index}`} top={top(index)} column={index % columns} columns={columns} />
    ),
  );
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

  const { actions, keys } = useListControls(
    props,
    count,
    columns,
    columns * Math.max(1, Math.floor((scroller.current?.clientHeight ?? 400) / CARD_ROW)),
    (index) => virtualizer.scrollToIndex(Math.floor(index / columns), { align: 'auto' }),
    scroller,
  );

  return (
    <div className="list grid">
      <ListScroll
        scroller={scroller}
        onKeyDown={keys.onKeyDown}
        label={label}
        height={virtualizer.getTotalSize()}
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
      </ListScroll>
    </div>
  );
}
