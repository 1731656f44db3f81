import type { RangeQueryResult } from '@app/backend-react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, useEffect, useRef } from 'react';
import { formatBytes, formatDate } from '../format';
import type { FileRow, FolderRow } from '../lib/api';

export const ROW_HEIGHT = 44;

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

/**
 * The folder browser's list: folders first, then files, virtualised (only the rows on screen
 * exist in the DOM) and fetched by ranges around what is visible.
 */
export function FileList({ folders, files, selected, onToggle, onOpen, label }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const fileCount = files.total ?? 0;
  const count = folders.length + fileCount;
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  const setVisibleRange = files.setVisibleRange;
  useEffect(() => {
    if (!setVisibleRange) return;
    const start = Math.max(0, first - folders.length);
    const end = Math.max(0, last - folders.length);
    setVisibleRange(start, end);
  }, [first, last, folders.length, setVisibleRange]);

  const entryAt = (index: number): Entry | null => {
    if (index < folders.length) {
      const row = folders[index];
      return row ? { kind: 'folder', row } : null;
    }
    const row = files.rowAt(index - folders.length);
    return row ? { kind: 'file', row } : null;
  };

  const onKeyDown = (e: KeyboardEvent<HTMLButtonElement>, entry: Entry) => {
    if (e.key === ' ' && !e.repeat && e.shiftKey) {
      e.preventDefault();
      onToggle(entry);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const row = e.currentTarget.closest('li');
      const next = e.key === 'ArrowDown' ? row?.nextElementSibling : row?.previousElementSibling;
      const button = next?.querySelector<HTMLButtonElement>('.name-button');
      if (button) button.focus();
      else scroller.current?.scrollBy({ top: e.key === 'ArrowDown' ? ROW_HEIGHT : -ROW_HEIGHT });
    }
  };

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
          {items.map((v) => {
            const entry = entryAt(v.index);
            const style = { transform: `translateY(${v.start}px)`, height: ROW_HEIGHT } as const;
            if (!entry) {
              return (
                <li key={v.key} className="row placeholder" style={style} aria-busy="true">
                  <span className="c-select" />
                  <span className="c-name">Loading…</span>
                </li>
              );
            }
            const key = entryKey(entry);
            const isSelected = selected.has(key);
            const name = entry.row.name;
            const file = entry.kind === 'file' ? entry.row : null;
            const size = file ? formatBytes(Number(file.size)) : '—';
            const type = file ? typeLabel(file) : 'Folder';
            const date = formatDate(file ? file.updated_at : entry.row.created_at);
            return (
              <li
                key={key}
                className={`row${isSelected ? ' selected' : ''}${file?.status === 'uploading' ? ' pending' : ''}`}
                style={style}
                data-kind={entry.kind}
                data-name={name}
                onDoubleClick={() => onOpen(entry)}
              >
                <span className="c-select">
                  <input
                    type="checkbox"
                    checked={isSelected}
                    aria-label={`Select ${name}`}
                    onChange={() => onToggle(entry)}
                  />
                </span>
                <span className="c-name">
                  <button
                    type="button"
                    className="name-button"
                    onClick={() => onOpen(entry)}
                    onKeyDown={(e) => onKeyDown(e, entry)}
                    aria-label={`${name}, ${type}${file ? `, ${size}` : ''}, modified ${date}`}
                  >
                    <span className={`icon-${entry.kind}`} aria-hidden="true" />
                    {name}
                  </button>
                  {file?.status === 'uploading' ? <span className="badge">uploading</span> : null}
                </span>
                <span className="c-size">{size}</span>
                <span className="c-type">{type}</span>
                <span className="c-date">{date}</span>
              </li>
            );
          })}
        </ul>
      </div>
    </div>
  );
}
