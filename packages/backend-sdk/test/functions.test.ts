import type { RunningServer } from '@app/backend-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFunctionsError } from '../src/errors';
import { createFunctionsClient, type InvokeOptions } from '../src/functions/index';
import { officialClient } from './support/official';
import { type Recorded, recordingFetch } from './support/record';
import { startSdkServer } from './support/server';

let server: RunningServer;
beforeAll(async () => {
  server = await startSdkServer();
});
afterAll(async () => {
  await server?.stop();
});

const wire = (r: Recorded) => {
  const h: Record<string, string> = {};
  for (const k of ['content-type', 'x-region', 'x-custom', 'apikey', 'authorization'])
    if (r.headers[k] !== undefined) h[k] = r.headers[k];
  return { method: r.method, path: r.path, query: r.query, headers: h, body: r.body };
};

/** Comparable form of a decoded body. */
async function plain(data: unknown): Promise<unknown> {
  if (data instanceof Blob) return { blob: await data.text(), type: data.type };
  if (data && typeof data === 'object' && 'body' in data && 'status' in data)
    return { stream: await (data as Response).text() };
  return data;
}

async function both(name: string, options: InvokeOptions) {
  const ours = recordingFetch();
  const theirs = recordingFetch();
  const functions = createFunctionsClient(server.url, server.anonKey, { fetch: ours.fetch });
  const official = officialClient(server.url, server.anonKey, { fetch: theirs.fetch });
  const a = await functions.invoke(name, options);
  const b = await official.functions.invoke(name, options as never);
  return { a, b, ours: ours.log.map(wire), theirs: theirs.log.map(wire) };
}

describe('functions.invoke conformance with the official client', () => {
  const cases: [string, string, () => InvokeOptions][] = [
    ['JSON body', 'echo', () => ({ body: { name: 'x' }, headers: { 'x-custom': '1' } })],
    ['text body', 'echo', () => ({ body: 'hello' })],
    ['array buffer body', 'mirror', () => ({ body: new TextEncoder().encode('raw').buffer })],
    ['GET with region', 'echo', () => ({ method: 'GET', region: 'us-east-1' })],
    [
      'caller content type',
      'echo',
      () => ({ body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
    ],
    ['subpath', 'echo/deeper/path', () => ({ body: { a: 1 } })],
    ['text response', 'text', () => ({})],
    ['event stream', 'events', () => ({})],
  ];
  it.each(cases)('%s', async (_label, name, options) => {
    const r = await both(name, options());
    expect(r.a.error).toBeNull();
    expect(r.b.error).toBeNull();
    expect(await plain(r.a.data)).toEqual(await plain(r.b.data));
    expect(r.ours).toEqual(r.theirs);
  });

  it('a Blob goes with its own type (§5.1; supabase-js 2.109 sends application/octet-stream)', async () => {
    const r = await both('echo', { body: new Blob(['blob bytes'], { type: 'text/x-custom' }) });
    expect(r.a.data).toMatchObject({ contentType: 'text/x-custom', text: 'blob bytes' });
    expect(r.b.data).toMatchObject({ contentType: 'application/octet-stream', text: 'blob bytes' });
    expect({ ...r.ours[0], headers: {} }).toEqual({ ...r.theirs[0], headers: {} });
  });

  it('HTTP errors carry the parsed body', async () => {
    const r = await both('teapot', {});
    expect(r.b.error?.name).toBe('FunctionsHttpError');
    const body = await (r.b.error as { context: Response }).context.json();
    expect(isFunctionsError(r.a.error)).toBe(true);
    expect(r.a.error).toMatchObject({ type: 'http', status: 418, code: 'teapot', body });
    expect(r.a.error?.message).toBe(r.b.error?.message);
    expect(r.a.error?.name).toBe('FunctionsHttpError');
    // context: the raw Response, body unread, as supabase-js code reads it.
    const context = r.a.error?.context as Response;
    expect(context.status).toBe(418);
    expect(context.bodyUsed).toBe(false);
    expect(await context.json()).toEqual(body);
    expect(r.a.response).toBe(context);
  });

  it('relay errors are reported whatever the status', async () => {
    const r = await both('relay', {});
    expect(r.b.error?.name).toBe('FunctionsRelayError');
    expect(r.a.error).toMatchObject({
      type: 'relay',
      status: 200,
      body: { message: 'relay failed' },
    });
    expect(r.a.error?.message).toBe(r.b.error?.message);
  });

  it('an unknown function is an HTTP error with the text body', async () => {
    const r = await both('does-not-exist', {});
    expect(r.b.error?.name).toBe('FunctionsHttpError');
    expect(r.a.error).toMatchObject({ type: 'http', status: 404 });
    expect(r.a.error?.body).toBe(await (r.b.error as { context: Response }).context.text());
  });

  it('a throwing function is an HTTP error with the runtime body', async () => {
    const r = await both('fail', {});
    expect(r.a.error).toMatchObject({ type: 'http', status: r.b.response?.status });
  });
});

describe('functions.invoke failures before a response', () => {
  it('network failure → fetch error, no rejection', async () => {
    const functions = createFunctionsClient('http://127.0.0.1:9', 'key');
    const { data, error, response } = await functions.invoke('echo', { body: { a: 1 } });
    expect({ data, response }).toEqual({ data: null, response: null });
    expect(error).toMatchObject({ type: 'fetch', status: 0, code: 'network_error' });
  });

  it('timeout → fetch error with code timeout', async () => {
    const functions = createFunctionsClient(server.url, server.anonKey);
    const { error } = await functions.invoke('slow', { timeout: 50 });
    expect(error).toMatchObject({ type: 'fetch', code: 'timeout', status: 0 });
    expect((await functions.invoke('slow')).data).toBe('late');
  });

  it('aborted signal → fetch error with code aborted', async () => {
    const functions = createFunctionsClient(server.url, server.anonKey);
    const controller = new AbortController();
    controller.abort();
    const { error } = await functions.invoke('echo', { signal: controller.signal });
    expect(error).toMatchObject({ type: 'fetch', code: 'aborted' });
  });

  it('unserialisable body → fetch error with code invalid_body', async () => {
    const functions = createFunctionsClient(server.url, server.anonKey);
    const body: Record<string, unknown> = {};
    body.self = body;
    const { error } = await functions.invoke('echo', { body });
    expect(error).toMatchObject({ type: 'fetch', code: 'invalid_body' });
  });

  it('sends no Authorization with a new-format key and no session', async () => {
    const rec = recordingFetch(
      async () => new Response('{}', { headers: { 'content-type': 'application/json' } }),
    );
    const functions = createFunctionsClient(server.url, 'sb_publishable_abc', { fetch: rec.fetch });
    await functions.invoke('echo');
    expect(rec.log[0]?.headers.authorization).toBeUndefined();
    expect(rec.log[0]?.headers.apikey).toBe('sb_publishable_abc');
  });
});
