import { beforeAll, describe, expect, it } from 'vitest';
import {
  commandItem,
  entryCommands,
  ON_SELECTION,
  SHORTCUTS,
  selectionCommands,
} from '../../../src/components/entry-menu';
import { loadLocale } from '../../../src/i18n';
import type { FileRow, FolderRow } from '../../../src/lib/api';
import type { Entry } from '../../../src/lib/selection';

beforeAll(() => loadLocale('en'));

const file = (over: Partial<FileRow> = {}): Entry => ({
  kind: 'file',
  row: { id: 'f', name: 'a.txt', status: 'ready', starred_at: null, ...over } as FileRow,
});
const folder = (over: Partial<FolderRow> = {}): Entry => ({
  kind: 'folder',
  row: { id: 'd', name: 'Docs', starred_at: null, ...over } as FolderRow,
});

describe('entry menus', () => {
  it('offers what makes sense for a file, a folder and an unfinished upload', () => {
    expect(entryCommands(file(), 'drive')).toEqual([
      'preview',
      'download',
      'share',
      'activity',
      'versions',
      'rename',
      'move',
      'star',
      'trash',
    ]);
    expect(entryCommands(folder({ starred_at: '2026-01-01' }), 'drive')).toEqual([
      'open',
      'download',
      'share',
      'activity',
      'rename',
      'move',
      'unstar',
      'trash',
    ]);
    expect(entryCommands(file({ status: 'uploading' }), 'drive')).toEqual([
      'activity',
      'rename',
      'move',
      'star',
      'trash',
    ]);
    expect(entryCommands(file(), 'trash')).toEqual(['restore', 'delete-forever']);
  });

  it('shares ready items (files and folders); downloads and moves any selection', () => {
    expect(selectionCommands([file(), folder()], 'drive')).toEqual([
      'download',
      'share',
      'move',
      'star',
      'trash',
    ]);
    expect(selectionCommands([file()], 'drive')).toContain('share');
    expect(selectionCommands([file(), file({ status: 'uploading' })], 'drive')).not.toContain(
      'share',
    );
    expect(selectionCommands(null, 'drive')).toEqual(['download', 'move', 'star', 'trash']);
    expect(
      selectionCommands([file({ starred_at: 'x' }), folder({ starred_at: 'y' })], 'drive'),
    ).toContain('unstar');
  });

  it('offers a Viewer only to look, an Editor also to change, and the owner everything', () => {
    expect(entryCommands(folder(), 'drive', 'viewer')).toEqual([
      'open',
      'download',
      'share',
      'activity',
    ]);
    expect(entryCommands(file(), 'drive', null)).toEqual([
      'preview',
      'download',
      'share',
      'activity',
      'versions',
    ]);
    expect(entryCommands(file(), 'drive', 'editor')).toEqual([
      'preview',
      'download',
      'share',
      'activity',
      'versions',
      'rename',
      'move',
      'trash',
    ]);
    expect(entryCommands(file({ status: 'uploading' }), 'drive', 'viewer')).toEqual(['activity']);
    expect(entryCommands(file(), 'trash', 'editor')).toEqual(['restore']);
    // A selection: the weakest role among its items decides; only the owner shares several.
    expect(selectionCommands([file()], 'drive', 'viewer')).toEqual([
      'preview',
      'download',
      'share',
    ]);
    expect(selectionCommands([file(), folder()], 'drive', 'viewer')).toEqual(['download']);
    expect(selectionCommands([file(), folder()], 'drive', 'editor')).toEqual([
      'download',
      'move',
      'trash',
    ]);
    expect(selectionCommands([folder()], 'drive', 'editor')).toEqual([
      'download',
      'share',
      'rename',
      'move',
      'trash',
    ]);
    expect(selectionCommands(null, 'trash', 'viewer')).toEqual(['restore']);
  });

  it('words each command, marks the destructive ones, and gives Delete/Backspace and F2 to rows', () => {
    expect(commandItem('trash')).toEqual({
      command: 'trash',
      label: 'Move to Trash',
      danger: true,
    });
    expect(commandItem('delete-forever').danger).toBe(true);
    expect(commandItem('star')).toEqual({ command: 'star', label: 'Add star', danger: false });
    expect([...ON_SELECTION].sort()).toEqual(['download', 'move', 'trash']);
    expect(SHORTCUTS).toEqual({ Delete: 'trash', Backspace: 'trash', F2: 'rename' });
  });
});
