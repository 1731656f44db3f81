/**
 * What the list and the grid share: their props, the entry at an index, the words of an
 * entry's name button, the row actions (stable across renders) and keyboard use.
 */
import type { RangeQueryResult } from '@app/backend-react';
import {
  type KeyboardEvent,
  type MouseEvent,
  type ReactNode,
  type RefObject,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { formatBytes } from '../format';
import type { FileRow, FolderRow } from '../lib/api';
import type { Entry, Selection } from '../lib/selection';
import { type RowCommand, SHORTCUTS } from './entry-menu';

/** The rows of a list: folders first (all loaded), then files (by index, maybe by range). */
export type FileSource =
  | RangeQueryResult<FileRow>
  | { total: number; rowAt(i: number): FileRow | undefined; setVisibleRange?: undefined };

/** A column whose content depends on the view (Trash shows where an item was, …). */
export interface Column {
  label: string;
  value(entry: Entry): string;
}

export type { RowCommand } from './entry-menu';

/** What a list (or grid) view needs from its screen. */
export interface ListProps {
  folders: FolderRow[];
  files: FileSource;
  selection: Selection;
  onToggle(entry: Entry): void;
  onOpen(entry: Entry): void;
  /** Opens the entry's menu at a point (right-click) or under its button. */
  onMenu(entry: Entry, at: { x: number; y: number }, trigger: HTMLElement | null): void;
  onCommand?(command: RowCommand, entry: Entry): void;
  label: string;
  /** Replaces the Type column. */
  typeColumn?: Column;
  /** Replaces the Modified column. */
  dateColumn?: Column;
  /** A picture per entry (thumbnails); the type icon when absent or null. */
  picture?(entry: Entry, size: 'small' | 'large'): ReactNode;
}

/** The entry at an index of the list (folders first), if loaded. */
export function entryAt(folders: FolderRow[], files: FileSource, index: number): Entry | null {
  if (index < folders.length) {
    const row = folders[index];
    return row ? { kind: 'folder', row } : null;
  }
  const row = files.rowAt(index - folders.length);
  return row ? { kind: 'file', row } : null;
}

/** What a row does; one object for the whole list, so rows only re-render when their data does. */
export interface RowActions {
  toggle(entry: Entry): void;
  open(entry: Entry): void;
  menu(e: MouseEvent<HTMLElement>, entry: Entry, fromButton: boolean): void;
  picture?: ListProps['picture'];
  typeColumn?: Column;
  dateColumn?: Column;
}

/** The words a screen reader hears for an entry's name button. */
export function describeEntry(entry: Entry, type: string, date: string): string {
  const file = entry.kind === 'file' ? entry.row : null;
  const size = file ? `, ${formatBytes(Number(file.size))}` : '';
  const star = entry.row.starred_at ? ', starred' : '';
  return `${entry.row.name}, ${type}${size}${star}, ${date}`;
}

/** The row actions of a list or grid: stable, reading the latest props through a ref. */
export function useRowActions(props: ListProps): RowActions {
  const latest = useRef(props);
  latest.current = props;
  const [actions] = useState<RowActions>(() => ({
    toggle: (entry) => latest.current.onToggle(entry),
    open: (entry) => latest.current.onOpen(entry),
    menu: (e, entry, fromButton) => {
      e.preventDefault();
      const target = e.currentTarget as HTMLElement;
      const holder = target.closest('[data-index]');
      const trigger = holder?.querySelector<HTMLElement>('.name-button') ?? null;
      if (fromButton) {
        const box = target.getBoundingClientRect();
        latest.current.onMenu(entry, { x: box.right, y: box.bottom }, target);
      } else {
        latest.current.onMenu(entry, { x: e.clientX, y: e.clientY }, trigger);
      }
    },
  }));
  // Columns and pictures are part of what rows show: a new object (every row re-renders) only
  // when they change, so screens pass them memoised.
  const { picture, typeColumn, dateColumn } = props;
  return useMemo(
    () => ({ ...actions, picture, typeColumn, dateColumn }),
    [actions, picture, typeColumn, dateColumn],
  );
}

/**
 * What a list or grid view wires up: its row actions and its keyboard use (see
 * {@link useListKeys}), the focus following the keys after each render.
 */
export function useListControls(
  props: ListProps,
  ...keyArgs: Parameters<typeof useListKeys> extends [ListProps, ...infer Rest] ? Rest : never
) {
  const actions = useRowActions(props);
  const keys = useListKeys(props, ...keyArgs);
  useLayoutEffect(() => keys.focusPending());
  return { actions, keys };
}

/**
 * Keyboard use of a list or grid: arrows (by `columns` per line), Home/End and Page keys move
 * the focus; Delete and F2 are given to the screen; Shift+Space ticks the focused entry.
 * Returns the keydown handler and a function to call after each render.
 */
export function useListKeys(
  props: ListProps,
  count: number,
  columns: number,
  pageSize: number,
  scrollToIndex: (index: number) => void,
  container: RefObject<HTMLElement | null>,
) {
  const pending = useRef<number | null>(null);
  const focusPending = () => {
    if (pending.current === null) return;
    const el = container.current?.querySelector<HTMLElement>(
      `[data-index="${pending.current}"] .name-button`,
    );
    if (el) {
      el.focus({ preventScroll: false });
      pending.current = null;
    }
  };
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    const holder = (e.target as HTMLElement).closest<HTMLElement>('[data-index]');
    if (!holder) return;
    const index = Number(holder.dataset.index);
    const entry = entryAt(props.folders, props.files, index);
    const command = Object.hasOwn(SHORTCUTS, e.key) ? SHORTCUTS[e.key] : undefined;
    if (command) {
      if (entry && props.onCommand) {
        e.preventDefault();
        props.onCommand(command, entry);
      }
      return;
    }
    let next: number | null = null;
    switch (e.key) {
      case 'ArrowDown':
        next = index + columns;
        break;
      case 'ArrowUp':
        next = index - columns;
        break;
      case 'ArrowRight':
        next = columns > 1 ? index + 1 : null;
        break;
      case 'ArrowLeft':
        next = columns > 1 ? index - 1 : null;
        break;
      case 'Home':
        next = 0;
        break;
      case 'End':
        next = count - 1;
        break;
      case 'PageDown':
        next = index + pageSize;
        break;
      case 'PageUp':
        next = index - pageSize;
        break;
      case ' ':
        if (entry && e.shiftKey && !e.repeat) {
          e.preventDefault();
          props.onToggle(entry);
        }
        return;
      default:
        return;
    }
    if (next === null || count === 0) return;
    e.preventDefault();
    pending.current = Math.max(0, Math.min(count - 1, next));
    scrollToIndex(pending.current);
    focusPending();
  };
  return { onKeyDown, focusPending };
}
