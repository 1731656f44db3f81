import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
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
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sdk-restart-'));
  server = await startBackend({ dataDir });
  await ownerBucket(server, 'tus');
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

it('completes an upload while the server restarts in the middle of it', async () => {
  const user = newUser(server);
  const { storage } = clientFor(server, user);
  const data = bytes(6 * MiB, 77);
  const port = Number(new URL(server.url).port);
  let restart: Promise<void> | undefined;
  const retries: string[] = [];
  const upload = storage.from('tus').uploadResumable(`${user.id}/restart.bin`, new Blob([data]), {
    urlStore: false,
    chunkSize: MiB,
    retryDelays: [250, 500, 1000, 2000, 4000, 8000, 8000],
    onRetry: ({ error }) => retries.push(error.code),
    onChunkComplete: ({ bytes: done }) => {
      if (done >= 2 * MiB && !restart) {
        restart = (async () => {
          await server.stop();
          server = await startBackend({ dataDir, port });
        })();
      }
    },
  });
  const { error, data: result } = await upload.result;
  await restart;
  expect(error).toBeNull();
  expect(result?.size).toBe(data.length);
  expect(retries.length).toBeGreaterThan(0);
  expect(retries).toContain('network_error');
  expect(await storedSha(storage, 'tus', `${user.id}/restart.bin`)).toBe(sha256(data));
}, 90_000);
