import { type Range, useVirtualizer } from '@tanstack/react-virtual';
import { memo, useLayoutEffect, useRef } from 'react';
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
import {
  type FileSource,
  type ListProps,
  type RowActions,
  useListControls,
} from './list-behaviour';

export type { Column, FileSource, ListProps, RowCommand } from './list-behaviour';

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
export function blockRange(
  { startIndex, endIndex, count }: Range,
  block = BLOCK,
  margin = MARGIN,
): number[] {
  if (count === 0) return [];
  // Both ends move together, once per block: the start is the block before the margin, and
  // enough whole blocks follow it to cover the visible rows and the margin after them.
  const start = Math.max(0, Math.floor((startIndex - margin) / block) * block);
  const blocks = Math.ceil((endIndex - startIndex + 1 + 2 * margin + block) / block);
  const end = Math.min(count - 1, start + blocks * block - 1);
  const out: number[] = [];
  for (let i = start; i <= end; i += 1) out.push(i);
  return out;
}

export type { Entry } from '../lib/selection';
export { entryKey } from '../lib/selection';

export { typeLabel } from './EntryParts';

type RowProps = {
  index: number;
  start: number;
  selected: boolean;
  actions: RowActions;
} & ({ kind: 'folder'; row: FolderRow } | { kind: 'file'; row: FileRow });

/** One entry of the list; memoised on its row object, position and selection. */
const Row = memo(function Row({ index, start, selected, actions, ...entryProps }: RowProps) {
  const entry = entryProps as Entry;
  const { file, type, date, spoken } = entryText(entry, actions);
  const size = file ? formatBytes(Number(file.size)) : '—';
  const picture = actions.picture?.(entry, 'small');
  return (
    <li
      className={`row${selected ? ' selected' : ''}${file?.status === 'uploading' ? ' pending' : ''}`}
      style={{ transform: `translateY(${start}px)`, height: ROW_HEIGHT }}
      {...itemProps(entry, index, actions)}
    >
      <span className="c-select">
        <SelectBox entry={entry} actions={actions} selected={selected} />
      </span>
      <span className="c-name">
        {picture ?? <span className={`icon-${entry.kind}`} aria-hidden="true" />}
        <NameButton entry={entry} actions={actions} spoken={spoken} />
        {entry.row.starred_at ? (
          <span className="star" aria-hidden="true" title={t('row.starred')}>
            ★
          </span>
        ) : null}
        {file?.status === 'uploading' ? (
          <span className="badge" title={t('row.incomplete')}>
            incomplete
          </span>
        ) : null}
      </span>
      <span className="c-size">{size}</span>
      <span className="c-type">{type}</span>
      <span className="c-date">{date}</span>
      <span className="c-menu">
        <MenuButton entry={entry} actions={actions} />
      </span>
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
      <span className="c-name">{t('row.loading')}</span>
    </li>
  );
});

interface RowsProps {
  first: number;
  last: number;
  folders: FolderRow[];
  files: FileSource;
  selection: Selection;
  actions: RowActions;
}

/**
 * Rows `first`..`last`. Memoised on the range: the virtualiser re-renders the list on every
 * scroll event, but while the rendered block stays the same this bails out.
 */
const Rows = memo(function Rows({ first, last, folders, files, selection, actions }: RowsProps) {
  return eachEntry(
    { from: first, to: last },
    { folders, files, selection },
    (entry, index, key, selected) => (
      <Row
        key={key}
        {...entry}
        index={index}
        start={index * ROW_HEIGHT}
        selected={selected}
        actions={actions}
      />
    ),
    (index) => <Placeholder key={`index:${index}`} start={index * ROW_HEIGHT} />,
  );
});

/**
 * The folder browser's list: folders first, then files, virtualised (only the rows on screen
 * exist in the DOM) and fetched by ranges around what is visible.
 */
export function FileList(props: ListProps) {
  const { folders, files, selection, label } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const fileCount = files.total ?? 0;
  const count = folders.length + fileCount;
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    rangeExtractor: (range) => blockRange(range),
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

  const { actions, keys } = useListControls(
    props,
    count,
    1,
    Math.max(1, Math.floor((scroller.current?.clientHeight ?? 440) / ROW_HEIGHT) - 1),
    (index) => virtualizer.scrollToIndex(index, { align: 'auto' }),
    scroller,
  );

  return (
    <div className={props.typeColumn ? 'list with-place' : 'list'}>
      <div className="list-head" aria-hidden="true">
        <span className="c-select" />
        <span className="c-name">{t('col.name')}</span>
        <span className="c-size">{t('col.size')}</span>
        <span className="c-type">{props.typeColumn?.label ?? t('col.type')}</span>
        <span className="c-date">{props.dateColumn?.label ?? t('col.modified')}</span>
        <span className="c-menu" />
      </div>
      <ListScroll
        scroller={scroller}
        onKeyDown={keys.onKeyDown}
        label={label}
        height={virtualizer.getTotalSize()}
        className="rows"
      >
        {items.length > 0 ? (
          <Rows
            first={first}
            last={last}
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
