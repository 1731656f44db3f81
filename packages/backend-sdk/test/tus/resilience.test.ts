import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bytes,
  clientFor,
  newUser,
  ownerBucket,
  type RunningServer,
  sha256,
  startBackend,
  storedSha,
  userToken,
} from './support';

const MiB = 1024 * 1024;
let server: RunningServer;

beforeAll(async () => {
  server = await startBackend();
  await ownerBucket(server, 'tus');
}, 60_000);

afterAll(() => server?.stop());

/**
 * A TCP proxy in front of the server that cuts the connection carrying the request bytes
 * once `cutAfter` bytes (client → server, all connections) have passed. As over a real
 * network, the server sees the cut first and the client a moment later.
 */
async function cuttingProxy(target: string, cutAfter: number) {
  const { hostname, port } = new URL(target);
  let forwarded = 0;
  let cuts = 0;
  const sockets = new Set<Socket>();
  const proxy: Server = createServer((client) => {
    const upstream = new Socket();
    upstream.connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    let severed = false;
    const kill = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (data: Buffer) => {
      if (severed) return;
      forwarded += data.length;
      if (cuts === 0 && forwarded > cutAfter) {
        cuts++;
        severed = true;
        upstream.write(data.subarray(0, data.length >> 1), () => {
          upstream.destroy();
          setTimeout(() => client.destroy(), 100);
        });
        return;
      }
      upstream.write(data);
    });
    upstream.on('data', (data) => client.write(data));
    client.on('error', kill).on('close', kill);
    const upstreamGone = () => {
      if (!severed) kill();
    };
    upstream.on('error', upstreamGone).on('close', upstreamGone);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    cuts: () => cuts,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => proxy.close(r));
    },
  };
}

describe('uploads survive failures', () => {
  it('completes correctly when the connection is cut in the middle of a chunk', async () => {
    const proxy = await cuttingProxy(server.url, 2.5 * MiB);
    try {
      const user = newUser(server);
      const { storage } = clientFor(server, user, { url: proxy.url });
      const data = bytes(5 * MiB + 3, 21);
      const retries: Array<{ delay: number; code: string }> = [];
      const upload = storage.from('tus').uploadResumable(`${user.id}/cut.bin`, new Blob([data]), {
        urlStore: false,
        chunkSize: MiB,
        onRetry: ({ delay, error }) => retries.push({ delay, code: error.code }),
      });
      const { error } = await upload.result;
      expect(error).toBeNull();
      expect(proxy.cuts()).toBe(1);
      // The cut surfaces as a network error; the server may still be writing the cut request's
      // bytes when the HEAD comes, in which case the next PATCH gets 409 and HEADs again.
      expect(retries[0]).toEqual({ delay: 0, code: 'network_error' });
      expect(retries.slice(1).filter((r) => r.code !== 'offset_mismatch')).toEqual([]);
      expect(retries.length).toBeLessThanOrEqual(3);
      expect(await storedSha(clientFor(server, user).storage, 'tus', `${user.id}/cut.bin`)).toBe(
        sha256(data),
      );
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('completes a file-path upload byte-exact when the connection is cut mid-chunk', async () => {
    // A file path streams each chunk from disk through reused buffers: the cut send must let
    // go of them before the retry reads the range again.
    const proxy = await cuttingProxy(server.url, 2.5 * MiB);
    const dir = await mkdtemp(join(tmpdir(), 'sdk-cut-'));
    try {
      const user = newUser(server);
      const { storage } = clientFor(server, user, { url: proxy.url });
      const data = bytes(9 * MiB + 5, 22);
      const file = join(dir, 'cut.bin');
      await writeFile(file, data);
      const retries: string[] = [];
      const { error } = await storage.from('tus').uploadResumable(`${user.id}/cut-file.bin`, file, {
        urlStore: false,
        chunkSize: 3 * MiB,
        onRetry: ({ error }) => retries.push(error.code),
      }).result;
      expect(error).toBeNull();
      expect(proxy.cuts()).toBe(1);
      expect(retries[0]).toBe('network_error');
      expect(
        await storedSha(clientFor(server, user).storage, 'tus', `${user.id}/cut-file.bin`),
      ).toBe(sha256(data));
    } finally {
      await proxy.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('outlives the access token: every request carries a fresh one', async () => {
    const user = newUser(server, 2);
    const seen = new Set<string>();
    const refresher = setInterval(() => {
      user.token = userToken(server, user.id, 2);
    }, 500);
    const slow = (async (input: Request | string | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      seen.add(request.headers.get('authorization') ?? '');
      await new Promise((r) => setTimeout(r, 400));
      return fetch(request);
    }) as typeof fetch;
    try {
      const { storage } = clientFor(server, user, { fetch: slow });
      const data = bytes(2 * MiB, 5);
      const { error } = await storage
        .from('tus')
        .uploadResumable(`${user.id}/long.bin`, new Blob([data]), {
          urlStore: false,
          chunkSize: 192 * 1024,
        }).result;
      expect(error).toBeNull();
      expect(seen.size).toBeGreaterThanOrEqual(5);
      expect(await storedSha(storage, 'tus', `${user.id}/long.bin`)).toBe(sha256(data));
    } finally {
      clearInterval(refresher);
    }
  }, 60_000);

  it('(control) the same slow upload with a token that is never refreshed fails once it expires', async () => {
    const user = newUser(server, 2);
    const slow = (async (input: Request | string | URL, init?: RequestInit) => {
      await new Promise((r) => setTimeout(r, 400));
      return fetch(input, init);
    }) as typeof fetch;
    const { storage } = clientFor(server, user, { fetch: slow });
    const { error } = await storage
      .from('tus')
      .uploadResumable(`${user.id}/expired.bin`, new Blob([bytes(2 * MiB)]), {
        urlStore: false,
        chunkSize: 192 * 1024,
        retryDelays: [],
      }).result;
    expect(error?.name).toBe('UploadError');
    expect(error?.status).toBeGreaterThanOrEqual(400);
  }, 60_000);
});
