import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { crc32c, runningChecksum, wellFormedChecksum } from '../../../src/storage/s3/checksum';

const check = Buffer.from('123456789');
const b64 = (n: number) => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(n);
  return out.toString('base64');
};

describe('S3 checksums', () => {
  it('CRC-32C has the standard check value and continues across pieces', () => {
    expect(crc32c(check)).toBe(0xe3069283);
    expect(crc32c(Buffer.alloc(0))).toBe(0);
    // RFC 3720 B.4: 32 bytes of zeros, and of 0xff.
    expect(crc32c(Buffer.alloc(32))).toBe(0x8a9136aa);
    expect(crc32c(Buffer.alloc(32, 0xff))).toBe(0x62a8ab43);
    expect(crc32c(check.subarray(4), crc32c(check.subarray(0, 4)))).toBe(0xe3069283);
  });

  it('answers base64 of the big-endian digest, fed in pieces', () => {
    const digest = (algorithm: Parameters<typeof runningChecksum>[0]) => {
      const sum = runningChecksum(algorithm);
      sum.update(check.subarray(0, 3));
      sum.update(check.subarray(3));
      return sum.digest();
    };
    expect(digest('crc32')).toBe(b64(0xcbf43926));
    expect(digest('crc32c')).toBe(b64(0xe3069283));
    expect(digest('sha1')).toBe(createHash('sha1').update(check).digest('base64'));
    expect(digest('sha256')).toBe(createHash('sha256').update(check).digest('base64'));
  });

  it('tells well-formed values from others', () => {
    expect(wellFormedChecksum('crc32', b64(1))).toBe(true);
    expect(wellFormedChecksum('crc32', 'AAAA')).toBe(false);
    expect(wellFormedChecksum('crc32c', 'not base64!')).toBe(false);
    expect(wellFormedChecksum('sha256', createHash('sha256').digest('base64'))).toBe(true);
    expect(wellFormedChecksum('sha1', createHash('sha256').digest('base64'))).toBe(false);
  });
});
