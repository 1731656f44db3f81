import { describe, expect, it } from 'vitest';
import { fromDrop, fromEntries, fromFolderInput, fromHandles } from '../../../src/lib/dropped';

const file = (name: string, relative = '') => {
  const f = new File(['x'], name);
  if (relative) Object.defineProperty(f, 'webkitRelativePath', { value: relative });
  return f;
};

// Stand-ins for the browser's handles and entries (the walk is pure logic over them).
const fileHandle = (name: string) => ({
  kind: 'file' as const,
  name,
  getFile: async () => file(name),
});
const dirHandle = (name: string, children: unknown[]) => ({
  kind: 'directory' as const,
  name,
  async *values() {
    yield* children as never[];
  },
});
const fileEntry = (name: string) => ({
  isFile: true,
  isDirectory: false,
  name,
  file: (ok: (f: File) => void) => ok(file(name)),
});
/** A directory entry whose reader gives its children two at a time, then an empty batch. */
const dirEntry = (name: string, children: unknown[]) => ({
  isFile: false,
  isDirectory: true,
  name,
  createReader() {
    let at = 0;
    return {
      readEntries(ok: (batch: never[]) => void) {
        const batch = children.slice(at, at + 2);
        at += batch.length;
        ok(batch as never[]);
      },
    };
  },
});

const summary = (p: { files: { file: File; path: string[] }[]; folders: string[][] }) => ({
  files: p.files.map((f) => [...f.path, f.file.name].join('/')),
  folders: p.folders.map((f) => f.join('/')),
});

describe('what a drop or a folder pick carries', () => {
  it('walks File System Access handles, keeping each file’s handle and empty folders', async () => {
    const tree = dirHandle('Trip', [
      fileHandle('plan.txt'),
      dirHandle('Day 1', [fileHandle('notes.md'), dirHandle('Photos', [fileHandle('a.jpg')])]),
      dirHandle('Empty', []),
    ]);
    const picked = await fromHandles([tree, fileHandle('loose.txt')]);
    expect(summary(picked)).toEqual({
      files: ['Trip/plan.txt', 'Trip/Day 1/notes.md', 'Trip/Day 1/Photos/a.jpg', 'loose.txt'],
      folders: ['Trip', 'Trip/Day 1', 'Trip/Day 1/Photos', 'Trip/Empty'],
    });
    expect(picked.files.every((f) => f.handle !== undefined)).toBe(true);
  });

  it('walks webkit entries, reading directories batch by batch until an empty one', async () => {
    const tree = dirEntry('Trip', [
      fileEntry('1.txt'),
      fileEntry('2.txt'),
      fileEntry('3.txt'),
      dirEntry('Empty', []),
    ]);
    const picked = await fromEntries([tree as never]);
    expect(summary(picked)).toEqual({
      files: ['Trip/1.txt', 'Trip/2.txt', 'Trip/3.txt'],
      folders: ['Trip', 'Trip/Empty'],
    });
    expect(picked.files.every((f) => f.handle === undefined)).toBe(true);
  });

  it('takes a folder input’s relative paths, each folder once', () => {
    const picked = fromFolderInput([
      file('plan.txt', 'Trip/plan.txt'),
      file('notes.md', 'Trip/Day 1/notes.md'),
      file('a.jpg', 'Trip/Day 1/Photos/a.jpg'),
    ]);
    expect(summary(picked)).toEqual({
      files: ['Trip/plan.txt', 'Trip/Day 1/notes.md', 'Trip/Day 1/Photos/a.jpg'],
      folders: ['Trip', 'Trip/Day 1', 'Trip/Day 1/Photos'],
    });
  });
});

/** A drop's item as the browser gives it: any of a handle (or what it resolves to), an entry, a file. */
const item = (
  name: string,
  offers: { handle?: () => unknown; entry?: unknown; file?: boolean } = { file: true },
) => ({
  kind: 'file',
  ...(offers.handle ? { getAsFileSystemHandle: offers.handle } : {}),
  webkitGetAsEntry: () => offers.entry ?? null,
  getAsFile: () => (offers.file ? file(name) : null),
});
const dropOf = (...items: unknown[]) => fromDrop({ items, files: [] } as unknown as DataTransfer);

describe('what a drop carries, item by item', () => {
  it('takes the file of items whose handle resolves to null or undefined', async () => {
    const picked = await fromDrop({
      items: [
        item('a.txt', { handle: async () => null, file: true }),
        item('b.txt', { handle: async () => undefined, file: true }),
        item('c.txt', { handle: () => undefined, file: true }),
      ],
      files: [],
    } as unknown as DataTransfer);
    expect(summary(picked)).toEqual({ files: ['a.txt', 'b.txt', 'c.txt'], folders: [] });
    expect(picked.files.every((f) => f.handle === undefined)).toBe(true);
  });

  it('mixes items with handles, entries and bare files, in the order dropped', async () => {
    const picked = await dropOf(
      item('Trip', { handle: async () => dirHandle('Trip', [fileHandle('plan.txt')]) }),
      item('loose.txt', { handle: async () => null, file: true }),
      item('Photos', { entry: dirEntry('Photos', [fileEntry('a.jpg')]) }),
      item('notes.md', { handle: async () => fileHandle('notes.md'), file: true }),
      item('bare.csv', { file: true }),
      { kind: 'string', getAsFile: () => null },
    );
    expect(summary(picked)).toEqual({
      files: ['Trip/plan.txt', 'loose.txt', 'Photos/a.jpg', 'notes.md', 'bare.csv'],
      folders: ['Trip', 'Photos'],
    });
    expect(picked.files.map((f) => f.handle !== undefined)).toEqual([
      true,
      false,
      false,
      true,
      false,
    ]);
  });

  it('falls back to the file when the handle throws, rejects, is not a handle or cannot be read', async () => {
    const picked = await dropOf(
      item('throws.txt', {
        handle: () => {
          throw new Error('not allowed');
        },
        file: true,
      }),
      item('rejects.txt', { handle: () => Promise.reject(new Error('gone')), file: true }),
      item('odd.txt', { handle: async () => ({ name: 'odd.txt' }), file: true }),
      item('unreadable.txt', {
        handle: async () => ({
          kind: 'file',
          name: 'unreadable.txt',
          getFile: () => Promise.reject(new Error('NotReadableError')),
        }),
        file: true,
      }),
    );
    expect(summary(picked)).toEqual({
      files: ['throws.txt', 'rejects.txt', 'odd.txt', 'unreadable.txt'],
      folders: [],
    });
  });

  it('prefers the webkit entry to the file when there is no handle', async () => {
    const picked = await dropOf(item('x.txt', { entry: fileEntry('x.txt'), file: true }));
    expect(summary(picked)).toEqual({ files: ['x.txt'], folders: [] });
  });

  it('takes the files of a drop without items', async () => {
    const picked = await fromDrop({ files: [file('only.txt')] } as unknown as DataTransfer);
    expect(summary(picked)).toEqual({ files: ['only.txt'], folders: [] });
  });

  it('uploads no folder as a file when its walk fails, and says why', async () => {
    const broken = {
      ...dirEntry('Broken', []),
      createReader: () => ({
        readEntries: (_ok: unknown, fail: (e: unknown) => void) =>
          fail(new Error('unreadable folder')),
      }),
    };
    await expect(dropOf(item('Broken', { entry: broken, file: true }))).rejects.toThrow(
      'unreadable folder',
    );
  });
});
