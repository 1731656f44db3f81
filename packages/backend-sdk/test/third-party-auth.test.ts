/**
 * Third-party auth through the SDK against the real server: `createClient(url, key,
 * { accessToken })` sends another provider's token (a local OpenID issuer standing in for
 * Firebase Auth) with REST, storage, functions and realtime joins, and `client.auth` throws
 * as supabase-js's does (the oracle).
 */
import { randomUUID } from 'node:crypto';
import { type RunningServer, startServer } from '@app/backend-server';
import { startOpenIdIssuers, type TestIssuer } from '@app/backend-server/testing';
import { createClient as officialCreateClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createClient } from '../src/index';
import type { WebSocketConstructor } from '../src/realtime/client';
import { statuses, topic } from './realtime/support';
import { recordingFetch } from './support/record';

const ISSUER = 'https://securetoken.google.com/sdk-firebase';
let server: RunningServer;
let op: Awaited<ReturnType<typeof startOpenIdIssuers>>;
let firebase: TestIssuer;

beforeAll(async () => {
  op = await startOpenIdIssuers([ISSUER]);
  firebase = op.issuers.get(ISSUER) as TestIssuer;
  const fixtures = (path: string) => new URL(`./fixtures/${path}`, import.meta.url).pathname;
  server = await startServer({
    port: 0,
    migrationsDir: fixtures('migrations'),
    functionsDir: fixtures('functions'),
    auth: { thirdParty: { firebase: { projectId: 'sdk-firebase' }, fetch: op.fetch } },
  });
});
afterAll(async () => {
  await server?.stop();
  await op?.close();
});

describe('createClient({ accessToken }): a third-party provider’s token', () => {
  it('is sent with REST, functions and storage; RLS sees its sub', async () => {
    const sub = randomUUID();
    const jwt = await firebase.sign({ sub, role: 'authenticated' });
    const rec = recordingFetch();
    let asked = 0;
    const client = createClient(server.url, server.anonKey, {
      accessToken: async () => {
        asked += 1;
        return jwt;
      },
      global: { fetch: rec.fetch },
    });
    expect((await client.rpc('whoami')).data).toBe(sub);
    const insert = await client.from('todos').insert({ title: 'from firebase' }).select('owner');
    expect(insert).toMatchObject({ error: null, data: [{ owner: sub }] });
    const echo = await client.functions.invoke('echo', { body: 'x' });
    expect((echo.data as { authorization: string }).authorization).toBe(`Bearer ${jwt}`);
    await client.storage.listBuckets();
    expect(rec.log.map((r) => r.headers.authorization)).toEqual(rec.log.map(() => `Bearer ${jwt}`));
    expect(asked).toBe(rec.log.length);
  });

  it('joins realtime channels with the token (a forged one is refused)', async () => {
    const good = await firebase.sign({ sub: randomUUID(), role: 'authenticated' });
    const client = createClient(server.url, server.anonKey, {
      accessToken: async () => good,
      realtime: { transport: WebSocket as unknown as WebSocketConstructor },
    });
    const ok = statuses(client.channel(topic()));
    await ok.until('SUBSCRIBED');
    await client.removeAllChannels();

    const forged = await firebase.sign({ sub: 'x', role: 'authenticated' }, { key: 'foreign' });
    const bad = createClient(server.url, server.anonKey, {
      accessToken: async () => forged,
      realtime: { transport: WebSocket as unknown as WebSocketConstructor },
    });
    const refused = statuses(bad.channel(topic()));
    await refused.until('CHANNEL_ERROR');
    expect(refused.seen).not.toContain('SUBSCRIBED');
    await bad.removeAllChannels();
  });

  it('makes client.auth throw the error supabase-js throws', async () => {
    const getToken = async () => null;
    const ours = createClient(server.url, server.anonKey, { accessToken: getToken });
    const oracle = officialCreateClient(server.url, server.anonKey, {
      accessToken: getToken,
      realtime: { transport: WebSocket as never },
    });
    for (const method of ['getSession', 'signInWithPassword'] as const) {
      let expected = '';
      try {
        void oracle.auth[method];
      } catch (error) {
        expected = (error as Error).message;
      }
      expect(expected).toContain('configured with the accessToken option');
      expect(() => ours.auth[method]).toThrow(expected);
    }
    // Without a token the key is sent, as supabase-js does.
    expect((await ours.rpc('whoami')).data).toBe('anon');
  });
});
