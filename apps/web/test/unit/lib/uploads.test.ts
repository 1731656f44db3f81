import { describe, expect, it } from 'vitest';
import { CHUNK_SIZE, partChunkSize } from '../../../src/lib/uploads';

const MiB = 1024 * 1024;

describe('the chunk of each part of a parallel upload', () => {
  it('is 12 MiB once each of three parts gets at least four, else 6 MiB', () => {
    expect(CHUNK_SIZE).toBe(6 * MiB);
    expect(partChunkSize(24 * MiB)).toBe(6 * MiB);
    expect(partChunkSize(144 * MiB - 1)).toBe(6 * MiB);
    expect(partChunkSize(144 * MiB)).toBe(12 * MiB);
    expect(partChunkSize(256 * MiB)).toBe(12 * MiB);
  });
});
