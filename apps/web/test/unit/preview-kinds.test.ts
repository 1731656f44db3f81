import { describe, expect, it } from 'vitest';
import { kindOf } from '../../src/components/media';
import { languageOf } from '../../src/components/previews/languages';
import { madeKindOf } from '../../src/lib/made-thumbnails';

describe('the preview a file gets', () => {
  it('goes by MIME type, and by extension where the type says little', () => {
    expect(kindOf({ name: 'a.png', mime_type: 'image/png' })).toBe('image');
    expect(kindOf({ name: 'a.svg', mime_type: 'image/svg+xml' })).toBe('svg');
    expect(kindOf({ name: 'notes.md', mime_type: 'text/markdown' })).toBe('markdown');
    expect(kindOf({ name: 'notes.md', mime_type: '' })).toBe('markdown');
    expect(kindOf({ name: 'notes.md', mime_type: 'application/octet-stream' })).toBe('markdown');
    expect(kindOf({ name: 'people.csv', mime_type: 'text/csv' })).toBe('csv');
    expect(kindOf({ name: 'people.tsv', mime_type: 'text/plain' })).toBe('csv');
    expect(kindOf({ name: 'app.py', mime_type: 'text/x-python' })).toBe('code');
    expect(kindOf({ name: 'data', mime_type: 'application/json' })).toBe('code');
    expect(kindOf({ name: 'a.pdf', mime_type: 'application/pdf' })).toBe('pdf');
    expect(kindOf({ name: 'a.webm', mime_type: 'video/webm' })).toBe('video');
    expect(kindOf({ name: 'a.mp3', mime_type: 'audio/mpeg' })).toBe('audio');
    expect(kindOf({ name: 'read me', mime_type: 'text/plain' })).toBe('text');
    expect(kindOf({ name: 'a.zip', mime_type: 'application/zip' })).toBe('other');
  });

  it('reads a TypeScript file as code, not as the MPEG stream its extension is also used for', () => {
    expect(kindOf({ name: 'main.ts', mime_type: 'video/mp2t' })).toBe('code');
    expect(languageOf('main.ts', 'video/mp2t')).toBe('typescript');
    expect(kindOf({ name: 'clip.m2ts', mime_type: 'video/mp2t' })).toBe('video');
  });

  it('never takes a picture, video or PDF for code by its name alone', () => {
    expect(kindOf({ name: 'photo.js', mime_type: 'image/png' })).toBe('image');
    expect(kindOf({ name: 'doc.py', mime_type: 'application/pdf' })).toBe('pdf');
  });
});

describe('the thumbnails made in the browser', () => {
  const file = (mime_type: string, size = 1000, name = 'f') =>
    ({ name, mime_type, size, status: 'ready' }) as const;

  it('are made for PDFs, playable videos and SVG pictures', () => {
    expect(madeKindOf(file('application/pdf'))).toBe('pdf');
    expect(madeKindOf(file('video/mp4'))).toBe('video');
    expect(madeKindOf(file('image/svg+xml'))).toBe('svg');
    expect(madeKindOf(file('image/png'))).toBeNull();
    expect(madeKindOf(file('video/x-msvideo'))).toBeNull();
    expect(madeKindOf(file('video/mp2t', 1000, 'main.ts'))).toBeNull();
  });

  it('are not made for files too large to read whole, empty or unfinished', () => {
    expect(madeKindOf(file('application/pdf', 21 * 1024 * 1024))).toBeNull();
    expect(madeKindOf(file('image/svg+xml', 2 * 1024 * 1024))).toBeNull();
    expect(madeKindOf(file('video/webm', 5 * 1024 ** 3))).toBe('video');
    expect(madeKindOf(file('application/pdf', 0))).toBeNull();
    expect(madeKindOf({ ...file('application/pdf'), status: 'uploading' })).toBeNull();
  });
});
