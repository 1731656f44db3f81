import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../../src/client';
import { BackendError, isBackendError } from '../../../src/errors';
import { checkProject, createHttp, type Fetch, type StreamedBody } from '../../../src/http/index';
import { nodeFetch } from '../../../src/http/node';

/**
 * A tiny scripted HTTP server (a test fixture for the transport layer, not a stand-in for
 * the backend): each request gets the next scripted answer and is recorded.
 */
type Answer = (req: IncomingMessage, res: ServerResponse) => void;
let server: Server;
let url: string;
let script: Answer[] = [];
let seen: { method: string; url: string; headers: IncomingMessage['headers'] }[] = [];
const ok: Answer = (_req, res) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
const status =
  (code: number, headers: Record<string, string> = {}): Answer =>
  (_req, res) =>
    res.writeHead(code, headers).end('{}');

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    (script.shift() ?? ok)(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  script = [];
  seen = [];
});

const error = (m: string, o: ConstructorParameters<typeof BackendError>[1]) =>
  new BackendError(m, o);

describe('project checks', () => {
  it.each([['not a url'], ['ftp://x'], [''], [undefined]])('rejects the URL %j', (bad) => {
    expect(() => checkProject(bad, 'key')).toThrow(/Invalid project URL/);
    expect(() => createClient(bad as string, 'key')).toThrow(BackendError);
  });

  it('rejects an empty key with a clear error', () => {
    let caught: unknown;
    try {
      createClient('http://127.0.0.1:1', '  ');
    } catch (e) {
      caught = e;
    }
    expect(isBackendError(caught)).toBe(true);
    expect(caught).toMatchObject({
      code: 'invalid_argument',
      message: 'The project API key is required',
    });
  });

  it('normalises a trailing slash', () => {
    expect(checkProject('https://ref.example.co/', 'k')).toBe('https://ref.example.co');
  });
});

describe('createHttp', () => {
  it('sends apikey, bearer (token else key), X-Client-Info and global headers', async () => {
    let token: string | null = null;
    const http = createHttp({
      url,
      key: 'KEY',
      headers: { 'x-app': 'drive' },
      accessToken: () => token,
    });
    await http.send({ path: '/a', error });
    token = 'USER';
    await http.send({ path: '/b', query: 'x=1', error });
    await http.send({ path: '/c', token: null, error });
    expect(
      seen.map((s) => [s.url, s.headers.apikey, s.headers.authorization, s.headers['x-app']]),
    ).toEqual([
      ['/a', 'KEY', 'Bearer KEY', 'drive'],
      ['/b?x=1', 'KEY', 'Bearer USER', 'drive'],
      ['/c', 'KEY', undefined, 'drive'],
    ]);
    expect(seen[0]?.headers['x-client-info']).toMatch(/^backend-sdk-js\//);
  });

  it('retries GET on 503 and 520, honouring Retry-After, with X-Retry-Count', async () => {
    script = [status(503, { 'retry-after': '0' }), status(520), ok];
    const http = createHttp({ url, key: 'K', retryDelay: () => 1 });
    const res = await http.send({ path: '/r', error });
    expect(res.status).toBe(200);
    expect(seen.map((s) => s.headers['x-retry-count'])).toEqual([undefined, '1', '2']);
  });

  it('gives up after the retry limit and returns the last response', async () => {
    script = [status(503), status(503), status(503)];
    const http = createHttp({ url, key: 'K', retries: 2, retryDelay: () => 1 });
    const res = await http.send({ path: '/r', error });
    expect(res.status).toBe(503);
    expect(await res.text()).toBe('{}'); // the body is still readable
    expect(seen).toHaveLength(3);
  });

  it('never retries POST', async () => {
    script = [status(503)];
    const http = createHttp({ url, key: 'K', retryDelay: () => 1 });
    expect((await http.send({ method: 'POST', path: '/p', body: 'x', error })).status).toBe(503);
    expect(seen).toHaveLength(1);
  });

  it('does not retry other errors', async () => {
    script = [status(500)];
    const http = createHttp({ url, key: 'K', retryDelay: () => 1 });
    expect((await http.send({ path: '/e', error })).status).toBe(500);
    expect(seen).toHaveLength(1);
  });

  it('maps a network failure (after retries) to network_error with status 0', async () => {
    let attempts = 0;
    const http = createHttp({
      url,
      key: 'K',
      retryDelay: () => 1,
      fetch: async () => {
        attempts++;
        throw new TypeError('fetch failed');
      },
    });
    await expect(http.send({ path: '/n', error })).rejects.toMatchObject({
      status: 0,
      code: 'network_error',
    });
    expect(attempts).toBe(4);
  });

  it('maps a timeout to code timeout', async () => {
    script = [(_req, res) => setTimeout(() => res.end('late'), 500)];
    const http = createHttp({ url, key: 'K', timeout: 50, retries: 0 });
    await expect(http.send({ path: '/slow', error })).rejects.toMatchObject({ code: 'timeout' });
  });

  it('maps an abort mid-flight to code aborted', async () => {
    script = [(_req, res) => setTimeout(() => res.end('late'), 500)];
    const http = createHttp({ url, key: 'K' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    await expect(
      http.send({ path: '/slow', signal: controller.signal, error }),
    ).rejects.toMatchObject({
      code: 'aborted',
    });
  });

  it('returns a 503 at once when Retry-After asks for more than 30 s', async () => {
    // A fake clock that never moves: the answer has to come without any wait.
    vi.useFakeTimers();
    try {
      let calls = 0;
      const fetch: Fetch = async () => {
        calls += 1;
        return new Response('{}', { status: 503, headers: { 'retry-after': '120' } });
      };
      const http = createHttp({ url, key: 'K', fetch, retryDelay: () => 1 });
      let settled = false;
      const pending = http.send({ path: '/later', error }).finally(() => {
        settled = true;
      });
      await vi.advanceTimersByTimeAsync(0);
      expect(settled).toBe(true);
      expect((await pending).status).toBe(503);
      expect(calls).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('reads Retry-After as an HTTP date', async () => {
    script = [status(503, { 'retry-after': new Date(Date.now() - 1000).toUTCString() }), ok];
    const http = createHttp({ url, key: 'K', retryDelay: () => 60_000 });
    const res = await http.send({ path: '/date', error });
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(2);
  });

  it('never retries a stream body, even when asked to', async () => {
    script = [status(503), ok];
    const http = createHttp({ url, key: 'K', retryDelay: () => 1 });
    const body = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('once'));
        c.close();
      },
    });
    const res = await http.send({ method: 'PUT', path: '/s', body, retry: true, error });
    expect(res.status).toBe(503);
    expect(seen).toHaveLength(1);
  });

  it('retries a repeatable body when asked to', async () => {
    const bodies: string[] = [];
    const record: Answer = (req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => {
        text += c.toString();
      });
      req.on('end', () => {
        bodies.push(text);
        res.writeHead(bodies.length === 1 ? 520 : 200).end('{}');
      });
    };
    script = [record, record];
    const http = createHttp({ url, key: 'K', retryDelay: () => 1 });
    const res = await http.send({ method: 'POST', path: '/b', body: 'same', retry: true, error });
    expect(res.status).toBe(200);
    expect(bodies).toEqual(['same', 'same']);
  });

  it('maps an abort during the wait before a retry to code aborted', async () => {
    script = [status(503)];
    const controller = new AbortController();
    // The delay is asked for when the wait begins: abort right after that, whatever the load.
    const retryDelay = () => {
      setTimeout(() => controller.abort(), 0);
      return 60_000;
    };
    const http = createHttp({ url, key: 'K', retryDelay });
    const sent = http.send({ path: '/wait', signal: controller.signal, error });
    await expect(sent).rejects.toMatchObject({ code: 'aborted' });
    expect(seen).toHaveLength(1);
  });

  it('counts the timeout across retries', async () => {
    script = [status(503), status(503), status(503), status(503)];
    const http = createHttp({ url, key: 'K', timeout: 100, retryDelay: () => 60_000 });
    await expect(http.send({ path: '/deadline', error })).rejects.toMatchObject({
      code: 'timeout',
    });
    expect(seen).toHaveLength(1);
  });

  it('maps an unserialisable JSON body to invalid_body without sending', async () => {
    const http = createHttp({ url, key: 'K' });
    await expect(
      http.send({
        method: 'POST',
        path: '/j',
        json: { n: 1n, f: () => 1, self: globalThis },
        error,
      }),
    ).rejects.toMatchObject({ code: 'invalid_body' });
    expect(seen).toHaveLength(0);
  });
});

describe('the Node transport of upload sends', () => {
  const transport = nodeFetch as Fetch;
  const echo: Answer = (req, res) => {
    const pieces: Buffer[] = [];
    req.on('data', (p: Buffer) => pieces.push(p));
    req.on('end', () =>
      res
        .writeHead(201, { 'x-length': req.headers['content-length'] ?? '', 'x-a': 'b' })
        .end(Buffer.concat(pieces)),
    );
  };

  it('sends the layer headers and a byte body with its length; answers status, headers, body', async () => {
    script = [echo];
    const http = createHttp({ url, key: 'K' });
    const body = new Uint8Array([1, 2, 3]);
    const res = await http.send({
      method: 'PATCH',
      path: '/b',
      body,
      retry: false,
      transport,
      error,
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-length')).toBe('3');
    expect(res.headers.get('x-a')).toBe('b');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(body);
    expect(seen[0]?.headers).toMatchObject({ apikey: 'K', authorization: 'Bearer K' });
  });

  it('streams a streamed body piece by piece', async () => {
    script = [echo];
    const http = createHttp({ url, key: 'K' });
    const body: StreamedBody = {
      length: 6,
      async writeTo(write) {
        await write(new Uint8Array([1, 2]));
        await write(new Uint8Array([3, 4, 5, 6]));
      },
      bytes: async () => new Uint8Array(0),
    };
    const res = await http.send({
      method: 'PATCH',
      path: '/s',
      body: body as unknown as BodyInit,
      retry: false,
      transport,
      error,
    });
    expect(res.headers.get('x-length')).toBe('6');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3, 4, 5, 6]));
  });

  it('answers a bodiless status and HEAD without a body', async () => {
    script = [status(204, { 'upload-offset': '7' }), status(200, { 'upload-offset': '8' })];
    const http = createHttp({ url, key: 'K' });
    const a = await http.send({ method: 'PATCH', path: '/n', retry: false, transport, error });
    expect([a.status, a.headers.get('upload-offset'), await a.text()]).toEqual([204, '7', '']);
    const b = await http.send({ method: 'HEAD', path: '/n', retry: false, transport, error });
    expect([b.status, b.headers.get('upload-offset')]).toEqual([200, '8']);
  });

  it('maps a timeout, an abort and a refused connection like fetch', async () => {
    const late: Answer = (_req, res) => setTimeout(() => res.end('late'), 500);
    script = [late, late];
    const http = createHttp({ url, key: 'K' });
    const slow = { method: 'HEAD', path: '/slow', retry: false, transport, error };
    await expect(http.send({ ...slow, timeout: 50 })).rejects.toMatchObject({ code: 'timeout' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    await expect(http.send({ ...slow, signal: controller.signal })).rejects.toMatchObject({
      code: 'aborted',
    });
    const closed = createHttp({ url: 'http://127.0.0.1:1', key: 'K' });
    await expect(closed.send(slow)).rejects.toMatchObject({ status: 0, code: 'network_error' });
  });

  it('gives way to a fetch of the client', async () => {
    const calls: string[] = [];
    const http = createHttp({
      url,
      key: 'K',
      fetch: (input, init) => {
        calls.push(String(input));
        return fetch(input, init);
      },
    });
    await http.send({ path: '/f', retry: false, transport, error });
    expect(calls).toEqual([`${url}/f`]);
  });
});
