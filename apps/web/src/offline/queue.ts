/**
 * Renames, moves and new folders made offline: kept per user in IndexedDB (`queue`), shown at
 * once in the lists kept for offline reading (marked as waiting), and sent in order when the
 * browser is back online. A change that no longer fits (the item is gone, someone changed it
 * meanwhile, the name is taken) is never dropped: it waits as a conflict for the user's
 * decision (SyncPanel.tsx), and what depends on it waits with it.
 */
import type { QueryClient } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { t } from '../i18n';
import { LIVE_KEYS } from '../lib/api';
import type { DriveClient } from '../lib/client-types';
import type { Entry } from '../lib/selection';
import { showToast } from '../lib/toasts';
import { userErrorOf } from '../lib/use-drive';
import { isOnline } from './online';
import { keepListingsNow } from './persist';
import {
  applyToListing,
  type Change,
  type Conflict,
  type Current,
  check,
  EMPTY_QUEUE,
  isDestination,
  movedRow,
  needs,
  numbered,
  type QueueState,
  type Row,
  withRow,
} from './queue-logic';
import { read, write } from './store';

let owner: string | null = null;
let state: QueueState = EMPTY_QUEUE;
let loaded: Promise<void> = Promise.resolve();
const listeners = new Set<() => void>();

function update(next: QueueState): void {
  state = next;
  if (owner) void write('queue', owner, state);
  for (const l of listeners) l();
}

/** Loads `userId`'s queue (the one signed in); null forgets the one in memory. */
export function openQueue(userId: string | null): Promise<void> {
  if (userId === owner) return loaded;
  owner = userId;
  state = EMPTY_QUEUE;
  for (const l of listeners) l();
  loaded = userId
    ? read<QueueState>('queue', userId).then((saved) => {
        if (owner !== userId || !saved) return;
        state = { changes: saved.changes ?? [], conflicts: saved.conflicts ?? [] };
        for (const l of listeners) l();
      })
    : Promise.resolve();
  return loaded;
}

/** The queue of the user signed in, re-rendering the caller when it changes. */
export function useQueue(): QueueState {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => state,
  );
}

const LISTINGS = new Set(['folders', 'files', 'folders-all']);

/** Shows a change in every cached listing it touches (kept for offline reading too). */
function showInCache(queryClient: QueryClient, change: Change): void {
  const listings = queryClient.getQueriesData({
    predicate: (q) => LISTINGS.has(String(q.queryKey[0])),
  });
  let row: Row | undefined;
  if (change.kind === 'move') {
    for (const [key, data] of listings) {
      const rows = Array.isArray(data) ? data : (data as { rows?: unknown } | undefined)?.rows;
      const table = key[0] === 'files' ? 'files' : 'folders';
      if (table !== change.table || !Array.isArray(rows) || key[0] === 'folders-all') continue;
      row ??= (rows as Row[]).find((r) => r.id === change.itemId);
    }
  }
  for (const [key, data] of listings) {
    let next = applyToListing(key, data, change, owner ?? '');
    if (change.kind === 'move' && row && isDestination(key, change.table, change.to))
      next = withRow(next, movedRow(change, row));
    if (next !== data) queryClient.setQueryData(key, next);
  }
}

/** Queues changes, shows them in the kept listings (saved at once) and says so. */
async function add(queryClient: QueryClient, changes: Change[], message: string): Promise<void> {
  await loaded;
  update({ ...state, changes: [...state.changes, ...changes] });
  for (const change of changes) showInCache(queryClient, change);
  keepListingsNow();
  showToast({ message });
}

const newId = () => crypto.randomUUID();

/** Renames an entry offline. */
export function queueRename(queryClient: QueryClient, entry: Entry, name: string) {
  const table = entry.kind === 'file' ? 'files' : 'folders';
  const before = entry.row.name;
  const change: Change = { id: newId(), kind: 'rename', table, itemId: entry.row.id, before, name };
  return add(queryClient, [change], t('offline.renamed', { before, name }));
}

/** Moves entries offline. */
export function queueMove(
  queryClient: QueryClient,
  entries: Entry[],
  to: string | null,
  toName: string,
) {
  const changes = entries.map(
    (e): Change => ({
      id: newId(),
      kind: 'move',
      table: e.kind === 'file' ? 'files' : 'folders',
      itemId: e.row.id,
      name: e.row.name,
      from: e.kind === 'file' ? e.row.folder_id : e.row.parent_id,
      to,
      toName,
    }),
  );
  return add(queryClient, changes, t('offline.moved', { count: entries.length, where: toName }));
}

/** Makes a new folder offline. */
export function queueFolder(queryClient: QueryClient, name: string, parentId: string | null) {
  const change: Change = { id: newId(), kind: 'folder', folderId: newId(), parentId, name };
  return add(queryClient, [change], t('offline.created', { name }));
}

/** A failure that says nothing about the change: the network or the server is away. */
const transient = (error: unknown): boolean => {
  const status = (error as { status?: unknown } | null)?.status;
  return !isOnline() || status === 0 || status === undefined || Number(status) >= 502;
};

const conflictOf = (change: Change, error: unknown): Conflict =>
  (error as { code?: unknown }).code === '23505'
    ? { change, reason: 'taken' }
    : { change, reason: 'refused', message: userErrorOf(error).message };

async function current(client: DriveClient, change: Exclude<Change, { kind: 'folder' }>) {
  const column = change.table === 'files' ? 'folder_id' : 'parent_id';
  const { data, error } = await client
    .from(change.table)
    .select(`name,${column},trashed_at`)
    .eq('id', change.itemId)
    .maybeSingle();
  if (error) throw error;
  if (!data) return null;
  const row = data as Record<string, unknown>;
  return {
    name: String(row.name),
    parent: (row[column] as string | null) ?? null,
    trashed: row.trashed_at !== null,
  } satisfies Current;
}

async function folderThere(client: DriveClient, id: string): Promise<boolean> {
  const { data, error } = await client
    .from('folders')
    .select('id')
    .eq('id', id)
    .is('trashed_at', null)
    .maybeSingle();
  if (error) throw error;
  return data !== null;
}

/** Sends one change as made (`name`: under another name, after "keep both"). */
async function sendChange(client: DriveClient, change: Change, name?: string): Promise<void> {
  let result: { error: unknown };
  if (change.kind === 'folder') {
    const row = { id: change.folderId, name: name ?? change.name, parent_id: change.parentId };
    result = await client.from('folders').insert(row);
  } else {
    const column = change.table === 'files' ? 'folder_id' : 'parent_id';
    const values: Record<string, unknown> =
      change.kind === 'rename' ? { name: name ?? change.name } : { [column]: change.to };
    if (change.kind === 'move' && name) values.name = name;
    result = await client.from(change.table).update(values).eq('id', change.itemId);
  }
  if (result.error) throw result.error;
}

/** Sends one change, checking first that it still fits. */
async function sendOne(client: DriveClient, change: Change): Promise<Conflict | null> {
  if (change.kind !== 'folder') {
    const verdict = check(change, await current(client, change));
    if (verdict === 'done') return null;
    if (verdict !== 'send') return verdict;
  }
  if (change.kind === 'move' && change.to && !(await folderThere(client, change.to))) {
    return { change, reason: 'refused', message: t('offline.noDestination') };
  }
  try {
    await sendChange(client, change);
    return null;
  } catch (error) {
    if (transient(error)) throw error;
    return conflictOf(change, error);
  }
}

let running: Promise<void> | null = null;
let retry: ReturnType<typeof setTimeout> | undefined;

/**
 * Sends the queued changes, in order (at most one run at a time). A change waiting for a
 * decision holds back those that need it; a network failure stops the run, tried again 5 s
 * later while online.
 */
export function sendQueued(client: DriveClient, queryClient: QueryClient): Promise<void> {
  running ??= send(client, queryClient).finally(() => {
    running = null;
  });
  return running;
}

async function send(client: DriveClient, queryClient: QueryClient): Promise<void> {
  await loaded;
  const user = owner;
  let saved = 0;
  const held = new Set<string>();
  const hold = (c: Change) => {
    if (c.kind === 'folder') held.add(c.folderId);
    else held.add(c.itemId);
  };
  for (const c of state.conflicts) hold(c.change);
  for (const change of [...state.changes]) {
    if (owner !== user || !isOnline()) break;
    if (needs(change).some((id) => held.has(id))) {
      hold(change);
      continue;
    }
    let conflict: Conflict | null;
    try {
      conflict = await sendOne(client, change);
    } catch {
      clearTimeout(retry);
      retry = setTimeout(() => {
        if (isOnline()) void sendQueued(client, queryClient);
      }, 5000);
      break;
    }
    if (owner !== user) return;
    const changes = state.changes.filter((c) => c.id !== change.id);
    if (conflict) {
      hold(change);
      update({ changes, conflicts: [...state.conflicts, conflict] });
    } else {
      saved += 1;
      update({ ...state, changes });
    }
  }
  if (saved > 0) showToast({ message: t('offline.saved', { count: saved }) });
  await Promise.all(LIVE_KEYS.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
}

/**
 * Settles a conflict: `mine` sends the change anyway (under a free name when its name was
 * taken), `theirs` drops it. The changes it held back are then sent.
 */
export async function settle(
  client: DriveClient,
  queryClient: QueryClient,
  conflict: Conflict,
  choice: 'mine' | 'theirs',
): Promise<void> {
  const others = () => state.conflicts.filter((c) => c.change.id !== conflict.change.id);
  if (choice === 'mine') {
    try {
      if (conflict.reason === 'taken') await keepBoth(client, conflict.change);
      else await sendChange(client, conflict.change);
    } catch (error) {
      if (transient(error)) throw error;
      const again = conflictOf(conflict.change, error);
      update({ ...state, conflicts: [...others(), again] });
      return;
    }
  }
  update({ ...state, conflicts: others() });
  await sendQueued(client, queryClient);
}

async function keepBoth(client: DriveClient, change: Change): Promise<void> {
  for (let n = 1; ; n += 1) {
    try {
      await sendChange(client, change, numbered(change.name, n));
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== '23505' || n >= 50) throw error;
    }
  }
}
