import { describe, expect, it } from 'vitest';
import { fromEntries, fromFolderInput, fromHandles } from '../../../src/lib/dropped';

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
