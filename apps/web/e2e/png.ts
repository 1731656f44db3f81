import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

/**
 * A PNG of `width`×`height` (8-bit RGB): the left half one colour, the right half another —
 * an image whose size and content a test can check after the backend resizes it.
 */
export function makePng(
  width: number,
  height: number,
  left: [number, number, number] = [220, 30, 30],
  right: [number, number, number] = [30, 60, 220],
): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const line = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x += 1) line.set(x < width / 2 ? left : right, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => line));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
