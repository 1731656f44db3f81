import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { StreamedBody } from '../../../src/http/index';
import { openSource } from '../../../src/tus/source';

const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);

async function* pieces(data: Uint8Array, size: number) {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

describe('openSource', () => {
  it('serves Blob ranges and flags the last one', async () => {
    const data = bytes(1000);
    const source = await openSource(new Blob([data], { type: 'text/plain' }));
    expect(source.size).toBe(1000);
    expect(source.type).toBe('text/plain');
    const first = await source.read(0, 600);
    expect(first.last).toBe(false);
    expect(first.data).toEqual(data.subarray(0, 600));
    const second = await source.read(600, 1200);
    expect(second).toEqual({ data: data.subarray(600), last: true });
  });

  it('serves typed-array views of their own bytes only', async () => {
    const backing = bytes(100);
    const source = await openSource(new Uint8Array(backing.buffer, 10, 20));
    expect(source.size).toBe(20);
    expect((await source.read(0, 50)).data).toEqual(backing.subarray(10, 30));
  });

  it('reads a file path lazily with name and modification time', async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'sdk-src-'));
    const file = join(dir, 'f.bin');
    const data = bytes(5000);
    await writeFile(file, data);
    const source = await openSource(file);
    expect(source).toMatchObject({ name: file, size: 5000, seekable: true });
    expect(source.lastModified).toBeGreaterThan(0);
    const chunk = await source.read(4000, 9000);
    expect(chunk.last).toBe(true);
    // The range stays on disk until it is sent: read whole, or written piece by piece.
    const range = chunk.data as StreamedBody;
    expect(range.length).toBe(1000);
    expect(await range.bytes()).toEqual(data.subarray(4000));
    const written: Uint8Array[] = [];
    await range.writeTo(async (piece) => void written.push(piece.slice()));
    expect(new Uint8Array(Buffer.concat(written))).toEqual(data.subarray(4000));
    expect((await source.read(0, 4000)).last).toBe(false);
    source.close();
  });

  it('writes file ranges larger than its buffers byte-exact, one send at a time', async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'sdk-src-'));
    const file = join(dir, 'big.bin');
    const data = bytes(3.5 * 1024 * 1024 + 3);
    await writeFile(file, data);
    const source = await openSource(file);
    const collect = async (start: number, end: number) => {
      const range = (await source.read(start, end)).data as StreamedBody;
      const written: Buffer[] = [];
      let changed = 0;
      // A slow socket: the buffer of a piece must not change until its write resolves.
      await range.writeTo(async (piece) => {
        const copy = Buffer.from(piece);
        await new Promise((r) => setTimeout(r, 1));
        if (!copy.equals(piece)) changed++;
        written.push(copy);
      });
      return { changed, pieces: written.length, bytes: Buffer.concat(written) };
    };
    // Two sends at once (a retry while a cut-off send still reads) share the buffers in turn.
    const [a, b] = await Promise.all([collect(0, data.length), collect(1000, 2_500_000)]);
    expect(a).toMatchObject({ changed: 0, pieces: 4 });
    expect(b).toMatchObject({ changed: 0, pieces: 3 });
    expect(a.bytes.equals(data)).toBe(true);
    expect(b.bytes.equals(data.subarray(1000, 2_500_000))).toBe(true);
    source.close();
  });

  it('re-chunks a stream of odd pieces and knows the end at an exact boundary', async () => {
    const data = bytes(1000);
    const source = await openSource(pieces(data, 7));
    expect(source.size).toBeUndefined();
    const a = await source.read(0, 500);
    expect(a.data).toEqual(data.subarray(0, 500));
    expect(a.last).toBe(false);
    const b = await source.read(500, 1000);
    expect(b.data).toEqual(data.subarray(500));
    expect(b.last).toBe(true);
  });

  it('keeps unreleased stream bytes for a retry and drops released ones', async () => {
    const data = bytes(1000);
    const source = await openSource(
      new ReadableStream({
        start(c) {
          for (let i = 0; i < 1000; i += 64) c.enqueue(data.slice(i, i + 64));
          c.close();
        },
      }),
    );
    await source.read(0, 400);
    await source.read(400, 800); // read ahead
    // the server only got 300 bytes: the retry reads from there
    source.release(300);
    expect((await source.read(300, 700)).data).toEqual(data.subarray(300, 700));
    source.release(700);
    await expect(source.read(100, 200)).rejects.toThrow(RangeError);
    const end = await source.read(700, 1700);
    expect(end).toEqual({ data: data.subarray(700), last: true });
  });

  it('reuses two buffers for stream chunks, never one holding unacknowledged bytes', async () => {
    const data = bytes(1000);
    const source = await openSource(pieces(data, 30));
    const read = async (start: number, end: number) =>
      (await source.read(start, end)).data as Uint8Array;
    const a = await read(0, 300);
    expect(a).toEqual(data.subarray(0, 300));
    const b = await read(300, 600); // read ahead while `a` is sent
    expect(b.buffer).not.toBe(a.buffer);
    source.release(300); // the server has `a`
    const c = await read(600, 900);
    expect(c.buffer).toBe(a.buffer);
    expect([b, c]).toEqual([data.subarray(300, 600), data.subarray(600, 900)]);
    // A retry with nothing more acknowledged: both buffers hold kept bytes, so neither is
    // overwritten; the kept bytes read back unchanged, even from the start.
    expect(await read(400, 700)).toEqual(data.subarray(400, 700));
    expect(await read(300, 1000)).toEqual(data.subarray(300));
    const fresh = await openSource(pieces(data, 30));
    await fresh.read(0, 300);
    await fresh.read(300, 600);
    expect((await fresh.read(100, 400)).data).toEqual(data.subarray(100, 400));
    expect((await fresh.read(0, 1000)).data).toEqual(data);
  });

  it('reads Node Readables and an empty stream', async () => {
    const data = bytes(3000);
    const source = await openSource(Readable.from(Buffer.from(data)), { size: 3000 });
    expect(source.size).toBe(3000);
    expect((await source.read(0, 5000)).data).toEqual(data);
    const empty = await openSource(pieces(new Uint8Array(0), 1));
    expect(await empty.read(0, 10)).toEqual({ data: new Uint8Array(0), last: true });
  });
});
