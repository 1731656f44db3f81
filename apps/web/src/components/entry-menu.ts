/**
 * The actions on entries, in one place: which ones an entry (row menu) or a selection
 * (selection bar) offers, by view; their words; which are dangerous; which act on the whole
 * selection when given from a selected row; and the keys that give them to the focused row.
 */
import { t } from '../i18n';
import type { MessageKey } from '../i18n/messages/en';
import { canEdit, type Role } from '../lib/roles';
import type { Entry } from '../lib/selection';

export type Command =
  | 'open'
  | 'preview'
  | 'download'
  | 'share'
  | 'activity'
  | 'versions'
  | 'rename'
  | 'move'
  | 'star'
  | 'unstar'
  | 'trash'
  | 'restore'
  | 'delete-forever';

const LABELS: Record<Command, MessageKey> = {
  open: 'cmd.open',
  preview: 'cmd.preview',
  download: 'cmd.download',
  share: 'cmd.share',
  activity: 'cmd.activity',
  versions: 'cmd.versions',
  rename: 'cmd.rename',
  move: 'cmd.move',
  star: 'cmd.star',
  unstar: 'cmd.unstar',
  trash: 'cmd.trash',
  restore: 'cmd.restore',
  'delete-forever': 'cmd.deleteForever',
};

/** Destructive commands, drawn as such (red) in menus and the selection bar. */
export const isDanger = (command: Command) => command === 'trash' || command === 'delete-forever';

/** A command as a menu or the selection bar shows it. */
export function commandItem(command: Command) {
  return { command, label: t(LABELS[command]), danger: isDanger(command) };
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

/**
 * What one entry's menu offers, by my `role` on it: a Viewer opens, previews, downloads and
 * sees who has access (Share); an Editor also renames, moves and trashes; only the owner
 * stars (and shares, deletes forever: in the dialog and the Trash).
 */
export function entryCommands(
  entry: Entry,
  mode: 'drive' | 'trash',
  role: Role | null = 'owner',
): Command[] {
  if (mode === 'trash') return role === 'owner' ? ['restore', 'delete-forever'] : ['restore'];
  const out: Command[] = [];
  if (entry.kind === 'folder') out.push('open');
  else if (ready(entry)) out.push('preview');
  if (ready(entry)) out.push('download', 'share');
  out.push('activity');
  if (entry.kind === 'file' && ready(entry)) out.push('versions');
  if (canEdit(role)) out.push('rename', 'move');
  if (role === 'owner') out.push(entry.row.starred_at ? 'unstar' : 'star');
  if (canEdit(role)) out.push('trash');
  return out;
}

/**
 * What a selection offers (`entries`: the selected ones when known; null when "everything"
 * is selected and not loaded yet — the commands that work on any number of items), by my
 * weakest `role` among them. The owner shares several ready items at once; anyone else sees
 * who has access to one item.
 */
export function selectionCommands(
  entries: Entry[] | null,
  mode: 'drive' | 'trash',
  role: Role | null = 'owner',
): Command[] {
  if (mode === 'trash') return role === 'owner' ? ['restore', 'delete-forever'] : ['restore'];
  const one = entries?.length === 1 ? entries[0] : undefined;
  const out: Command[] = [];
  if (one?.kind === 'file' && ready(one)) out.push('preview');
  if (!entries || entries.some(ready)) out.push('download');
  if (entries?.length && entries.every(ready) && (one || role === 'owner')) out.push('share');
  if (!canEdit(role)) return out;
  if (one) out.push('rename');
  out.push('move');
  if (role === 'owner') {
    out.push(
      entries && entries.length > 0 && entries.every((e) => e.row.starred_at) ? 'unstar' : 'star',
    );
  }
  out.push('trash');
  return out;
}
