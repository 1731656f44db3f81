/**
 * The changes made offline, as data: what each one is, how it shows in the lists kept for
 * offline reading before it is sent, and what sending it finds. Pure: no network, no
 * IndexedDB, no React (queue.ts does those), so every rule here is unit-tested.
 */

/** A change made offline, in the order it was made. Ids of new folders are made here. */
export type Change =
  | {
      id: string;
      kind: 'rename';
      table: 'files' | 'folders';
      itemId: string;
      /** The name when the change was made, and the new one. */
      before: string;
      name: string;
    }
  | {
      id: string;
      kind: 'move';
      table: 'files' | 'folders';
      itemId: string;
      /** The item's name (for messages). */
      name: string;
      /** Its folder when the change was made (null: My files), and the destination. */
      from: string | null;
      to: string | null;
      toName: string;
    }
  | { id: string; kind: 'folder'; folderId: string; parentId: string | null; name: string };

/** Why a change could not be sent as it was made. */
export type ConflictReason =
  /** The item is gone: deleted, in the Trash, or no longer shared. */
  | 'gone'
  /** Someone renamed or moved it meanwhile (`theirs` says how). */
  | 'changed'
  /** The name is taken where it goes. */
  | 'taken'
  /** The backend refused it (no longer allowed, the destination is gone…). */
  | 'refused';

export interface Conflict {
  change: Change;
  reason: ConflictReason;
  /** For `changed`: the item's name or folder now. */
  theirs?: string | null;
  /** For `refused`: the backend's reason, as shown to users. */
  message?: string;
}

/** What the queue holds for one user: changes still to send, and those waiting for a decision. */
export interface QueueState {
  changes: Change[];
  conflicts: Conflict[];
}

export const EMPTY_QUEUE: QueueState = { changes: [], conflicts: [] };

/** The item's row as it is on the backend when a change is sent (null: not found). */
export interface Current {
  name: string;
  parent: string | null;
  trashed: boolean;
}

/**
 * Whether a rename or a move can be sent as made: the item must still be there, as it was
 * when the change was made (its name for a rename, its folder for a move). A change that
 * already holds (renamed or moved the same way elsewhere) needs nothing.
 */
export function check(
  change: Exclude<Change, { kind: 'folder' }>,
  current: Current | null,
): 'send' | 'done' | Conflict {
  if (!current || current.trashed) return { change, reason: 'gone' };
  if (change.kind === 'rename') {
    if (current.name === change.name) return 'done';
    if (current.name !== change.before) return { change, reason: 'changed', theirs: current.name };
    return 'send';
  }
  if (current.parent === change.to) return 'done';
  if (current.parent !== change.from) return { change, reason: 'changed', theirs: current.parent };
  return 'send';
}

/** The ids a change needs to exist on the backend first (a folder made offline). */
export function needs(change: Change): string[] {
  if (change.kind === 'folder') return change.parentId ? [change.parentId] : [];
  if (change.kind === 'rename') return [change.itemId];
  return [change.itemId, ...(change.to ? [change.to] : [])];
}

/** A free name to try after `name` was taken: "Notes" → "Notes (1)", "a.txt" → "a (1).txt". */
export function numbered(name: string, n: number): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)} (${n})${name.slice(dot)}` : `${name} (${n})`;
}

export type Row = { id: string; name: string; pending?: boolean } & Record<string, unknown>;
type Key = readonly unknown[];

/** The listing key's first part and the folder it lists (see `lib/api.ts`, `keys`). */
const listOf = (key: Key): { what: 'folders' | 'files' | 'all' | 'other'; folder: unknown } => {
  if (key[0] === 'folders') return { what: 'folders', folder: key[1] };
  if (key[0] === 'files') return { what: 'files', folder: key[1] };
  if (key[0] === 'folders-all') return { what: 'all', folder: undefined };
  return { what: 'other', folder: undefined };
};

const mapRows = (data: unknown, f: (rows: Row[]) => Row[]): unknown => {
  if (Array.isArray(data)) return f(data as Row[]);
  if (data && typeof data === 'object' && Array.isArray((data as { rows?: unknown }).rows)) {
    const page = data as { rows: Row[]; count: number | null };
    const rows = f(page.rows);
    const count = page.count === null ? null : page.count + rows.length - page.rows.length;
    return { ...page, rows, count };
  }
  return data;
};

/** A cached listing with `row` added (a list, or a range list's page). */
export function withRow(data: unknown, row: Row): unknown {
  return mapRows(data ?? [], (rows) => (rows.some((r) => r.id === row.id) ? rows : [...rows, row]));
}

/** Whether a cached list holds the `table` kind of rows. */
const holds = (what: string, table: 'files' | 'folders') =>
  table === 'files' ? what === 'files' : what === 'folders' || what === 'all';

/**
 * A cached listing as it looks with `change` made: renamed rows get the new name, moved rows
 * leave their folder's list and join the destination's (a range list's first page), a new
 * folder joins its parent's list. Changed rows are marked `pending` until the change is sent.
 * Returns `data` itself when the change does not touch this listing.
 *
 * @example
 * applyToListing(['folders', null, 'name', true], rows, { kind: 'folder', … }) // rows + the new one
 */
export function applyToListing(key: Key, data: unknown, change: Change, me: string): unknown {
  const { what, folder } = listOf(key);
  if (what === 'other') return data;
  // A list never loaded (opened offline with nothing kept) shows a new folder all the same.
  if (data === undefined) {
    const ownList = change.kind === 'folder' && what === 'folders' && folder === change.parentId;
    if (!ownList) return data;
  }
  if (change.kind === 'rename') {
    if (!holds(what, change.table)) return data;
    return mapRows(data, (rows) =>
      rows.some((r) => r.id === change.itemId)
        ? rows.map((r) => (r.id === change.itemId ? { ...r, name: change.name, pending: true } : r))
        : rows,
    );
  }
  if (change.kind === 'folder') {
    if (what === 'files' || (what === 'folders' && folder !== change.parentId)) return data;
    const row: Row = {
      id: change.folderId,
      name: change.name,
      parent_id: change.parentId,
      owner_id: me,
      created_at: new Date().toISOString(),
      trashed_at: null,
      pending: true,
    };
    return withRow(data, row);
  }
  if (!holds(what, change.table)) return data;
  const column = change.table === 'files' ? 'folder_id' : 'parent_id';
  if (what === 'all') {
    return mapRows(data, (rows) =>
      rows.map((r) => (r.id === change.itemId ? { ...r, [column]: change.to, pending: true } : r)),
    );
  }
  if (folder === change.from) {
    return mapRows(data, (rows) => rows.filter((r) => r.id !== change.itemId));
  }
  // The destination: its list (for files, the range list's first page) gains the row, when
  // the row is known from another cached list (`moved`).
  return data;
}

/**
 * The row of a moved item as its destination list shows it, from the row it had.
 */
export function movedRow(change: Extract<Change, { kind: 'move' }>, row: Row): Row {
  const column = change.table === 'files' ? 'folder_id' : 'parent_id';
  return { ...row, [column]: change.to, pending: true };
}

/** Whether a cached listing is the first page (or the whole) of `folder`'s `table` list. */
export function isDestination(
  key: Key,
  table: 'files' | 'folders',
  folder: string | null,
): boolean {
  const { what, folder: listed } = listOf(key);
  if (listed !== folder) return false;
  if (table === 'folders') return what === 'folders';
  return what === 'files' && key[key.length - 1] === 0;
}
