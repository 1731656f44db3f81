import { describe, expect, it } from 'vitest';
import { StorageError } from '../../../src/storage/errors';
import { multipartBoundary, parseMultipart } from '../../../src/storage/http/multipart';

async function* chunked(data: Buffer, size: number) {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

/** Parses `body` fed in chunks of `size`, collecting fields and file bytes. */
async function parse(body: Buffer, boundary: string, size: number) {
  const fields: Record<string, string> = {};
  const files: { name: string; filename: string; type: string | null; data: Buffer }[] = [];
  await parseMultipart(chunked(body, size), boundary, {
    onField: (name, value) => {
      fields[name] = value;
    },
    onFile: async (info) => {
      const file = {
        name: info.name,
        filename: info.filename,
        type: info.contentType,
        data: Buffer.alloc(0),
      };
      files.push(file);
      return {
        write: async (chunk) => {
          file.data = Buffer.concat([file.data, chunk]);
        },
      };
    },
  });
  return { fields, files };
}

describe('multipart parser', () => {
  it('reads what FormData encodes, whatever the chunking', async () => {
    const payload = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256));
    // Bytes that look like a delimiter but are not one.
    payload.write('\r\n--', 100, 'latin1');
    const form = new FormData();
    form.append('cacheControl', '3600');
    form.append('', new Blob([payload], { type: 'image/png' }), 'blob');
    form.append('metadata', JSON.stringify({ a: 'é' }));
    const request = new Request('http://x/', { method: 'POST', body: form });
    const boundary = multipartBoundary(request.headers.get('content-type'));
    expect(boundary).toBeTruthy();
    const body = Buffer.from(await request.arrayBuffer());
    for (const size of [1, 7, 64, 4096, body.length]) {
      const { fields, files } = await parse(body, boundary ?? '', size);
      expect(fields).toEqual({ cacheControl: '3600', metadata: '{"a":"é"}' });
      expect(files).toHaveLength(1);
      expect(files[0]).toMatchObject({ name: '', filename: 'blob', type: 'image/png' });
      expect(files[0]?.data.equals(payload)).toBe(true);
    }
  });

  it('rejects truncated and malformed bodies with InvalidRequest', async () => {
    const truncated = Buffer.from('--b\r\nContent-Disposition: form-data; name="x"\r\n\r\nvalue');
    await expect(parse(truncated, 'b', 5)).rejects.toBeInstanceOf(StorageError);
    const noDisposition = Buffer.from('--b\r\nContent-Type: text/plain\r\n\r\nv\r\n--b--\r\n');
    await expect(parse(noDisposition, 'b', 5)).rejects.toMatchObject({ code: 'InvalidRequest' });
  });

  it('finds the boundary of a multipart content type only', () => {
    expect(multipartBoundary('multipart/form-data; boundary=abc')).toBe('abc');
    expect(multipartBoundary('multipart/form-data; boundary="a b"')).toBe('a b');
    expect(multipartBoundary('application/octet-stream')).toBeNull();
    expect(multipartBoundary(null)).toBeNull();
  });
});
