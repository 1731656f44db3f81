import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { RawSocket, settle, socketUrl, uniqueTopic, userToken } from './support';

/** Opens a socket that must be refused; resolves to the HTTP status and JSON body. */
function refused(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => reject(new Error('connected')));
    ws.on('error', () => {});
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
  });
}

/** A kind 3 frame as realtime-js builds it. */
function userBroadcastPush(
  joinRef: string,
  ref: string,
  topic: string,
  event: string,
  json: unknown,
) {
  const parts = [joinRef, ref, topic, event, ''].map((s) => Buffer.from(s));
  const header = Buffer.from([3, ...parts.map((p) => p.length), 1]);
  return Buffer.concat([header, ...parts, Buffer.from(JSON.stringify(json))]);
}

describe(`realtime wire protocol (${databaseKind()})`, () => {
  let server: RunningServer;
  const v2 = () => RawSocket.open(socketUrl(server, `apikey=${server.anonKey}&vsn=2.0.0`));
  const v1 = () => RawSocket.open(socketUrl(server, `apikey=${server.anonKey}&vsn=1.0.0`));

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('refuses connections with the gateway and realtime bodies', async () => {
    expect(await refused(socketUrl(server, 'vsn=2.0.0'))).toEqual({
      status: 401,
      body: {
        message: 'No API key found in request',
        hint: 'No `apikey` request header or url param was found.',
      },
    });
    expect(await refused(socketUrl(server, 'apikey=nope&vsn=2.0.0'))).toMatchObject({
      status: 401,
      body: { message: 'Invalid API key' },
    });
    const cases: [string, string][] = [
      [await userToken(server, undefined, { expiresIn: -10 }), 'Token has expired'],
      [
        await userToken(server, undefined, { omit: 'exp' }),
        'Fields `role` and `exp` are required in JWT',
      ],
      [
        await userToken(server, undefined, { omit: 'role' }),
        'Fields `role` and `exp` are required in JWT',
      ],
      [await userToken({ jwtSecret: 'x'.repeat(40) }), 'Failed to validate JWT signature'],
      ['not-a-jwt', 'The token provided is not a valid JWT'],
    ];
    for (const [token, error] of cases) {
      expect(await refused(socketUrl(server, 'vsn=2.0.0'), { 'x-api-key': token })).toEqual({
        status: 401,
        body: { error },
      });
    }
  });

  it('answers heartbeats on topic phoenix in both encodings', async () => {
    const a = await v2();
    a.send([null, '1', 'phoenix', 'heartbeat', {}]);
    expect(await a.waitFor((f: unknown[]) => f[1] === '1')).toEqual([
      null,
      '1',
      'phoenix',
      'phx_reply',
      { status: 'ok', response: {} },
    ]);
    const b = await v1();
    b.send({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: '7' });
    expect(await b.waitFor((f: { ref?: string }) => f.ref === '7')).toEqual({
      topic: 'phoenix',
      event: 'phx_reply',
      payload: { status: 'ok', response: {} },
      ref: '7',
    });
    a.close();
    b.close();
  });

  it('joins, leaves with phx_close, and rejects bad topics and unjoined pushes', async () => {
    const s = await v2();
    const topic = `realtime:${uniqueTopic()}`;
    s.send([
      '1',
      '1',
      topic,
      'phx_join',
      { config: { broadcast: {}, presence: {}, postgres_changes: [] } },
    ]);
    expect(await s.waitFor((f: unknown[]) => f[1] === '1')).toEqual([
      '1',
      '1',
      topic,
      'phx_reply',
      { status: 'ok', response: { postgres_changes: [] } },
    ]);
    s.send(['1', '2', topic, 'phx_leave', {}]);
    expect(await s.waitFor((f: unknown[]) => f[1] === '2')).toEqual([
      '1',
      '2',
      topic,
      'phx_reply',
      { status: 'ok', response: {} },
    ]);
    expect(await s.waitFor((f: unknown[]) => f[3] === 'phx_close')).toEqual([
      '1',
      '1',
      topic,
      'phx_close',
      {},
    ]);
    s.send(['3', '3', 'realtime:', 'phx_join', { config: {} }]);
    expect((await s.waitFor((f: unknown[]) => f[1] === '3'))[4]).toEqual({
      status: 'error',
      response: { reason: 'TopicNameRequired: You must provide a topic name' },
    });
    s.send(['4', '4', 'elsewhere', 'phx_join', {}]);
    expect((await s.waitFor((f: unknown[]) => f[1] === '4'))[4]).toEqual({
      status: 'error',
      response: { reason: 'unmatched topic' },
    });
    s.send(['5', '5', topic, 'broadcast', { type: 'broadcast', event: 'x', payload: {} }]);
    expect((await s.waitFor((f: unknown[]) => f[1] === '5'))[4]).toEqual({
      status: 'error',
      response: { reason: 'unmatched topic' },
    });
    s.close();
  });

  it('broadcasts messages sent from the database with realtime.send()', async () => {
    const name = uniqueTopic();
    const topic = `realtime:${name}`;
    const s = await v2();
    s.send(['1', '1', topic, 'phx_join', { config: {} }]);
    await s.waitFor((f: unknown[]) => f[1] === '1');
    await server.db.query("select realtime.send('{\"secret\":1}'::jsonb, 'db', $1)", [name]);
    await server.db.query("select realtime.send('{\"a\":1}'::jsonb, 'db', $1, false)", [name]);
    const frame = await s.waitFor<unknown[]>((f: unknown[]) => f[3] === 'broadcast');
    expect(frame).toEqual([
      null,
      null,
      topic,
      'broadcast',
      { type: 'broadcast', event: 'db', payload: { a: 1 }, meta: { id: expect.any(String) } },
    ]);
    await settle();
    // The private message (the default) never reached the public channel.
    expect(s.frames.filter((f) => (f as unknown[])[3] === 'broadcast')).toHaveLength(1);
    s.close();
  });

  it('delivers a burst of database broadcasts whole and in order, past a stray notification', async () => {
    const name = uniqueTopic();
    const topic = `realtime:${name}`;
    const s = await v2();
    s.send(['1', '1', topic, 'phx_join', { config: {} }]);
    await s.waitFor((f: unknown[]) => f[1] === '1');
    // Not a message id: ignored, and the burst after it still arrives.
    await server.db.query("select pg_notify('realtime_messages', 'not-a-message')");
    await server.db.query(
      `select realtime.send(jsonb_build_object('n', n), 'burst', $1, false)
         from generate_series(1, 60) as n`,
      [name],
    );
    const burst = () => s.frames.filter((f) => (f as unknown[])[3] === 'broadcast') as unknown[][];
    await s.waitFor(
      (f: unknown[]) =>
        f[3] === 'broadcast' && (f[4] as { payload: { n: number } }).payload.n === 60,
    );
    expect(burst().map((f) => (f[4] as { payload: { n: number } }).payload.n)).toEqual(
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
    s.close();
  });

  it('limits a socket to 100 channels', async () => {
    const s = await v2();
    const base = uniqueTopic();
    for (let i = 1; i <= 101; i++) {
      s.send([String(i), String(i), `realtime:${base}-${i}`, 'phx_join', { config: {} }]);
    }
    const last = await s.waitFor<unknown[]>((f: unknown[]) => f[1] === '101');
    expect(last[4]).toEqual({
      status: 'error',
      response: { reason: 'ChannelRateLimitReached: Too many channels' },
    });
    const first = await s.waitFor<unknown[]>((f: unknown[]) => f[1] === '100');
    expect(first[4]).toMatchObject({ status: 'ok' });
    s.close();
  });

  it('refuses joins with bad access tokens with the hosted reasons', async () => {
    const s = await v2();
    const topic = `realtime:${uniqueTopic()}`;
    const expired = await userToken(server, undefined, { expiresIn: -30 });
    s.send(['1', '1', topic, 'phx_join', { config: {}, access_token: expired }]);
    const reply = await s.waitFor<unknown[]>((f: unknown[]) => f[1] === '1');
    expect(reply[4]).toMatchObject({ status: 'error' });
    expect((reply[4] as { response: { reason: string } }).response.reason).toMatch(
      /^InvalidJWTToken: Token has expired \d+ seconds ago$/,
    );
    s.send(['2', '2', topic, 'phx_join', { config: {}, access_token: 'garbage' }]);
    expect((await s.waitFor((f: unknown[]) => f[1] === '2'))[4]).toEqual({
      status: 'error',
      response: { reason: 'MalformedJWT: The token provided is not a valid JWT' },
    });
    s.close();
  });

  it('fans binary broadcasts out as kind 4 to v2 and as JSON to v1 sockets', async () => {
    const topic = `realtime:${uniqueTopic()}`;
    const join = { config: { broadcast: { self: false } } };
    const [sender, binaryPeer, jsonPeer] = await Promise.all([v2(), v2(), v1()]);
    for (const s of [sender, binaryPeer]) {
      s.send(['1', '1', topic, 'phx_join', join]);
      await s.waitFor((f: unknown[]) => f[1] === '1');
    }
    jsonPeer.send({ topic, event: 'phx_join', payload: join, ref: '1', join_ref: '1' });
    await jsonPeer.waitFor((f: { ref?: string }) => f.ref === '1');

    sender.send(userBroadcastPush('1', '2', topic, 'cursor', { x: 1 }));
    const frame = await binaryPeer.waitFor<Buffer>((f: unknown) => Buffer.isBuffer(f));
    const expected = Buffer.concat([
      Buffer.from([4, topic.length, 6, 0, 1]),
      Buffer.from(topic),
      Buffer.from('cursor'),
      Buffer.from('{"x":1}'),
    ]);
    expect(frame.equals(expected)).toBe(true);
    expect(await jsonPeer.waitFor((f: { event?: string }) => f.event === 'broadcast')).toEqual({
      topic,
      event: 'broadcast',
      payload: { type: 'broadcast', event: 'cursor', payload: { x: 1 } },
      ref: null,
    });
    // JSON pushes fan out as JSON frames; self:false kept the sender out of both.
    sender.send([
      '1',
      '3',
      topic,
      'broadcast',
      { type: 'broadcast', event: 'e', payload: { y: 2 } },
    ]);
    expect(await binaryPeer.waitFor((f: unknown[]) => f[3] === 'broadcast')).toEqual([
      null,
      null,
      topic,
      'broadcast',
      { type: 'broadcast', event: 'e', payload: { y: 2 } },
    ]);
    await settle(100);
    expect(
      sender.frames.filter((f) => Buffer.isBuffer(f) || (f as unknown[])[3] === 'broadcast'),
    ).toEqual([]);
    for (const s of [sender, binaryPeer, jsonPeer]) s.close();
  });

  it('stops a channel whose access_token push is expired: system error, then phx_close', async () => {
    const s = await v2();
    const topic = `realtime:${uniqueTopic()}`;
    const name = topic.slice('realtime:'.length);
    s.send(['1', '1', topic, 'phx_join', { config: {}, access_token: await userToken(server) }]);
    await s.waitFor((f: unknown[]) => f[1] === '1');
    // A fresh valid token is accepted silently.
    s.send(['1', '2', topic, 'access_token', { access_token: await userToken(server) }]);
    s.send([null, '3', 'phoenix', 'heartbeat', {}]);
    await s.waitFor((f: unknown[]) => f[1] === '3');
    expect(s.frames.some((f) => (f as unknown[])[3] === 'system')).toBe(false);

    const expired = await userToken(server, undefined, { expiresIn: -5 });
    s.send(['1', '4', topic, 'access_token', { access_token: expired }]);
    const system = await s.waitFor<unknown[]>((f: unknown[]) => f[3] === 'system');
    expect(system.slice(0, 4)).toEqual(['1', null, topic, 'system']);
    expect(system[4]).toMatchObject({ extension: 'system', status: 'error', channel: name });
    expect((system[4] as { message: string }).message).toMatch(
      /^Token has expired \d+ seconds ago$/,
    );
    expect(await s.waitFor((f: unknown[]) => f[3] === 'phx_close')).toEqual([
      '1',
      '1',
      topic,
      'phx_close',
      {},
    ]);
    s.close();
  });

  it('broadcasts through POST /api/broadcast (202) and the single-message endpoint', async () => {
    const name = uniqueTopic();
    const topic = `realtime:${name}`;
    const s = await v2();
    s.send(['1', '1', topic, 'phx_join', { config: {} }]);
    await s.waitFor((f: unknown[]) => f[1] === '1');
    const base = `${server.url}/realtime/v1/api/broadcast`;
    const headers = { apikey: server.anonKey, 'content-type': 'application/json' };
    const res = await fetch(base, {
      method: 'POST',
      headers,
      body: JSON.stringify({ messages: [{ topic: name, event: 'rest', payload: { n: 1 } }] }),
    });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
    expect((await s.waitFor((f: unknown[]) => f[3] === 'broadcast'))[4]).toEqual({
      type: 'broadcast',
      event: 'rest',
      payload: { n: 1 },
    });
    const single = await fetch(`${base}/${encodeURIComponent(name)}/events/ping`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ n: 2 }),
    });
    expect(single.status).toBe(202);
    expect(
      (
        await s.waitFor(
          (f: unknown[]) => f[3] === 'broadcast' && (f[4] as { event: string }).event === 'ping',
        )
      )[4],
    ).toEqual({ type: 'broadcast', event: 'ping', payload: { n: 2 } });

    const bad = await fetch(base, {
      method: 'POST',
      headers,
      body: JSON.stringify({ messages: [{ topic: name, payload: { n: 1 } }] }),
    });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toEqual({ errors: { messages: [{ event: ["can't be blank"] }] } });
    const noKey = await fetch(base, { method: 'POST', body: '{}' });
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({ message: 'No API key found in request' });
    const badToken = await fetch(base, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer nope' },
      body: JSON.stringify({ messages: [{ topic: name, event: 'x', payload: {} }] }),
    });
    expect(badToken.status).toBe(401);
    expect(await badToken.json()).toEqual({ message: 'Unauthorized' });
    const media = await fetch(`${base}/${name}/events/x`, {
      method: 'POST',
      headers: { apikey: server.anonKey, 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(media.status).toBe(415);
    s.close();
  });
});
