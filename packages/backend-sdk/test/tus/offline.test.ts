import { afterAll, beforeAll, expect, it, vi } from 'vitest';
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

let server: RunningServer;

beforeAll(async () => {
  server = await startBackend();
  await ownerBucket(server, 'tus');
}, 60_000);

afterAll(async () => {
  vi.unstubAllGlobals();
  await server?.stop();
});

it('pauses when the browser goes offline and resumes when it is back', async () => {
  // A browser-like global scope: window, online/offline events, navigator.onLine.
  const events = new EventTarget();
  const navigatorLike = { onLine: true };
  vi.stubGlobal('window', globalThis);
  vi.stubGlobal('navigator', navigatorLike);
  vi.stubGlobal('addEventListener', events.addEventListener.bind(events));
  vi.stubGlobal('removeEventListener', events.removeEventListener.bind(events));

  const user = newUser(server);
  const requests: string[] = [];
  const slow = (async (input: Request | string | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    requests.push(request.method);
    await new Promise((r) => setTimeout(r, 150));
    return fetch(request);
  }) as typeof fetch;
  const { storage } = clientFor(server, user, { fetch: slow });
  const data = bytes(2 * 1024 * 1024, 61);
  let chunks = 0;
  const upload = storage.from('tus').uploadResumable(`${user.id}/offline.bin`, new Blob([data]), {
    urlStore: false,
    chunkSize: 256 * 1024,
    onChunkComplete: () => {
      chunks++;
      if (chunks === 2) {
        navigatorLike.onLine = false;
        events.dispatchEvent(new Event('offline'));
      }
    },
  });
  await expect.poll(() => chunks, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
  await expect.poll(() => upload.state, { timeout: 15_000 }).toBe('paused');
  const sentWhileOffline = requests.length;
  await new Promise((r) => setTimeout(r, 500));
  expect(requests.length).toBe(sentWhileOffline); // nothing is sent while offline
  expect(upload.state).toBe('paused');

  navigatorLike.onLine = true;
  events.dispatchEvent(new Event('online'));
  const { error } = await upload.result;
  expect(error).toBeNull();
  expect(requests[sentWhileOffline]).toBe('HEAD'); // resumed from the server's offset
  expect(await storedSha(storage, 'tus', `${user.id}/offline.bin`)).toBe(sha256(data));
}, 60_000);
