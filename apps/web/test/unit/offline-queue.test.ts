import { describe, expect, it } from 'vitest';
import {
  applyToListing,
  type Change,
  check,
  isDestination,
  movedRow,
  needs,
  numbered,
  withRow,
} from '../../src/offline/queue-logic';

const rename: Change = {
  id: 'c1',
  kind: 'rename',
  table: 'files',
  itemId: 'f1',
  before: 'a.txt',
  name: 'b.txt',
};
const move: Change = {
  id: 'c2',
  kind: 'move',
  table: 'folders',
  itemId: 'd1',
  name: 'Docs',
  from: null,
  to: 'd2',
  toName: 'Archive',
};
const folder: Change = { id: 'c3', kind: 'folder', folderId: 'n1', parentId: 'd2', name: 'New' };
const here = (name: string, parent: string | null = null) => ({ name, parent, trashed: false });

describe('check: whether a change made offline still fits', () => {
  it('sends a rename when the item still has the name it had', () => {
    expect(check(rename, here('a.txt'))).toBe('send');
  });
  it('needs nothing when the item already has the new name', () => {
    expect(check(rename, here('b.txt'))).toBe('done');
  });
  it('is a conflict, with the name now, when someone renamed it meanwhile', () => {
    expect(check(rename, here('c.txt'))).toEqual({
      change: rename,
      reason: 'changed',
      theirs: 'c.txt',
    });
  });
  it('is a conflict when the item is gone or in the Trash', () => {
    expect(check(rename, null)).toEqual({ change: rename, reason: 'gone' });
    expect(check(move, { ...here('Docs'), trashed: true })).toEqual({
      change: move,
      reason: 'gone',
    });
  });
  it('sends a move from where it was; done when already there; a conflict when moved elsewhere', () => {
    if (move.kind !== 'move') throw new Error('a move');
    expect(check(move, here('Docs', null))).toBe('send');
    expect(check(move, here('Docs', 'd2'))).toBe('done');
    expect(check(move, here('Docs', 'd9'))).toEqual({
      change: move,
      reason: 'changed',
      theirs: 'd9',
    });
  });
});

describe('needs and numbered', () => {
  it('lists what must exist first: the item, the destination, the parent', () => {
    expect(needs(rename)).toEqual(['f1']);
    expect(needs(move)).toEqual(['d1', 'd2']);
    expect(needs(folder)).toEqual(['d2']);
    expect(needs({ ...folder, parentId: null })).toEqual([]);
  });
  it('numbers a name before its extension', () => {
    expect(numbered('Notes', 1)).toBe('Notes (1)');
    expect(numbered('a.txt', 2)).toBe('a (2).txt');
    expect(numbered('.env', 1)).toBe('.env (1)');
  });
});

describe('applyToListing: the change as the lists kept offline show it', () => {
  const files = {
    rows: [
      { id: 'f1', name: 'a.txt', folder_id: null },
      { id: 'f2', name: 'z', folder_id: null },
    ],
    count: 2,
  };
  const folders = [
    { id: 'd1', name: 'Docs', parent_id: null },
    { id: 'd2', name: 'Archive', parent_id: null },
  ];

  it('renames the row, marked as waiting, and leaves other lists alone', () => {
    const next = applyToListing(
      ['files', null, 'name', true, 'range', 100, 0],
      files,
      rename,
      'me',
    ) as typeof files;
    expect(next.rows[0]).toMatchObject({ id: 'f1', name: 'b.txt', pending: true });
    expect(next.rows[1]).toEqual(files.rows[1]);
    expect(next.count).toBe(2);
    expect(applyToListing(['folders', null, 'name', true], folders, rename, 'me')).toBe(folders);
    expect(applyToListing(['views', 'recent'], files, rename, 'me')).toBe(files);
  });
  it('takes a moved row out of its folder list and updates the list of all folders', () => {
    const from = applyToListing(
      ['folders', null, 'name', true],
      folders,
      move,
      'me',
    ) as typeof folders;
    expect(from.map((f) => f.id)).toEqual(['d2']);
    const all = applyToListing(['folders-all'], folders, move, 'me') as typeof folders;
    expect(all[0]).toMatchObject({ id: 'd1', parent_id: 'd2', pending: true });
    expect(applyToListing(['folders', 'd2', 'name', true], folders, move, 'me')).toBe(folders);
  });
  it('adds a new folder to its parent’s list and to all folders, once', () => {
    const list = applyToListing(['folders', 'd2', 'name', true], [], folder, 'me') as Record<
      string,
      unknown
    >[];
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      id: 'n1',
      name: 'New',
      parent_id: 'd2',
      owner_id: 'me',
      pending: true,
    });
    expect(applyToListing(['folders', 'd2', 'name', true], list, folder, 'me')).toEqual(list);
    expect(applyToListing(['folders', null, 'name', true], folders, folder, 'me')).toBe(folders);
    expect(
      applyToListing(['files', 'd2', 'name', true, 'range', 100, 0], files, folder, 'me'),
    ).toBe(files);
    expect((applyToListing(['folders-all'], folders, folder, 'me') as unknown[]).length).toBe(3);
    // A parent's list never loaded (opened offline, nothing kept) shows it all the same.
    expect(applyToListing(['folders', 'd2', 'name', true], undefined, folder, 'me')).toHaveLength(
      1,
    );
    expect(
      applyToListing(['folders', 'd9', 'name', true], undefined, folder, 'me'),
    ).toBeUndefined();
    expect(applyToListing(['folders', 'd2', 'name', true], undefined, move, 'me')).toBeUndefined();
  });
  it('finds the destination list (a range list: its first page) and adds the moved row', () => {
    expect(isDestination(['folders', 'd2', 'name', true], 'folders', 'd2')).toBe(true);
    expect(isDestination(['folders', 'd1', 'name', true], 'folders', 'd2')).toBe(false);
    expect(isDestination(['files', 'd2', 'name', true, 'range', 100, 0], 'files', 'd2')).toBe(true);
    expect(isDestination(['files', 'd2', 'name', true, 'range', 100, 1], 'files', 'd2')).toBe(
      false,
    );
    if (move.kind !== 'move') throw new Error('a move');
    const row = movedRow(move, { id: 'd1', name: 'Docs', parent_id: null });
    expect(row).toMatchObject({ parent_id: 'd2', pending: true });
    const page = withRow({ rows: [], count: 0 }, row) as { rows: unknown[]; count: number };
    expect(page).toEqual({ rows: [row], count: 1 });
  });
});
