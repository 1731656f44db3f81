/**
 * A refresh that arrives late: a tab presents a token another tab already rotated twice, the
 * server answers `refresh_token_already_used`, and the tab adopts the session the other tab
 * stored instead of signing every tab out. Against a real server with no reuse interval (so
 * the late token is refused outright).
 */
import { type RunningServer, startServer } from '@app/backend-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type AuthChangeEvent,
  createAuthClient,
  memoryStorage,
  type SessionStorage,
} from '../src/auth/index';
import { recordingFetch } from './support/record';
import { freshEmail } from './support/server';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({
    port: 0,
    auth: { rateLimits: false, refreshTokenReuseInterval: 0 },
  });
});
afterAll(async () => {
  await server?.stop();
});

it('adopts the session another tab stored when its own refresh comes back already used', async () => {
  const shared = memoryStorage();
  const tabA = createAuthClient(server.url, server.anonKey, {
    storage: shared,
    storageKey: 'race',
    crossTab: true,
  });
  const { error } = await tabA.signUp({ email: freshEmail('race'), password: 'race password 1' });
  expect(error).toBeNull();

  // Tab B hears no broadcast (a frozen tab), and its first read of storage after the lock is
  // stale (the other tab's write has not reached it yet); later reads see the current value.
  let staleReads = 0;
  let stale: string | null = null;
  const lagging: SessionStorage = {
    getItem: async (key) => (staleReads-- > 0 ? stale : shared.getItem(key)),
    setItem: (key, value) => shared.setItem(key, value),
    removeItem: (key) => shared.removeItem(key),
  };
  const codes: string[] = [];
  const rec = recordingFetch(async (input, init) => {
    const res = await fetch(input, init);
    const body = (await res.clone().json()) as { code?: string };
    codes.push(body.code ?? String(res.status));
    return res;
  });
  const Channel = globalThis.BroadcastChannel;
  (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  const tabB = createAuthClient(server.url, server.anonKey, {
    storage: lagging,
    storageKey: 'race',
    crossTab: true,
    fetch: rec.fetch,
  });
  (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = Channel;
  await tabB.ready;
  const events: AuthChangeEvent[] = [];
  tabB.onAuthStateChange((event) => {
    events.push(event);
  });
  stale = (await shared.getItem('race')) as string;

  // Tab A rotates twice; tab B still holds the first token.
  await tabA.refreshSession();
  const { data: newest } = await tabA.refreshSession();
  staleReads = 1;
  const r = await tabB.refreshSession();

  const answers = rec.log.filter((q) => q.path === '/auth/v1/token');
  expect(answers).toHaveLength(1);
  expect(codes).toEqual(['refresh_token_already_used']);
  expect(r.error).toBeNull();
  expect(r.data.session?.refresh_token).toBe(newest.session?.refresh_token);
  expect(events).not.toContain('SIGNED_OUT');
  // The shared storage still holds tab A's session: nobody was signed out.
  expect(JSON.parse((await shared.getItem('race')) as string).refresh_token).toBe(
    newest.session?.refresh_token,
  );
  tabA.dispose();
  tabB.dispose();
});
