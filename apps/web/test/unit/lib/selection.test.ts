import { beforeAll, expect, it, describe as suite } from 'vitest';
import { loadLocale } from '../../../src/i18n';
import type { FileRow, FolderRow } from '../../../src/lib/api';
import {
  describe,
  EMPTY,
  type Entry,
  idsOf,
  isSelected,
  resolve,
  selectAll,
  selectedCount,
  toggle,
} from '../../../src/lib/selection';

beforeAll(() => loadLocale('en'));

const file = (id: string, name = id): Entry => ({ kind: 'file', row: { id, name } as FileRow });
const folder = (id: string, name = id): Entry => ({
  kind: 'folder',
  row: { id, name } as FolderRow,
});

suite('selection', () => {
  it('picks and unpicks entries one by one', () => {
    let s = toggle(EMPTY, file('a'));
    s = toggle(s, folder('b'));
    expect(isSelected(s, 'file:a')).toBe(true);
    expect(isSelected(s, 'folder:b')).toBe(true);
    expect(isSelected(s, 'file:b')).toBe(false);
    expect(selectedCount(s, 100)).toBe(2);
    s = toggle(s, file('a'));
    expect(isSelected(s, 'file:a')).toBe(false);
    expect(selectedCount(s, 100)).toBe(1);
    // The empty selection is never changed in place.
    expect(EMPTY.picked.size).toBe(0);
  });

  it('selects everything, minus what is unticked afterwards', async () => {
    let s = selectAll();
    expect(isSelected(s, 'file:zzz')).toBe(true);
    expect(selectedCount(s, 10_000)).toBe(10_000);
    s = toggle(s, file('x'));
    expect(isSelected(s, 'file:x')).toBe(false);
    expect(selectedCount(s, 10_000)).toBe(9_999);
    const all = [file('x'), file('y'), folder('z')];
    expect((await resolve(s, async () => all)).map((e) => e.row.id)).toEqual(['y', 'z']);
    s = toggle(s, file('x'));
    expect(selectedCount(s, 3)).toBe(3);
  });

  it('resolves picked entries without asking for everything', async () => {
    const s = toggle(EMPTY, file('a'));
    const everything = async (): Promise<Entry[]> => {
      throw new Error('not needed');
    };
    expect(await resolve(s, everything)).toEqual([file('a')]);
  });

  it('splits ids by kind and names what is selected', () => {
    expect(idsOf([file('a'), folder('b'), file('c')])).toEqual({
      files: ['a', 'c'],
      folders: ['b'],
    });
    expect(describe([file('a', 'report.pdf')])).toBe('“report.pdf”');
    expect(describe([file('a'), folder('b')])).toBe('2 items');
  });
});
