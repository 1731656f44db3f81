import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { type CopyReply, startCopyThread } from '../../../src/data/copy';
import { header, padding } from '../../../src/data/tar';

const root = mkdtempSync(join(tmpdir(), 'copy-thread-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Sizes around the block (512) and chunk (2 MiB) boundaries, and an empty file.
const SIZES = [0, 1, 511, 512, 513, (2 << 20) - 1, (2 << 20) + 7, (4 << 20) + 1, 9 << 20];
const samples = SIZES.map((size, i) => {
  const path = join(root, `source-${i}`);
  const bytes = randomBytes(size);
  writeFileSync(path, bytes);
  return { path, bytes, header: header(`objects/${i}`, size, new Date(0)) };
});

/** What a tar writer puts after `prefix` bytes: header, bytes, padding, entry after entry. */
const expectedArchive = (prefix: Buffer) =>
  Buffer.concat([
    prefix,
    ...samples.flatMap((s) => [s.header, s.bytes, Buffer.alloc(padding(s.bytes.length))]),
  ]);

async function run(request: Parameters<ReturnType<typeof startCopyThread>['run']>[0]) {
  const thread = startCopyThread();
  try {
    return await thread.run(request);
  } finally {
    await thread.stop();
  }
}

const ok = (reply: CopyReply) => {
  if (!reply.ok) throw new Error(`copy failed: ${reply.reason} ${reply.message}`);
  return reply;
};

describe.each([true, false])('the copy thread (direct writes: %s)', (direct) => {
  const name = direct ? 'direct' : 'cached';

  it('packs files after a prefix as tar entries and unpacks them byte for byte', async () => {
    const archive = join(root, `${name}.tar`);
    const prefix = randomBytes(1024);
    writeFileSync(archive, prefix);
    const packed = ok(
      await run({
        op: 'pack',
        archive,
        at: prefix.length,
        direct,
        entries: samples.map((s) => ({ source: s.path, size: s.bytes.length, header: s.header })),
      }),
    );
    const expected = expectedArchive(prefix);
    expect(packed.end).toBe(expected.length);
    expect(readFileSync(archive).equals(expected)).toBe(true);
    expect(packed.sums).toEqual(samples.map((s) => crc32(s.bytes)));

    let offset = prefix.length;
    const entries = samples.map((s, i) => {
      offset += 512;
      const entry = {
        offset,
        size: s.bytes.length,
        target: join(root, `${name}-out`, String(i % 3), `object-${i}`),
        sum: crc32(s.bytes),
      };
      offset += s.bytes.length + padding(s.bytes.length);
      return entry;
    });
    const unpacked = ok(await run({ op: 'unpack', archive, direct, entries }));
    expect(unpacked.sums).toEqual(packed.sums);
    for (const [i, s] of samples.entries()) {
      const target = entries[i]?.target as string;
      expect(statSync(target).size).toBe(s.bytes.length);
      expect(readFileSync(target).equals(s.bytes)).toBe(true);
    }
  });

  it('writes at an offset that is not block-aligned (direct writes are refused there)', async () => {
    const archive = join(root, `${name}-odd.tar`);
    const prefix = randomBytes(100);
    writeFileSync(archive, prefix);
    const packed = ok(
      await run({
        op: 'pack',
        archive,
        at: prefix.length,
        direct,
        entries: samples.map((s) => ({ source: s.path, size: s.bytes.length, header: s.header })),
      }),
    );
    expect(readFileSync(archive).equals(expectedArchive(prefix))).toBe(true);
    expect(packed.end).toBe(expectedArchive(prefix).length);
  });

  it('unpacks entries at offsets that are not block-aligned (direct reads are refused there)', async () => {
    const archive = join(root, `${name}-odd-source`);
    const bytes = randomBytes((3 << 20) + 300);
    writeFileSync(archive, bytes);
    const part = (offset: number, size: number, i: number) => ({
      offset,
      size,
      target: join(root, `${name}-odd-out`, `part-${i}`),
      sum: crc32(bytes.subarray(offset, offset + size)),
    });
    // Aligned first (read directly, the second one's last block past the end of the file),
    // then unaligned: the rest goes through the cache.
    const entries = [part(512, 1000, 0), part(3 << 20, 300, 1), part(100, (2 << 20) + 5, 2)];
    const reply = ok(await run({ op: 'unpack', archive, direct, entries }));
    expect(reply.sums).toEqual(entries.map((e) => e.sum));
    for (const e of entries) {
      expect(readFileSync(e.target).equals(bytes.subarray(e.offset, e.offset + e.size))).toBe(true);
    }
  });

  it('stops at the first entry whose bytes do not match their checksum', async () => {
    const archive = join(root, `${name}-flat`);
    const bytes = randomBytes(3 << 20);
    writeFileSync(archive, bytes);
    const part = (i: number, sum: number) => ({
      offset: i << 20,
      size: 1 << 20,
      target: join(root, `${name}-bad`, `part-${i}`),
      sum,
    });
    const chunk = (i: number) => bytes.subarray(i << 20, (i + 1) << 20);
    const reply = await run({
      op: 'unpack',
      archive,
      direct,
      entries: [part(0, crc32(chunk(0))), part(1, crc32(chunk(1)) ^ 1), part(2, crc32(chunk(2)))],
    });
    expect(reply).toMatchObject({ ok: false, index: 1, reason: 'checksum' });
    expect(existsSync(part(2, 0).target)).toBe(false);
  });

  it('says which file could not be read or written', async () => {
    const missing = await run({
      op: 'pack',
      archive: join(root, `${name}.tar`),
      at: 512,
      direct,
      entries: [
        { source: samples[1]?.path as string, size: 1, header: samples[1]?.header as Buffer },
        { source: join(root, 'no-such-file'), size: 10, header: samples[1]?.header as Buffer },
      ],
    });
    expect(missing).toMatchObject({ ok: false, index: 1, reason: 'io' });
    expect(!missing.ok && missing.message).toMatch(/ENOENT/);
    // A file shorter than announced.
    const short = await run({
      op: 'pack',
      archive: join(root, `${name}.tar`),
      at: 512,
      direct,
      entries: [
        { source: samples[2]?.path as string, size: 4096, header: samples[2]?.header as Buffer },
      ],
    });
    expect(short).toMatchObject({ ok: false, index: 0, reason: 'io' });
    expect(!short.ok && short.message).toMatch(/ends 3585 bytes early/);
  });
});

describe('stopping the copy thread', () => {
  it('stops a running copy between two chunks and answers that it was cancelled', async () => {
    const archive = join(root, 'stop-source');
    writeFileSync(archive, randomBytes(8 << 20));
    const thread = startCopyThread();
    const reply = thread.run({
      op: 'unpack',
      archive,
      direct: true,
      entries: [{ offset: 0, size: 8 << 20, target: join(root, 'stop-out', 'x'), sum: 0 }],
    });
    // Asked before the thread has even started: it stops before its first chunk.
    await thread.stop();
    expect(await reply).toMatchObject({ ok: false, index: 0, reason: 'cancelled' });
    expect(statSync(join(root, 'stop-out', 'x')).size).toBe(0);
  });
});
