import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type { RunningServer } from '../../src/server';
import { startTestServer } from '../support/server';
import { client, functionLog, writeProject } from './support';

const FUNCTIONS: Record<string, string> = {
  'echo/index.ts': `
    Deno.serve((req) => {
      if ((req.headers.get('upgrade') ?? '').toLowerCase() !== 'websocket') {
        return new Response("request isn't trying to upgrade to WebSocket.", { status: 400 });
      }
      const url = new URL(req.url);
      const offered = req.headers.get('sec-websocket-protocol')?.split(',')[0]?.trim();
      const { socket, response } = Deno.upgradeWebSocket(req, offered ? { protocol: offered } : {});
      socket.binaryType = 'arraybuffer';
      socket.onopen = () =>
        socket.send(JSON.stringify({ path: url.pathname, search: url.search, protocol: socket.protocol }));
      socket.onmessage = (event) => {
        if (event.data === 'close-me') return socket.close(4000, 'asked to');
        if (event.data === 'spin') for (;;) {}
        if (event.data === 'crash') {
          setTimeout(() => { throw new Error('the function crashed'); });
          return;
        }
        if (typeof event.data === 'string') socket.send('echo:' + event.data);
        else socket.send(new Uint8Array(event.data).reverse());
      };
      socket.onclose = (event) => console.log('closed', event.code, event.reason);
      return response;
    });`,
  'flood/index.ts': `
    Deno.serve((req) => {
      const { socket, response } = Deno.upgradeWebSocket(req);
      socket.onopen = async () => {
        const chunk = new Uint8Array(1024 * 1024);
        while (socket.readyState === WebSocket.OPEN) {
          socket.send(chunk);
          await new Promise((r) => setTimeout(r, 0));
        }
        console.log('stopped sending, bufferedAmount over 16 MiB:', socket.bufferedAmount > 16 * 1024 * 1024);
      };
      return response;
    });`,
  'plain/index.ts': `
    export default () => new Response('no sockets here', { status: 403, headers: { 'x-fn': 'plain' } });`,
  'hijack/index.ts': `
    import { serve } from 'https://deno.land/std/http/server.ts';
    serve((req) => {
      const p = Deno.upgradeHttp(req);
      (async () => {
        const [conn] = await p;
        conn.close();
      })();
      return new Response(null, { status: 101 });
    });`,
  'missing-package/index.ts': `
    import thing from 'npm:package-that-is-not-installed@1';
    import other from 'jsr:@scope/not-there@2/sub';
    export default () => new Response(String(thing) + String(other));`,
};

interface Peer {
  ws: WebSocket;
  /** The next frame from the function (text as a string, binary as a Buffer). */
  next(): Promise<string | Buffer>;
  closed: Promise<{ code: number; reason: string }>;
}

function connect(
  url: string,
  options: WebSocket.ClientOptions = {},
  protocols?: string[],
): Promise<Peer> {
  const ws = new WebSocket(url, protocols, options);
  const frames: (string | Buffer)[] = [];
  const waiting: ((frame: string | Buffer) => void)[] = [];
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    const frame = isBinary ? data : data.toString('utf8');
    const waiter = waiting.shift();
    if (waiter) waiter(frame);
    else frames.push(frame);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const next = () => {
    const frame = frames.shift();
    return frame !== undefined
      ? Promise.resolve(frame)
      : new Promise<string | Buffer>((r) => waiting.push(r));
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, next, closed }));
    ws.once('error', reject);
  });
}

/** What the server answers an upgrade it refuses: status, headers and body. */
function refused(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      ws.on('open', () => reject(new Error('the upgrade was accepted')));
      ws.on('error', () => {});
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
    },
  );
}

describe('functions: WebSocket servers and connection upgrades', () => {
  let server: RunningServer;
  let functionsDir: string;
  let wsUrl: (name: string) => string;

  beforeAll(async () => {
    ({ functionsDir } = await writeProject({
      ...FUNCTIONS,
      'secured/index.ts': FUNCTIONS['echo/index.ts'] as string,
    }));
    server = await startTestServer({
      functionsDir,
      functions: {
        verifyJwt: {
          echo: false,
          flood: false,
          plain: false,
          hijack: false,
          'missing-package': false,
        },
      },
    });
    wsUrl = (name) => `${server.url.replace('http', 'ws')}/functions/v1/${name}`;
  });
  afterAll(() => server?.stop());

  it('echoes text and binary frames; the function sees its path, query and subprotocol', async () => {
    const peer = await connect(`${wsUrl('echo')}/room/7?user=ann`, {}, ['chat.v1', 'other']);
    expect(peer.ws.protocol).toBe('chat.v1');
    expect(JSON.parse(String(await peer.next()))).toEqual({
      path: '/echo/room/7',
      search: '?user=ann',
      protocol: 'chat.v1',
    });
    peer.ws.send('hello');
    expect(await peer.next()).toBe('echo:hello');
    peer.ws.send(Buffer.from([1, 2, 3, 250]));
    const binary = await peer.next();
    expect(Buffer.isBuffer(binary)).toBe(true);
    expect([...(binary as Buffer)]).toEqual([250, 3, 2, 1]);
    const big = 'x'.repeat(300_000);
    peer.ws.send(big);
    expect(await peer.next()).toBe(`echo:${big}`);
    // The client closes: the function's socket sees the code and reason.
    peer.ws.close(4001, 'bye');
    expect(await peer.closed).toEqual({ code: 4001, reason: 'bye' });
    await vi.waitFor(async () => {
      expect(await functionLog(server, 'echo')).toContain('closed 4001 bye');
    });
  });

  it('the function closes with its code and reason', async () => {
    const peer = await connect(wsUrl('echo'));
    await peer.next();
    peer.ws.send('close-me');
    expect(await peer.closed).toEqual({ code: 4000, reason: 'asked to' });
  });

  it("a client that does not read: the function's send buffer is bounded (1011)", async () => {
    const peer = await connect(wsUrl('flood'));
    peer.ws.pause();
    await vi.waitFor(
      async () => {
        expect(await functionLog(server, 'flood')).toContain(
          'stopped sending, bufferedAmount over 16 MiB: true',
        );
      },
      { timeout: 20_000, interval: 200 },
    );
    peer.ws.resume();
    expect(await peer.closed).toEqual({ code: 1011, reason: 'send buffer full' });
  });

  it('a plain HTTP call to a WebSocket function gets its plain answer', async () => {
    const res = await fetch(`${server.url}/functions/v1/echo`);
    expect(res.status).toBe(400);
    expect(await res.text()).toBe("request isn't trying to upgrade to WebSocket.");
  });

  it('an upgrade answered with a normal response gets that response as HTTP', async () => {
    const answer = await refused(wsUrl('plain'));
    expect(answer.status).toBe(403);
    expect(answer.headers['x-fn']).toBe('plain');
    expect(answer.body).toBe('no sockets here');
    expect((await refused(wsUrl('nothing-here'))).status).toBe(404);
  });

  it('verify_jwt applies to upgrades: 401 before the upgrade without a valid token', async () => {
    const missing = await refused(wsUrl('secured'));
    expect(missing.status).toBe(401);
    expect(missing.headers['x-relay-error']).toBe('true');
    expect(JSON.parse(missing.body)).toEqual({
      code: 401,
      message: 'Missing authorization header',
    });
    const invalid = await refused(wsUrl('secured'), { authorization: 'Bearer not-a-jwt' });
    expect(JSON.parse(invalid.body)).toEqual({ code: 401, message: 'Invalid JWT' });
    const peer = await connect(wsUrl('secured'), {
      headers: { authorization: `Bearer ${server.anonKey}` },
    });
    expect(JSON.parse(String(await peer.next()))).toMatchObject({ path: '/secured' });
    peer.ws.close();
    expect((await peer.closed).code).toBe(1005);
  });

  it('a worker that dies mid-connection closes the socket with 1011; the next one works', async () => {
    const peer = await connect(wsUrl('echo'));
    const bystander = await connect(wsUrl('echo'));
    await peer.next();
    await bystander.next();
    peer.ws.send('crash');
    expect(await peer.closed).toEqual({ code: 1011, reason: 'WORKER_ERROR' });
    expect((await bystander.closed).code).toBe(1011);
    const again = await connect(wsUrl('echo'));
    await again.next();
    again.ws.send('still here?');
    expect(await again.next()).toBe('echo:still here?');
    again.ws.close();
    await again.closed;
  });

  it('Deno.upgradeHttp: 501 "Connection Upgrade is not supported", not a worker error', async () => {
    const { data, error } = await client(server).functions.invoke('hijack');
    expect(data).toBeNull();
    const res = (error as { context: Response }).context;
    expect(res.status).toBe(501);
    expect(await res.json()).toEqual({
      code: 'NOT_SUPPORTED',
      message: 'Connection Upgrade is not supported',
    });
    // The worker was not harmed: the call after it is answered the same way.
    expect((await fetch(`${server.url}/functions/v1/hijack`, { method: 'POST' })).status).toBe(501);
  });

  it('a package that is not installed: 503 BOOT_ERROR naming it and how to add it, no server paths', async () => {
    const res = await fetch(`${server.url}/functions/v1/missing-package`, { method: 'POST' });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe('BOOT_ERROR');
    expect(body.message).toMatch(/^Worker failed to boot \(please check logs\): /);
    expect(body.message).toContain('package "package-that-is-not-installed" is not installed');
    expect(body.message).toContain('`npm install package-that-is-not-installed@1`');
    expect(body.message).toContain('`npx jsr add @scope/not-there@2`');
    expect(body.message).not.toContain(functionsDir);
    expect(body.message).not.toMatch(/\/tmp|node_modules/);
    // The server log has the full reason.
    expect((await functionLog(server, 'missing-package')).join('\n')).toContain('boot error');
  });
});

describe('functions: sockets closed by the server', () => {
  it('a resource limit closes them with 1011 WORKER_LIMIT, server.stop() with 1001', async () => {
    const { functionsDir } = await writeProject({
      'echo/index.ts': FUNCTIONS['echo/index.ts'] as string,
    });
    const server = await startTestServer({
      functionsDir,
      functions: { verifyJwt: false, cpuTimeMs: 500 },
    });
    const url = `${server.url.replace('http', 'ws')}/functions/v1/echo`;
    const spinning = await connect(url);
    await spinning.next();
    spinning.ws.send('spin');
    expect(await spinning.closed).toEqual({ code: 1011, reason: 'WORKER_LIMIT' });
    const peer = await connect(url);
    await peer.next();
    await server.stop();
    expect(await peer.closed).toEqual({ code: 1001, reason: 'server shutting down' });
  });
});
