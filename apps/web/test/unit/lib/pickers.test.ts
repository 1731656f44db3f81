import { afterEach, describe, expect, it, vi } from 'vitest';
import { pickWithHandles } from '../../../src/lib/pickers';

const file = (name: string, text: string) => ({
  kind: 'file' as const,
  name,
  getFile: async () => new File([text], name),
});

describe('pickWithHandles', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('is null where the browser has no File System Access picker (the file input opens)', async () => {
    vi.stubGlobal('window', {});
    expect(await pickWithHandles('files')).toBeNull();
    expect(await pickWithHandles('folder')).toBeNull();
  });

  it('gives the picked files with their handles', async () => {
    const a = file('a.txt', 'a');
    vi.stubGlobal('window', { showOpenFilePicker: async () => [a] });
    const picked = await pickWithHandles('files');
    expect(picked?.folders).toEqual([]);
    expect(picked?.files.map((f) => [f.file.name, f.path, f.handle])).toEqual([['a.txt', [], a]]);
  });

  it('gives a picked folder with its tree, empty folders too', async () => {
    const notes = file('notes.md', '#');
    const dir = (name: string, children: unknown[]) => ({
      kind: 'directory' as const,
      name,
      async *values() {
        yield* children as never[];
      },
    });
    vi.stubGlobal('window', {
      showDirectoryPicker: async () => dir('Trip', [dir('Day 1', [notes]), dir('Empty', [])]),
    });
    const picked = await pickWithHandles('folder');
    expect(picked?.folders).toEqual([['Trip'], ['Trip', 'Day 1'], ['Trip', 'Empty']]);
    expect(picked?.files.map((f) => [f.file.name, f.path, f.handle])).toEqual([
      ['notes.md', ['Trip', 'Day 1'], notes],
    ]);
  });

  it('picks nothing when the picker is closed, and falls back to the input when it is refused', async () => {
    const refuse = (name: string) => async () => {
      throw new DOMException('no', name);
    };
    vi.stubGlobal('window', { showOpenFilePicker: refuse('AbortError') });
    expect(await pickWithHandles('files')).toEqual({ files: [], folders: [] });
    vi.stubGlobal('window', { showOpenFilePicker: refuse('SecurityError') });
    expect(await pickWithHandles('files')).toBeNull();
  });
});
