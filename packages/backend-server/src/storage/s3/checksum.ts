/**
 * The additional checksums S3 clients send with a payload (`x-amz-checksum-crc32`,
 * `-crc32c`, `-sha1`, `-sha256`, as a header or an aws-chunked trailer): each computed
 * while the bytes stream, as base64 of its big-endian digest, as S3 writes them.
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const CHECKSUM_ALGORITHMS = ['crc32', 'crc32c', 'sha1', 'sha256'] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];

/** Digest lengths in bytes: a sent value of another length is malformed. */
export const CHECKSUM_BYTES: Record<ChecksumAlgorithm, number> = {
  crc32: 4,
  crc32c: 4,
  sha1: 20,
  sha256: 32,
};

/** The reflected CRC-32C (Castagnoli) table. */
const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/**
 * CRC-32C of `data`, continuing from `previous` (the CRC of the bytes before).
 *
 * @example
 * crc32c(Buffer.from('123456789')) // 0xe3069283
 */
export function crc32c(data: Uint8Array, previous = 0): number {
  let c = ~previous >>> 0;
  for (let i = 0; i < data.length; i++) {
    c = (CRC32C_TABLE[(c ^ (data[i] as number)) & 0xff] as number) ^ (c >>> 8);
  }
  return ~c >>> 0;
}

/** A running checksum: feed the bytes, then read the base64 digest once. */
export interface RunningChecksum {
  update(data: Uint8Array): void;
  digest(): string;
}

function runningCrc(step: (data: Uint8Array, previous: number) => number): RunningChecksum {
  let value = 0;
  return {
    update: (data) => {
      value = step(data, value);
    },
    digest: () => {
      const out = Buffer.alloc(4);
      out.writeUInt32BE(value >>> 0);
      return out.toString('base64');
    },
  };
}

/** A running checksum of an algorithm. */
export function runningChecksum(algorithm: ChecksumAlgorithm): RunningChecksum {
  if (algorithm === 'crc32') return runningCrc((data, previous) => crc32(data, previous));
  if (algorithm === 'crc32c') return runningCrc(crc32c);
  const hash = createHash(algorithm);
  return {
    update: (data) => hash.update(data),
    digest: () => hash.digest('base64'),
  };
}

/** Whether `value` is base64 of a digest of `algorithm` (right length). */
export function wellFormedChecksum(algorithm: ChecksumAlgorithm, value: string): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return false;
  return Buffer.from(value, 'base64').length === CHECKSUM_BYTES[algorithm];
}
