import type { RealtimeChannel as OfficialChannel, SupabaseClient } from '@supabase/supabase-js';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BroadcastMessage } from '../../src/realtime/channel';
import type { RealtimeClient } from '../../src/realtime/client';
import { officialClient } from '../support/official';
import {
  bytes,
  clientFor,
  newUser,
  ownerBucket,
  type RunningServer,
  sha256,
  startBackend,
  storedSha,
} from '../tus/support';
import { Inbox, realtimeFor, statuses, topic } from './support';

let server: RunningServer;
const ours: RealtimeClient[] = [];
const theirs: SupabaseClient[] = [];

beforeAll(async () => {
  server = await startBackend();
  await ownerBucket(server, 'interop');
}, 60_000);

afterAll(async () => {
  for (const c of ours) c.disconnect();
  for (const c of theirs) await c.removeAllChannels();
  await server?.stop();
});

const officialSubscribed = (channel: OfficialChannel) =>
  new Promise<void>((resolve, reject) =>
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve();
      else if (status !== 'CLOSED') reject(err ?? new Error(status));
    }),
  );

describe('interoperates with the official clients on one server', () => {
  for (const vsn of ['2.0.0', '1.0.0'] as const) {
    it(`exchanges broadcasts and presence with supabase-js (ours vsn ${vsn})`, async () => {
      const name = topic('interop');
      const official = officialClient(server.url, server.anonKey);
      theirs.push(official);
      const officialInbox = new Inbox<{ payload: unknown }>();
      const theirChannel = official
        .channel(name, { config: { presence: { key: 'official' } } })
        .on('broadcast', { event: 'ping' }, officialInbox.push)
        .on('presence', { event: 'sync' }, () => {});
      await officialSubscribed(theirChannel);

      const client = realtimeFor(server, null, { vsn });
      ours.push(client);
      const ourInbox = new Inbox<BroadcastMessage>();
      const mine = client
        .channel(name, { config: { presence: { key: 'ours' } } })
        .on('broadcast', { event: 'pong' }, ourInbox.push)
        .on('presence', { event: 'sync' }, () => {});
      await statuses(mine).until('SUBSCRIBED');

      expect(await mine.send({ type: 'broadcast', event: 'ping', payload: { from: 'ours' } })).toBe(
        'ok',
      );
      await officialInbox.next(1);
      expect(officialInbox.items[0]?.payload).toEqual({ from: 'ours' });
      await theirChannel.send({ type: 'broadcast', event: 'pong', payload: { from: 'official' } });
      await ourInbox.next(1);
      expect(ourInbox.items[0]?.payload).toEqual({ from: 'official' });

      await theirChannel.track({ who: 'official' });
      await mine.track({ who: 'ours' });
      await expect
        .poll(() => Object.keys(mine.presenceState()).sort())
        .toEqual(['official', 'ours']);
      await expect
        .poll(() => Object.keys(theirChannel.presenceState()).sort())
        .toEqual(['official', 'ours']);
    });
  }

  it('resumes with our client an upload that tus-js-client started (same wire protocol)', async () => {
    const user = newUser(server);
    const data = bytes(3 * 1024 * 1024, 31);
    const path = `${user.id}/shared.bin`;
    let url = '';
    await new Promise<void>((resolve, reject) => {
      const upload: tus.Upload = new tus.Upload(Buffer.from(data), {
        endpoint: `${server.url}/storage/v1/upload/resumable`,
        chunkSize: 1024 * 1024,
        uploadSize: data.length,
        headers: { apikey: server.anonKey, authorization: `Bearer ${user.token}` },
        metadata: { bucketName: 'interop', objectName: path },
        onChunkComplete: () => {
          url = upload.url ?? '';
          void upload.abort().then(() => resolve());
        },
        onError: reject,
      });
      upload.start();
    });
    expect(url).toContain('/storage/v1/upload/resumable/');
    const { storage } = clientFor(server, user);
    const store = { get: () => url, set: () => {}, remove: () => {} };
    const resumed = storage.from('interop').uploadResumable(path, new Blob([data]), {
      urlStore: store,
      chunkSize: 1024 * 1024,
    });
    const { error } = await resumed.result;
    expect(error).toBeNull();
    expect(resumed.url).toBe(url);
    expect(await storedSha(storage, 'interop', path)).toBe(sha256(data));
  });
});
