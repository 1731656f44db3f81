/**
 * The folder browser's selection: entries picked one by one, or "everything in this view"
 * (Ctrl/Cmd+A) minus the ones unticked since — the view may hold 10,000 files of which only
 * the rows on screen are loaded, so "all" is a flag, resolved to entries when an action runs.
 */

import { t } from '../i18n';
import type { FileRow, FolderRow } from './api';

/** An entry of a list: a folder or a file. */
export type Entry = { kind: 'folder'; row: FolderRow } | { kind: 'file'; row: FileRow };

export const entryKey = (e: Entry) => `${e.kind}:${e.row.id}`;

export interface Selection {
  /** Everything in the view is selected, except `except`. */
  all: boolean;
  /** Picked entries (when not `all`), by key. */
  picked: ReadonlyMap<string, Entry>;
  /** Unticked keys (when `all`). */
  except: ReadonlySet<string>;
}

export const EMPTY: Selection = { all: false, picked: new Map(), except: new Set() };

export const selectAll = (): Selection => ({ all: true, picked: new Map(), except: new Set() });

export function isSelected(s: Selection, key: string): boolean {
  return s.all ? !s.except.has(key) : s.picked.has(key);
}

/** How many entries are selected, given how many the view holds. */
export function selectedCount(s: Selection, total: number): number {
  return s.all ? Math.max(0, total - s.except.size) : s.picked.size;
}

/** Ticks or unticks one entry. */
export function toggle(s: Selection, entry: Entry): Selection {
  const key = entryKey(entry);
  if (s.all) {
    const except = new Set(s.except);
    if (except.has(key)) except.delete(key);
    else except.add(key);
    return { ...s, except };
  }
  const picked = new Map(s.picked);
  if (picked.has(key)) picked.delete(key);
  else picked.set(key, entry);
  return { ...s, picked };
}

/** The selected entries, given every entry of the view (only needed when `all`). */
export function resolve(s: Selection, everything: () => Promise<Entry[]>): Promise<Entry[]> {
  if (!s.all) return Promise.resolve([...s.picked.values()]);
  return everything().then((all) => all.filter((e) => !s.except.has(entryKey(e))));
}

/** Files and folders of a list of entries, by id. */
export function idsOf(entries: readonly Entry[]): { files: string[]; folders: string[] } {
  const files: string[] = [];
  const folders: string[] = [];
  for (const e of entries) (e.kind === 'file' ? files : folders).push(e.row.id);
  return { files, folders };
}

/** "“name”" for one entry, "N items" for more. */
export function describe(entries: readonly Entry[]): string {
  return t('items.describe', { count: entries.length, name: entries[0]?.row.name ?? '' });
}
