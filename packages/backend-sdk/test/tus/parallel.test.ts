/**
 * `parallel: parallelParts(n)`: parts sent side by side as tus partial uploads and joined by a final
 * upload, against the real server; resumed after a reload, terminated, started over when a
 * part is gone, and one plain upload where the server does not offer concatenation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryUrlStore, parallelParts, type UploadProgress } from '../../src/tus/index';
import { partRanges } from '../../src/tus/parallel';
import {
  bytes,
  clientFor,
  newUser,
  ownerBucket,
  type RunningServer,
  sha256,
  startBackend,
  storedSha,
  type TestUser,
} from './support';

const MiB = 1024 * 1024;
let server: RunningServer;

beforeAll(async () => {
  server = await startBackend();
  await ownerBucket(server, 'parts');
}, 60_000);

afterAll(() => server?.stop());

/** An OPTIONS answer offering only `keep` of the tus extensions the server offers. */
const offering = (keep: (extension: string) => boolean) => (res: Response) => {
  const extensions = res.headers.get('tus-extension');
  if (!extensions) return res;
  const headers = new Headers(res.headers);
  headers.set('tus-extension', extensions.split(',').filter(keep).join(','));
  return new Response(null, { status: res.status, headers });
};

/** A fetch that records method, status and the Upload-Concat header of every request. */
const recording = (edit?: (res: Response) => Response) => {
  const log: string[] = [];
  const fetcher = (async (input: Request | string | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const concat = request.headers.get('upload-concat');
    const res = await fetch(request);
    const kind = concat ? ` ${concat.startsWith('final;') ? 'final' : concat}` : '';
    log.push(`${request.method} ${res.status}${kind}`);
    return edit ? edit(res) : res;
  }) as typeof fetch;
  return { log, fetcher };
};

const tusHead = (url: string, user: TestUser) =>
  fetch(url, {
    method: 'HEAD',
    headers: {
      'Tus-Resumable': '1.0.0',
      apikey: server.anonKey,
      Authorization: `Bearer ${user.token}`,
    },
  });

describe('parts on chunk boundaries', () => {
  it('cuts a file into at most the parts asked, each a whole number of chunks but the last', () => {
    expect(partRanges(10, 3, 3)).toEqual([
      { from: 0, to: 6 },
      { from: 6, to: 10 },
    ]);
    expect(partRanges(12, 3, 4)).toEqual([
      { from: 0, to: 3 },
      { from: 3, to: 6 },
      { from: 6, to: 9 },
      { from: 9, to: 12 },
    ]);
    expect(partRanges(5, 3, 8)).toEqual([
      { from: 0, to: 3 },
      { from: 3, to: 5 },
    ]);
  });
});

describe('parallel uploads against the real server', () => {
  it('sends three parts side by side into the final upload, byte-exact', async () => {
    const user = newUser(server);
    const { log, fetcher } = recording();
    const { storage } = clientFor(server, user, { fetch: fetcher });
    const data = bytes(5 * MiB + 123, 3);
    const progress: UploadProgress[] = [];
    const upload = storage.from('parts').uploadResumable(`${user.id}/three.bin`, new Blob([data]), {
      urlStore: false,
      chunkSize: MiB,
      parallel: parallelParts(3),
      onProgress: (p) => progress.push(p),
    });
    const { data: done, error } = await upload.result;
    expect(error).toBeNull();
    expect(done).toMatchObject({ path: `${user.id}/three.bin`, size: data.length });
    // The server takes the final upload before the parts' bytes (concatenation-unfinished):
    // empty parts, the final upload, then every chunk, which lands in its place.
    expect(log.slice(0, 5)).toEqual([
      'OPTIONS 204',
      'POST 201 partial',
      'POST 201 partial',
      'POST 201 partial',
      'POST 201 final',
    ]);
    expect(log.slice(5)).toEqual(Array(6).fill('PATCH 204'));
    expect(progress.at(-1)).toMatchObject({ bytes: data.length, total: data.length });
    expect(progress.map((p) => p.bytes)).toEqual(
      [...progress.map((p) => p.bytes)].sort((a, b) => a - b),
    );
    expect(await storedSha(storage, 'parts', `${user.id}/three.bin`)).toBe(sha256(data));
    const head = await tusHead(upload.url as string, user);
    expect(head.headers.get('upload-offset')).toBe(String(data.length));
    expect(head.headers.get('upload-concat')).toMatch(/^final;/);
  }, 60_000);

  it("sends each part in chunks of the engine's own size when it has one", async () => {
    const user = newUser(server);
    const { log, fetcher } = recording();
    const { storage } = clientFor(server, user, { fetch: fetcher });
    const data = bytes(6 * MiB + 5, 7);
    const upload = storage
      .from('parts')
      .uploadResumable(`${user.id}/big-chunks.bin`, new Blob([data]), {
        urlStore: false,
        chunkSize: MiB,
        parallel: parallelParts(3, { chunkSize: 2 * MiB }),
      });
    expect((await upload.result).error).toBeNull();
    // 4 chunks of 2 MiB (the last 5 bytes): two parts of two chunks, not 7 requests of 1 MiB.
    expect(log.filter((l) => l === 'POST 201 partial')).toHaveLength(2);
    expect(log.filter((l) => l.startsWith('PATCH'))).toHaveLength(4);
    expect(await storedSha(storage, 'parts', `${user.id}/big-chunks.bin`)).toBe(sha256(data));
  }, 60_000);

  it('joins the parts at the end where the server takes a final upload of finished parts only', async () => {
    const user = newUser(server);
    const { log, fetcher } = recording(offering((e) => e !== 'concatenation-unfinished'));
    const { storage } = clientFor(server, user, { fetch: fetcher });
    const data = bytes(5 * MiB + 123, 6);
    const upload = storage.from('parts').uploadResumable(`${user.id}/late.bin`, new Blob([data]), {
      urlStore: false,
      chunkSize: MiB,
      parallel: parallelParts(3),
    });
    expect((await upload.result).error).toBeNull();
    expect(log.filter((l) => l === 'POST 201 partial')).toHaveLength(3);
    expect(log.at(-1)).toBe('POST 201 final');
    // 6 chunks in 3 parts: each part's first chunk goes with its creation.
    expect(log.filter((l) => l.startsWith('PATCH'))).toHaveLength(3);
    expect(await storedSha(storage, 'parts', `${user.id}/late.bin`)).toBe(sha256(data));
  }, 60_000);

  it('resumes every part after a reload, from the store, and forgets it when done', async () => {
    const user = newUser(server);
    const store = memoryUrlStore();
    const data = bytes(6 * MiB + 9, 5);
    const blob = new Blob([data]);
    const path = `${user.id}/resume.bin`;
    const first = clientFor(server, user)
      .storage.from('parts')
      .uploadResumable(path, blob, {
        urlStore: store,
        chunkSize: MiB,
        parallel: parallelParts(3),
        // Once every part exists and has its first chunk.
        onChunkComplete: () => {
          if (first.bytes >= 3 * MiB) first.pause();
        },
      });
    await expect.poll(() => first.state).toBe('paused');
    expect(first.url).toMatch(/^final;\S+ \S+ \S+$/);
    const { log, fetcher } = recording();
    const resumed = clientFor(server, user, { fetch: fetcher })
      .storage.from('parts')
      .uploadResumable(path, blob, { urlStore: store, chunkSize: MiB, parallel: parallelParts(3) });
    const { error } = await resumed.result;
    expect(error).toBeNull();
    // A new client asks what the server offers, then each part's offset.
    expect(log.slice(0, 4)).toEqual(['OPTIONS 204', 'HEAD 200', 'HEAD 200', 'HEAD 200']);
    expect(log).not.toContain('POST 201 partial');
    // The final upload asked again for its parts is the same one; the parts go on from their
    // offsets: fewer chunks than the file's 7 are sent again.
    expect(log[4]).toBe('POST 201 final');
    expect(log.filter((l) => l.startsWith('PATCH')).length).toBeLessThan(7);
    expect(await storedSha(clientFor(server, user).storage, 'parts', path)).toBe(sha256(data));
    expect(resumed.url).not.toMatch(/^final;/);
    // Forgotten once done: nothing of this file is left in the store.
    const again = recording();
    const fresh = clientFor(server, user, { fetch: again.fetcher })
      .storage.from('parts')
      .uploadResumable(`${user.id}/resume-2.bin`, blob, {
        urlStore: store,
        chunkSize: MiB,
        parallel: parallelParts(3),
      });
    expect((await fresh.result).error).toBeNull();
    expect(again.log.filter((l) => l === 'POST 201 partial')).toHaveLength(3);
  }, 60_000);

  it('retries when one part fails: the aborts it causes in the other parts do not hide why', async () => {
    const user = newUser(server);
    const { storage } = clientFor(server, user);
    const data = bytes(6 * MiB + 3, 4);
    let last: string | undefined;
    let failed = 0;
    // The connection of the last part's first chunk drops; the other two parts are then
    // stopped mid-request and fail as aborted, ahead of it in part order.
    const fetcher = (async (input: Request | string | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      const concat = request.headers.get('upload-concat');
      if (concat?.startsWith('final;')) last = concat.split(' ').at(-1);
      if (request.method === 'PATCH' && request.url === last && failed === 0) {
        failed += 1;
        throw new TypeError('fetch failed');
      }
      return fetch(request);
    }) as typeof fetch;
    const upload = clientFor(server, user, { fetch: fetcher })
      .storage.from('parts')
      .uploadResumable(`${user.id}/dropped.bin`, new Blob([data]), {
        urlStore: false,
        chunkSize: MiB,
        parallel: parallelParts(3),
      });
    expect((await upload.result).error).toBeNull();
    expect(failed).toBe(1);
    expect(await storedSha(storage, 'parts', `${user.id}/dropped.bin`)).toBe(sha256(data));
  }, 60_000);

  it('terminates every part on abort, and starts over once when a stored part is gone', async () => {
    const user = newUser(server);
    const { storage } = clientFor(server, user);
    const data = bytes(4 * MiB, 8);
    const store = memoryUrlStore();
    const path = `${user.id}/gone.bin`;
    let aborted: Promise<void> | undefined;
    const first = storage.from('parts').uploadResumable(path, new Blob([data]), {
      urlStore: false,
      chunkSize: MiB,
      parallel: parallelParts(2),
      onChunkComplete: () => {
        if (first.url) aborted ??= first.abort({ terminate: true });
      },
    });
    expect((await first.result).error?.code).toBe('aborted');
    await aborted;
    const parts = (first.url as string).slice('final;'.length).split(' ');
    expect(parts).toHaveLength(2);
    for (const part of parts) expect([404, 410]).toContain((await tusHead(part, user)).status);

    // A stored value whose parts the server no longer has: the upload starts over, once.
    const paused = storage.from('parts').uploadResumable(path, new Blob([data]), {
      urlStore: store,
      chunkSize: MiB,
      parallel: parallelParts(2),
      onChunkComplete: () => {
        if (paused.url) paused.pause();
      },
    });
    await expect.poll(() => paused.state).toBe('paused');
    // The parts expire on the server (deleted here), while the store still names them.
    for (const part of (paused.url as string).slice('final;'.length).split(' ')) {
      const gone = await fetch(part, {
        method: 'DELETE',
        headers: {
          'Tus-Resumable': '1.0.0',
          apikey: server.anonKey,
          Authorization: `Bearer ${user.token}`,
        },
      });
      expect(gone.status).toBe(204);
    }
    const { log, fetcher } = recording();
    const retried = clientFor(server, user, { fetch: fetcher })
      .storage.from('parts')
      .uploadResumable(path, new Blob([data]), {
        urlStore: store,
        chunkSize: MiB,
        parallel: parallelParts(2),
      });
    expect((await retried.result).error).toBeNull();
    expect(log.slice(0, 2)).toEqual(['OPTIONS 204', 'HEAD 404']);
    expect(log.filter((l) => l === 'POST 201 partial')).toHaveLength(2);
    expect(await storedSha(storage, 'parts', path)).toBe(sha256(data));
  }, 60_000);

  it('sends one plain upload where the server does not offer concatenation', async () => {
    const user = newUser(server);
    // The server's OPTIONS answer without concatenation, as the hosted backend's is.
    const { log, fetcher } = recording(offering((e) => !e.startsWith('concatenation')));
    const { storage } = clientFor(server, user, { fetch: fetcher });
    const data = bytes(3 * MiB, 4);
    const upload = storage.from('parts').uploadResumable(`${user.id}/plain.bin`, new Blob([data]), {
      urlStore: false,
      chunkSize: MiB,
      parallel: parallelParts(3),
    });
    expect((await upload.result).error).toBeNull();
    expect(log).toEqual(['OPTIONS 204', 'POST 201', 'PATCH 204', 'PATCH 204']);
    expect(await storedSha(storage, 'parts', `${user.id}/plain.bin`)).toBe(sha256(data));
  }, 60_000);
});
