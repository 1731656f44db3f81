import { describe, expect, it } from 'vitest';
import { UploadError } from '../../../src/tus/errors';
import { fingerprint, memoryUrlStore } from '../../../src/tus/fingerprint';
import { encodeMetadata, tusFailure } from '../../../src/tus/protocol';
import { isRetryable } from '../../../src/tus/retry';

describe('tus protocol helpers', () => {
  it('encodes Upload-Metadata as key base64(utf8) pairs, skipping undefined', () => {
    expect(encodeMetadata({ bucketName: 'b', objectName: 'dossier/é.txt', x: undefined })).toBe(
      `bucketName ${btoa('b')},objectName ${Buffer.from('dossier/é.txt').toString('base64')}`,
    );
  });

  it('maps failures to clear errors with the server text', async () => {
    const e413 = await tusFailure(new Response('Maximum size exceeded', { status: 413 }), 'POST');
    expect(e413).toBeInstanceOf(UploadError);
    expect(e413).toMatchObject({ status: 413, code: 'http_413', details: 'Maximum size exceeded' });
    expect(e413.message).toBe('File too large: Maximum size exceeded');
    expect((await tusFailure(new Response('', { status: 410 }), 'PATCH')).code).toBe('upload_gone');
    expect((await tusFailure(new Response('x', { status: 409 }), 'PATCH')).code).toBe(
      'offset_mismatch',
    );
  });

  it('treats 404 and 409 on creation as final answers about the object', async () => {
    const exists = await tusFailure(
      new Response('The resource already exists', { status: 409 }),
      'POST',
    );
    expect(exists).toMatchObject({ status: 409, code: 'already_exists' });
    expect(exists.message).toBe('The object already exists: The resource already exists');
    expect(isRetryable(exists)).toBe(false);
    const noBucket = await tusFailure(new Response('Bucket not found', { status: 404 }), 'POST');
    expect(noBucket).toMatchObject({ status: 404, code: 'http_404' });
    expect(isRetryable(noBucket)).toBe(false);
    expect((await tusFailure(new Response('', { status: 404 }), 'HEAD')).code).toBe('upload_gone');
  });

  it('retries network failures, 5xx, 409 on an upload and 423 only', () => {
    const e = (status: number, code = `http_${status}`) => new UploadError('x', { status, code });
    expect([500, 503, 423].map((s) => isRetryable(e(s)))).toEqual([true, true, true]);
    expect(isRetryable(e(409, 'offset_mismatch'))).toBe(true);
    expect([400, 403, 404, 412, 413, 415].some((s) => isRetryable(e(s)))).toBe(false);
    expect(isRetryable(e(0, 'network_error'))).toBe(true);
    expect(isRetryable(e(0, 'aborted'))).toBe(false);
    expect(isRetryable(new Error('x'))).toBe(false);
  });

  it('fingerprints by file identity and destination', async () => {
    const info = { name: 'a.txt', type: 'text/plain', size: 3, lastModified: 5 };
    const a = fingerprint(info, 'http://h/up', 'b', 'p');
    expect(fingerprint({ ...info }, 'http://h/up', 'b', 'p')).toBe(a);
    expect(fingerprint({ ...info, size: 4 }, 'http://h/up', 'b', 'p')).not.toBe(a);
    expect(fingerprint(info, 'http://h/up', 'b', 'q')).not.toBe(a);
    const store = memoryUrlStore();
    await store.set(a, 'http://h/up/1');
    expect(await store.get(a)).toBe('http://h/up/1');
    await store.remove(a);
    expect(await store.get(a)).toBeUndefined();
  });
});
