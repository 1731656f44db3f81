/**
 * `realtime.setAuth(token)`: joins, rejoins and heartbeats use the token set last, or the
 * session's when none was set; checked on the wire and through RLS against the real server,
 * with supabase-js as the oracle for the expired-token join.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresChange } from '../../src/realtime/channel';
import type { RealtimeClient, WebSocketConstructor } from '../../src/realtime/client';
import { officialClient } from '../support/official';
import { recordingWebSocket } from '../support/ws-record';
import { type RunningServer, startBackend } from '../tus/support';
import { Inbox, newUser, realtimeFor, SCHEMA, settle, statuses, topic, userToken } from './support';

let server: RunningServer;
const clients: RealtimeClient[] = [];
const official: SupabaseClient[] = [];

beforeAll(async () => {
  server = await startBackend();
  await server.db.exec(SCHEMA);
}, 60_000);

afterAll(async () => {
  for (const c of clients) c.disconnect();
  for (const c of official) await c.removeAllChannels();
  await server?.stop();
});

/** Our realtime client for a session holding `holder.token`, over a recording socket. */
function recorded(holder: { token: string } | null, heartbeatIntervalMs?: number) {
  const rec = recordingWebSocket();
  const client = realtimeFor(server, holder, {
    transport: rec.WebSocket as unknown as WebSocketConstructor,
    ...(heartbeatIntervalMs ? { heartbeatIntervalMs } : {}),
  });
  clients.push(client);
  /** The access_token of every join and access_token push, in order. */
  const tokens = (event: 'phx_join' | 'access_token') =>
    rec
      .sent()
      .filter((m) => m[3] === event)
      .map((m) => m[4].access_token);
  return { client, rec, tokens };
}

const insertTodo = (owner: string, title: string) =>
  server.db.query('insert into public.todos (owner_id, title) values ($1, $2)', [owner, title]);

type Todo = { title: string };

describe('realtime.setAuth(token)', () => {
  it('joins with an expired set token and gets CHANNEL_ERROR, as supabase-js does', async () => {
    const signedIn = newUser(server);
    const expired = userToken(server, signedIn.id, -10);

    const theirs = officialClient(server.url, server.anonKey);
    official.push(theirs);
    await theirs.realtime.setAuth(expired);
    const theirStatus = await new Promise<{ status: string; message: string }>((resolve) => {
      theirs.channel(topic('expired')).subscribe((status, err) => {
        if (status !== 'SUBSCRIBED' && status !== 'CLOSED')
          resolve({ status, message: String(err?.message) });
        else if (status === 'SUBSCRIBED') resolve({ status, message: '' });
      });
    });

    const { client, tokens } = recorded({ token: signedIn.token });
    await client.setAuth(expired);
    const seen: string[] = [];
    const ch = client.channel(topic('expired'));
    const error = await new Promise<Error | undefined>((resolve) => {
      ch.subscribe((status, err) => {
        seen.push(status);
        if (status === 'CHANNEL_ERROR') resolve(err);
      });
    });
    expect(theirStatus.status).toBe('CHANNEL_ERROR');
    expect(theirStatus.message).toMatch(/Token has expired/);
    expect(error?.message).toMatch(/Token has expired/);
    expect(tokens('phx_join')[0]).toBe(expired);
    expect(seen).toEqual(['CHANNEL_ERROR']);
    await ch.unsubscribe();
  });

  it('joins, rejoins and beats with the set token; the heartbeat never replaces it', async () => {
    const alice = newUser(server);
    const bob = newUser(server);
    // Signed in as Alice (the session), but the app set Bob's token. Short heartbeats; under
    // load one may go unanswered and the client reconnect, so joins are counted, not assumed.
    const { client, rec, tokens } = recorded({ token: alice.token }, 300);
    await client.setAuth(bob.token);
    const inbox = new Inbox<PostgresChange<Todo>>();
    const ch = client
      .channel(topic('manual'))
      .on<Todo>(
        'postgres_changes',
        { event: 'INSERT', schema: 'public', table: 'todos' },
        inbox.push,
      );
    const s = statuses(ch);
    await s.until('SUBSCRIBED');
    expect(tokens('phx_join')[0]).toBe(bob.token);

    // Several heartbeats later, the set token is still the one in use.
    const beats = () => rec.sent().filter((m) => m[3] === 'heartbeat').length;
    await expect.poll(beats, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    expect(tokens('access_token')).toEqual([]);
    expect(client.token).toBe(bob.token);
    await insertTodo(alice.id, 'alice-1');
    await insertTodo(bob.id, 'bob-1');
    await inbox.next(1);
    await settle();
    expect(inbox.items.map((c) => c.new.title)).toEqual(['bob-1']);

    // The connection drops: the channel rejoins with the set token, not the session's.
    const joins = tokens('phx_join').length;
    const subscribed = s.seen.length;
    rec.sockets.at(-1)?.terminate();
    await expect.poll(() => tokens('phx_join').length, { timeout: 10_000 }).toBeGreaterThan(joins);
    await s.until('SUBSCRIBED', subscribed);
    expect(new Set(tokens('phx_join'))).toEqual(new Set([bob.token]));
    expect(tokens('access_token')).toEqual([]);

    // setAuth() goes back to the session's token and pushes it to the joined channel.
    await client.setAuth();
    expect(tokens('access_token')).toEqual([alice.token]);
    await settle(200);
    await insertTodo(bob.id, 'bob-2');
    await insertTodo(alice.id, 'alice-2');
    await inbox.next(2);
    await settle();
    expect(inbox.items.map((c) => c.new.title)).toEqual(['bob-1', 'alice-2']);
  });

  it('follows the session when no token was set: joins and heartbeats pick up a new one', async () => {
    const alice = newUser(server);
    const holder = { token: alice.token };
    const { client, rec, tokens } = recorded(holder, 300);
    const ch = client.channel(topic('session'));
    await statuses(ch).until('SUBSCRIBED');
    expect(tokens('phx_join')).toEqual([alice.token]);
    // The session's token is refreshed; the next heartbeat pushes it.
    const refreshed = userToken(server, alice.id, 7200);
    holder.token = refreshed;
    await expect.poll(() => tokens('access_token'), { timeout: 5000 }).toEqual([refreshed]);
    expect(rec.sent().some((m) => m[3] === 'heartbeat')).toBe(true);
    expect(ch.state).toBe('joined');
  });

  it('keeps a set token across session changes, and sessionToken() applies when none is set', async () => {
    const alice = newUser(server);
    const bob = newUser(server);
    const { client, tokens } = recorded({ token: alice.token });
    const ch = client.channel(topic('events'));
    await statuses(ch).until('SUBSCRIBED');
    await client.setAuth(bob.token);
    // An auth change (what createClient forwards on sign-in/refresh) leaves the set token.
    await client.sessionToken(userToken(server, alice.id, 7200));
    expect(client.token).toBe(bob.token);
    expect(tokens('access_token')).toEqual([bob.token]);
    await client.setAuth(null);
    expect(tokens('access_token')).toEqual([bob.token, alice.token]);
    const next = userToken(server, alice.id, 9000);
    await client.sessionToken(next);
    expect(tokens('access_token')).toEqual([bob.token, alice.token, next]);
  });
});
