/**
 * The actions on entries, in one place: which ones an entry (row menu) or a selection
 * (selection bar) offers, by view; their words; which are dangerous; which act on the whole
 * selection when given from a selected row; and the keys that give them to the focused row.
 */
import type { Entry } from '../lib/selection';

export type Command =
  | 'open'
  | 'preview'
  | 'download'
  | 'share'
  | 'activity'
  | 'rename'
  | 'move'
  | 'star'
  | 'unstar'
  | 'trash'
  | 'restore'
  | 'delete-forever';

export const LABELS: Record<Command, string> = {
  open: 'Open',
  preview: 'Preview',
  download: 'Download',
  share: 'Share',
  activity: 'Activity',
  rename: 'Rename',
  move: 'Move',
  star: 'Add star',
  unstar: 'Remove star',
  trash: 'Move to Trash',
  restore: 'Restore',
  'delete-forever': 'Delete forever',
};

/** Destructive commands, drawn as such (red) in menus and the selection bar. */
export const isDanger = (command: Command) => command === 'trash' || command === 'delete-forever';

/** A command as a menu or the selection bar shows it. */
export function commandItem(command: Command) {
  return { command, label: LABELS[command], danger: isDanger(command) };
}

/** Row-menu commands that act on the whole selection when the row is part of it. */
export const ON_SELECTION: ReadonlySet<Command> = new Set<Command>(['trash', 'download', 'move']);

/** Commands given from the keyboard on a focused row. */
export type RowCommand = Extract<Command, 'trash' | 'rename'>;

/** The keys of those commands (Backspace: the "delete" key of Mac keyboards). */
export const SHORTCUTS: Readonly<Record<string, RowCommand>> = {
  Delete: 'trash',
  Backspace: 'trash',
  F2: 'rename',
};

const ready = (e: Entry) => e.kind === 'folder' || e.row.status === 'ready';

/** What one entry's menu offers. */
export function entryCommands(entry: Entry, mode: 'drive' | 'trash'): Command[] {
  if (mode === 'trash') return ['restore', 'delete-forever'];
  const out: Command[] = [];
  if (entry.kind === 'folder') out.push('open');
  else if (ready(entry)) out.push('preview');
  if (ready(entry)) out.push('download');
  if (entry.kind === 'file' && ready(entry)) out.push('share');
  out.push('activity');
  out.push('rename', 'move', entry.row.starred_at ? 'unstar' : 'star', 'trash');
  return out;
}

/**
 * Delete forever is the owner's: in the Trash, an item the caller does not own (an Editor's
 * deletion in someone else's folder) offers Restore only. The backend refuses it anyway.
 */
export const allowedInTrash = (command: Command, owned: boolean) =>
  command !== 'delete-forever' || owned;

/**
 * What a selection offers (`entries`: the selected ones when known; null when "everything"
 * is selected and not loaded yet — the commands that work on any number of items).
 */
export function selectionCommands(entries: Entry[] | null, mode: 'drive' | 'trash'): Command[] {
  if (mode === 'trash') return ['restore', 'delete-forever'];
  const one = entries?.length === 1 ? entries[0] : undefined;
  const out: Command[] = [];
  if (one?.kind === 'file' && ready(one)) out.push('preview');
  if (!entries || entries.some(ready)) out.push('download');
  if (one?.kind === 'file' && ready(one)) out.push('share');
  if (one) out.push('rename');
  out.push('move');
  out.push(
    entries && entries.length > 0 && entries.every((e) => e.row.starred_at) ? 'unstar' : 'star',
  );
  out.push('trash');
  return out;
}
