import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fileUrlStore,
  memoryUrlStore,
  type UploadProgress,
  UploadQueue,
} from '../../src/tus/index';
import {
  bytes,
  clientFor,
  newUser,
  ownerBucket,
  type RunningServer,
  sha256,
  startBackend,
  storedSha,
} from './support';

const MiB = 1024 * 1024;
let server: RunningServer;
let dir: string;

beforeAll(async () => {
  server = await startBackend();
  await ownerBucket(server, 'tus');
  await ownerBucket(server, 'tus-small', 1000);
  dir = await mkdtemp(join(tmpdir(), 'sdk-tus-'));
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** A fetch that records method + status of every request. */
const recording = () => {
  const log: string[] = [];
  const fetcher = (async (input: Request | string | URL, init?: RequestInit) => {
    const method = input instanceof Request ? input.method : (init?.method ?? 'GET');
    const res = await fetch(input, init);
    log.push(`${method} ${res.status}`);
    return res;
  }) as typeof fetch;
  return { log, fetcher };
};

describe('resumable uploads against the real server', () => {
  for (const size of [0, 1, 6 * MiB - 1, 6 * MiB, 6 * MiB + 1]) {
    it(`uploads ${size} bytes byte-exact`, async () => {
      const user = newUser(server);
      const { storage } = clientFor(server, user);
      const data = bytes(size, size + 7);
      const progress: UploadProgress[] = [];
      const upload = storage
        .from('tus')
        .uploadResumable(`${user.id}/f-${size}.bin`, new Blob([data]), {
          urlStore: false,
          onProgress: (p) => progress.push(p),
        });
      const { data: done, error } = await upload.result;
      expect(error).toBeNull();
      expect(done).toMatchObject({ path: `${user.id}/f-${size}.bin`, size });
      expect(upload.state).toBe('done');
      expect(progress.at(-1)).toMatchObject({ bytes: size, total: size });
      expect(await storedSha(storage, 'tus', `${user.id}/f-${size}.bin`)).toBe(sha256(data));
      const { data: info } = await storage.from('tus').info(`${user.id}/f-${size}.bin`);
      expect(info?.size).toBe(size);
    }, 60_000);
  }

  it('uploads 100 MiB from a file path in 6 MiB chunks, byte-exact', async () => {
    const user = newUser(server);
    const { storage } = clientFor(server, user);
    const data = bytes(100 * MiB, 42);
    const file = join(dir, 'big.bin');
    await writeFile(file, data);
    const chunks: number[] = [];
    const upload = storage.from('tus').uploadResumable(`${user.id}/big.bin`, file, {
      urlStore: false,
      onChunkComplete: ({ size }) => chunks.push(size),
    });
    const { error } = await upload.result;
    expect(error).toBeNull();
    expect(chunks.length).toBe(17);
    expect(chunks.slice(0, 16).every((c) => c === 6 * MiB)).toBe(true);
    expect(await storedSha(storage, 'tus', `${user.id}/big.bin`)).toBe(sha256(data));
  }, 180_000);

  it('uploads a stream of unknown length (deferred length), byte-exact', async () => {
    const user = newUser(server);
    const { storage } = clientFor(server, user);
    const data = bytes(6 * MiB + 1, 3);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < data.length; i += 100_000) c.enqueue(data.slice(i, i + 100_000));
        c.close();
      },
    });
    const { error, data: done } = await storage
      .from('tus')
      .uploadResumable(`${user.id}/stream.bin`, stream, { urlStore: false }).result;
    expect(error).toBeNull();
    expect(done?.size).toBe(data.length);
    expect(await storedSha(storage, 'tus', `${user.id}/stream.bin`)).toBe(sha256(data));
  }, 60_000);

  it('pauses a file-path upload while a chunk is being sent and resumes byte-exact', async () => {
    const user = newUser(server);
    const { storage } = clientFor(server, user);
    const data = bytes(18 * MiB + 7, 13);
    const file = join(dir, 'pause-file.bin');
    await writeFile(file, data);
    let pauses = 0;
    const upload = storage.from('tus').uploadResumable(`${user.id}/pause-file.bin`, file, {
      urlStore: false,
      chunkSize: 3 * MiB,
      // A few ms into the next chunk's body: the send is cut off while it streams from disk
      // (the server keeps what arrived, e.g. 4 MiB, and the resumed send starts there). Both
      // pauses fall on early chunks of the seven, not on the last one.
      onChunkComplete: () => {
        if (pauses++ < 2) setTimeout(() => upload.pause(), 5);
      },
    });
    for (let i = 0; i < 2; i++) {
      await expect.poll(() => upload.state).toBe('paused');
      upload.resume();
    }
    const { error } = await upload.result;
    expect(error).toBeNull();
    expect(await storedSha(storage, 'tus', `${user.id}/pause-file.bin`)).toBe(sha256(data));
  }, 60_000);

  it('pauses and resumes from the server offset; abort with terminate deletes the upload', async () => {
    const user = newUser(server);
    const { log, fetcher } = recording();
    const { storage } = clientFor(server, user, { fetch: fetcher });
    const data = bytes(3 * MiB + 5, 9);
    let paused = false;
    const upload = storage.from('tus').uploadResumable(`${user.id}/pause.bin`, new Blob([data]), {
      urlStore: false,
      chunkSize: MiB,
      onChunkComplete: () => {
        if (!paused) {
          paused = true;
          upload.pause();
        }
      },
    });
    await expect.poll(() => upload.state).toBe('paused');
    await new Promise((r) => setTimeout(r, 200));
    const beforeResume = log.length;
    upload.resume();
    const { error } = await upload.result;
    expect(error).toBeNull();
    expect(log[beforeResume]).toBe('HEAD 200');
    expect(await storedSha(storage, 'tus', `${user.id}/pause.bin`)).toBe(sha256(data));

    let aborted: Promise<void> | undefined;
    const third = storage.from('tus').uploadResumable(`${user.id}/abort.bin`, new Blob([data]), {
      urlStore: false,
      chunkSize: MiB,
      onChunkComplete: () => {
        aborted ??= third.abort({ terminate: true });
      },
    });
    const outcome = await third.result;
    expect(outcome.error?.code).toBe('aborted');
    await aborted;
    const head = await fetch(third.url as string, {
      method: 'HEAD',
      headers: {
        'Tus-Resumable': '1.0.0',
        apikey: server.anonKey,
        Authorization: `Bearer ${user.token}`,
      },
    });
    expect([404, 410]).toContain(head.status);
    const { data: exists } = await storage.from('tus').exists(`${user.id}/abort.bin`);
    expect(exists).toBe(false);
  }, 60_000);

  it('resumes after a "reload": a new client with the same file store continues, then forgets', async () => {
    const user = newUser(server);
    const storePath = join(dir, 'urls.json');
    const data = bytes(3 * MiB, 11);
    const file = join(dir, 'reload.bin');
    await writeFile(file, data);
    const first = clientFor(server, user)
      .storage.from('tus')
      .uploadResumable(`${user.id}/reload.bin`, file, {
        urlStore: fileUrlStore(storePath),
        chunkSize: MiB,
        onChunkComplete: () => first.pause(),
      });
    await expect.poll(() => first.state).toBe('paused');
    // The URL is written while the next chunk goes; a reload before the write ends starts over.
    const { readFile } = await import('node:fs/promises');
    const stored = async () =>
      Object.values(JSON.parse(await readFile(storePath, 'utf8').catch(() => '{}')));
    await expect.poll(stored).toEqual([first.url]);
    const { log, fetcher } = recording();
    const again = clientFor(server, user, { fetch: fetcher }).storage;
    const resumed = again.from('tus').uploadResumable(`${user.id}/reload.bin`, file, {
      urlStore: fileUrlStore(storePath),
      chunkSize: MiB,
    });
    const { error } = await resumed.result;
    expect(error).toBeNull();
    expect(resumed.url).toBe(first.url);
    expect(log[0]).toBe('HEAD 200');
    expect(log).not.toContain('POST 201');
    expect(log.filter((l) => l.startsWith('PATCH')).length).toBe(2);
    expect(await storedSha(again, 'tus', `${user.id}/reload.bin`)).toBe(sha256(data));
    expect(JSON.parse(await readFile(storePath, 'utf8'))).toEqual({});
  }, 60_000);

  it('sends the next chunk while the store keeps the new URL, and forgets it only after', async () => {
    const user = newUser(server);
    const store = memoryUrlStore();
    const data = bytes(3 * MiB, 21);
    const events: string[] = [];
    let patched!: () => void;
    const firstPatch = new Promise<void>((resolve) => {
      patched = resolve;
    });
    const fetcher = (async (input: Request | string | URL, init?: RequestInit) => {
      const method = init?.method ?? 'GET';
      if (method === 'PATCH') patched();
      const res = await fetch(input, init);
      events.push(`${method} ${res.status}`);
      return res;
    }) as typeof fetch;
    // A store that is slow to keep the URL: it answers only once a PATCH went out, which
    // never happens if the upload waits for the store before its next chunk.
    const slow = {
      ...store,
      async set(k: string, v: string) {
        await firstPatch;
        await store.set(k, v);
        events.push('set');
      },
      async remove(k: string) {
        events.push('remove');
        await store.remove(k);
      },
    };
    const upload = clientFor(server, user, { fetch: fetcher })
      .storage.from('tus')
      .uploadResumable(`${user.id}/slow-store.bin`, new Blob([data]), {
        urlStore: slow,
        chunkSize: MiB,
      });
    const { error } = await upload.result;
    expect(error).toBeNull();
    expect(events[0]).toBe('POST 201');
    expect(events.indexOf('set')).toBeGreaterThan(0);
    expect(events.indexOf('remove')).toBeGreaterThan(events.indexOf('set'));
    expect(events.filter((e) => e === 'PATCH 204').length).toBe(2);
    expect(
      await storedSha(clientFor(server, user).storage, 'tus', `${user.id}/slow-store.bin`),
    ).toBe(sha256(data));
  }, 30_000);

  it('drops a stale stored URL and starts over', async () => {
    const user = newUser(server);
    const store = memoryUrlStore();
    const data = bytes(1000, 5);
    const blob = new Blob([data]);
    // Learn the fingerprint key by letting a first upload register and finish.
    const keys: string[] = [];
    const spy = {
      ...store,
      set: (k: string, v: string) => {
        keys.push(k);
        return store.set(k, v);
      },
    };
    const upload = clientFor(server, user)
      .storage.from('tus')
      .uploadResumable(`${user.id}/stale.bin`, blob, {
        urlStore: spy,
        upsert: true,
      });
    expect((await upload.result).error).toBeNull();
    const key = keys[0] as string;
    await store.set(key, `${server.url}/storage/v1/upload/resumable/bm9wZS9ub3BlL25vcGU`);
    const { log, fetcher } = recording();
    const again = clientFor(server, user, { fetch: fetcher })
      .storage.from('tus')
      .uploadResumable(`${user.id}/stale.bin`, blob, { urlStore: store, upsert: true });
    expect((await again.result).error).toBeNull();
    expect(log[0]).toMatch(/^HEAD 4\d\d$/);
    expect(log[1]).toBe('POST 201');
    expect(await store.get(key)).toBeUndefined();
  }, 30_000);

  it('fails clearly, without retrying, on 413 and on an RLS denial', async () => {
    const user = newUser(server);
    const { storage } = clientFor(server, user);
    let retries = 0;
    const tooBig = await storage
      .from('tus-small')
      .uploadResumable(`${user.id}/big.bin`, new Blob([bytes(5000)]), {
        urlStore: false,
        onRetry: () => retries++,
      }).result;
    expect(tooBig.error).toMatchObject({ name: 'UploadError', status: 413 });
    expect(tooBig.error?.message).toMatch(/too large/i);
    const other = newUser(server);
    const denied = await storage
      .from('tus')
      .uploadResumable(`${other.id}/x.bin`, new Blob([bytes(10)]), {
        urlStore: false,
        onRetry: () => retries++,
      }).result;
    expect(denied.error).toMatchObject({ name: 'UploadError', status: 403 });
    expect(retries).toBe(0);
    const { data } = await storage.from('tus').exists(`${other.id}/x.bin`);
    expect(data).toBe(false);
  }, 30_000);

  it('fails at once, in one request, when the object exists and upsert is off', async () => {
    const user = newUser(server);
    const path = `${user.id}/taken.bin`;
    const first = clientFor(server, user)
      .storage.from('tus')
      .uploadResumable(path, new Blob([bytes(100)]), { urlStore: false });
    expect((await first.result).error).toBeNull();
    const { log, fetcher } = recording();
    let retries = 0;
    const again = await clientFor(server, user, { fetch: fetcher })
      .storage.from('tus')
      .uploadResumable(path, new Blob([bytes(100, 3)]), {
        urlStore: false,
        onRetry: () => retries++,
      }).result;
    expect(again.error).toMatchObject({ name: 'UploadError', status: 409, code: 'already_exists' });
    expect(log).toEqual(['POST 409']);
    expect(retries).toBe(0);
    expect(await storedSha(clientFor(server, user).storage, 'tus', path)).toBe(sha256(bytes(100)));
  }, 30_000);

  it('runs a queue with a concurrency limit', async () => {
    const user = newUser(server);
    const { storage } = clientFor(server, user);
    const queue = new UploadQueue({ concurrency: 2 });
    let peak = 0;
    const files = Array.from({ length: 5 }, (_, i) => bytes(200_000 + i, i + 100));
    const results = files.map((data, i) =>
      queue.add(
        storage.from('tus').uploadResumable(`${user.id}/q${i}.bin`, new Blob([data]), {
          urlStore: false,
          autoStart: false,
          chunkSize: 64 * 1024,
          onChunkComplete: () => {
            peak = Math.max(peak, queue.running);
          },
        }),
      ),
    );
    expect(queue.running).toBe(2);
    expect(queue.pending).toBe(3);
    await queue.idle();
    expect(peak).toBe(2);
    for (const [i, r] of (await Promise.all(results)).entries()) {
      expect(r.error).toBeNull();
      expect(await storedSha(storage, 'tus', `${user.id}/q${i}.bin`)).toBe(
        sha256(files[i] as Uint8Array),
      );
    }
  }, 60_000);
});
