import { writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import {
  FunctionsHttpError,
  FunctionsRelayError,
  type SupabaseClient,
} from '@supabase/supabase-js';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { startTestServer } from '../support/server';
import { client, functionLog, userToken, writeProject } from './support';

const FUNCTIONS: Record<string, string> = {
  // Style 1: a default-exported handler; reports what it received.
  'echo/index.ts': `
    export default async (req: Request): Promise<Response> => {
      const url = new URL(req.url);
      const bytes = new Uint8Array(await req.arrayBuffer());
      return Response.json({
        method: req.method,
        path: url.pathname,
        search: url.search,
        contentType: req.headers.get('content-type'),
        custom: req.headers.get('x-custom'),
        authorization: req.headers.get('authorization'),
        apikey: req.headers.get('apikey'),
        clientInfo: req.headers.get('x-client-info'),
        text: new TextDecoder().decode(bytes),
        length: bytes.length,
      });
    };`,
  // Sends the body back as bytes, with the type it came with in a header.
  'mirror/index.ts': `
    export default {
      async fetch(req: Request) {
        return new Response(await req.arrayBuffer(), {
          headers: {
            'content-type': 'application/octet-stream',
            'x-received-type': req.headers.get('content-type') ?? '',
          },
        });
      },
    };`,
  // Pipes the request body straight back as the response body.
  'pipe/index.ts': `
    export default (req: Request) =>
      new Response(req.body, { headers: { 'content-type': 'application/octet-stream' } });`,
  // Never yields: stopped by the CPU limit long before the 150 s wall-clock limit.
  'spin/index.ts': `
    export default () => { for (;;) {} };`,
  'text/index.js': `
    export default () => new Response('plain words', { headers: { 'content-type': 'text/plain; charset=utf-8' } });`,
  'cookies/index.ts': `
    export default () => {
      const headers = new Headers({ 'content-type': 'text/plain' });
      headers.append('set-cookie', 'a=1; Path=/');
      headers.append('set-cookie', 'b=2; Path=/; HttpOnly');
      return new Response('two cookies', { status: 201, headers });
    };`,
  'teapot/index.ts': `
    export default () => Response.json({ error: 'short and stout' }, { status: 418, headers: { 'x-kind': 'teapot' } });`,
  // Style 2: code written for the hosted runtime.
  'hosted/index.ts': `
    import "jsr:@supabase/functions-js/edge-runtime.d.ts";
    import { decodeJwt } from "npm:jose@6";
    Deno.serve(async (req: Request) => {
      const token = req.headers.get('authorization')?.replace('Bearer ', '') ?? '';
      return new Response(JSON.stringify({
        url: Deno.env.get('SUPABASE_URL'),
        role: decodeJwt(token).role,
        cwdFile: (await Deno.readTextFile('./data.txt')).trim(),
      }), { headers: { 'Content-Type': 'application/json' } });
    });`,
  'hosted/data.txt': 'beside the function\n',
  'std/index.ts': `
    import { serve } from "https://deno.land/std@0.168.0/http/server.ts";
    serve((_req: Request) => new Response("served by std"));`,
  // TypeScript with a relative import from a shared folder.
  'greet/index.ts': `
    import { greeting, type Shout } from '../_shared/greeting.ts';
    const shout: Shout = (s) => s.toUpperCase();
    export default async (req: Request) => {
      const { name } = (await req.json()) as { name: string };
      return Response.json({ message: shout(greeting(name)) });
    };`,
  '_shared/greeting.ts': `
    export type Shout = (text: string) => string;
    export function greeting(name: string): string { return 'hello ' + name; }`,
  'env/index.ts': `
    export default () => Response.json(Deno.env.toObject());`,
  '.env': 'MY_SECRET="from dotenv"\n# a comment\nSUPABASE_URL=http://not-allowed\nOTHER=2\n',
  // verify_jwt off through config.toml.
  'public/index.ts': `
    export default (req: Request) => Response.json({ authorization: req.headers.get('authorization') });`,
  // verify_jwt off through the server option.
  'webhook/index.ts': `
    export default () => new Response('hooked');`,
  // Answers its own preflight (CORS is the function's job).
  'cors/index.ts': `
    const cors = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': 'authorization, x-client-info, apikey, content-type' };
    Deno.serve((req) => req.method === 'OPTIONS'
      ? new Response('ok', { headers: cors })
      : Response.json({ ok: true }, { headers: cors }));`,
  // Server-sent events: the second event waits for a call to /sse/release.
  'sse/index.ts': `
    let release: (() => void) | null = null;
    export default (req: Request) => {
      if (new URL(req.url).pathname.endsWith('/release')) {
        release?.();
        return new Response('released');
      }
      const gate = new Promise<void>((r) => { release = r; });
      const enc = new TextEncoder();
      const body = new ReadableStream({
        async start(controller) {
          controller.enqueue(enc.encode('data: one\\n\\n'));
          await gate;
          controller.enqueue(enc.encode('data: two\\n\\n'));
          controller.close();
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    };`,
  // Calls back into the server with the service role.
  'callback/index.ts': `
    export default async () => {
      const res = await fetch(Deno.env.get('SUPABASE_URL') + '/functions/v1/echo/inner?from=callback', {
        method: 'POST',
        headers: { Authorization: 'Bearer ' + Deno.env.get('SUPABASE_SERVICE_ROLE_KEY'), 'content-type': 'text/plain' },
        body: 'nested',
      });
      return Response.json({ status: res.status, inner: await res.json() });
    };`,
  // Answers after the first request-body chunk, then counts the rest as it streams in.
  'count/index.ts': `
    export default async (req: Request) => {
      const reader = req.body!.getReader();
      let total = (await reader.read()).value?.length ?? 0;
      const enc = new TextEncoder();
      return new Response(new ReadableStream({
        async start(controller) {
          controller.enqueue(enc.encode('first:' + total + '\\n'));
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            total += value.length;
          }
          controller.enqueue(enc.encode('total:' + total + '\\n'));
          controller.close();
        },
      }));
    };`,
  // Ticks until the client goes away; /ticker/status tells whether it noticed.
  'ticker/index.ts': `
    let cancelled = false;
    let aborted = false;
    export default (req: Request) => {
      if (new URL(req.url).pathname.endsWith('/status')) return Response.json({ cancelled, aborted });
      req.signal.addEventListener('abort', () => { aborted = true; });
      let timer: ReturnType<typeof setInterval>;
      return new Response(new ReadableStream({
        start(controller) {
          timer = setInterval(() => controller.enqueue(new TextEncoder().encode('tick\\n')), 20);
        },
        cancel() { cancelled = true; clearInterval(timer); },
      }));
    };`,
  // Import maps: the function's deno.jsonc, and import_map.json shared by all functions.
  'mapped/index.ts': `
    import { decodeJwt } from 'jose';
    import { double } from '@shared/math.ts';
    import { triple } from 'shared-math';
    export default (req: Request) => Response.json({
      role: decodeJwt(req.headers.get('authorization')!.slice(7)).role,
      six: double(3),
      nine: triple(3),
    });`,
  'mapped/deno.jsonc': `{
    // per function
    "imports": { "jose": "npm:jose@6", "@shared/": "../_shared/", },
  }`,
  'import_map.json': '{ "imports": { "shared-math": "./_shared/math.ts" } }',
  '_shared/math.ts': `
    export const double = (n: number) => n * 2;
    export const triple = (n: number) => n * 3;`,
  // The hosted pattern: supabase-js with the service role, back into this server's storage.
  'share/index.ts': `
    import { createClient } from 'npm:@supabase/supabase-js@2';
    Deno.serve(async (req) => {
      const { bucket, path } = await req.json();
      const admin = createClient(Deno.env.get('SUPABASE_URL')!, Deno.env.get('SUPABASE_SERVICE_ROLE_KEY')!, {
        auth: { persistSession: false },
      });
      const { data, error } = await admin.storage.from(bucket).createSignedUrl(path, 60);
      if (error) return Response.json({ error: error.message }, { status: 400 });
      return Response.json({ signedUrl: data.signedUrl });
    });`,
  // Recompiled when its file changes (rewritten by a test).
  'version/index.ts': `export default () => new Response('v1');`,
};

const CPU_TIME_MS = 1000;

const CONFIG_TOML = `
[api]
port = 54321

[functions.public]
verify_jwt = false   # open

[functions.webhook]
verify_jwt = true
`;

describe('functions: invoke, both styles, bodies, env, verify_jwt, streaming', () => {
  let server: RunningServer;
  let functionsDir: string;
  let anon: SupabaseClient;
  let url: (path: string) => string;

  beforeAll(async () => {
    ({ functionsDir } = await writeProject(FUNCTIONS, CONFIG_TOML));
    server = await startTestServer({
      functionsDir,
      functions: { verifyJwt: { webhook: false }, cpuTimeMs: CPU_TIME_MS },
    });
    anon = client(server);
    url = (path) => `${server.url}/functions/v1/${path}`;
  });
  afterAll(() => server?.stop());

  it('sends a JSON body and parses a JSON answer (supabase-js)', async () => {
    const { data, error } = await anon.functions.invoke('echo', { body: { hello: 'world' } });
    expect(error).toBeNull();
    expect(data).toMatchObject({
      method: 'POST',
      path: '/echo',
      search: '',
      contentType: 'application/json',
      text: '{"hello":"world"}',
      authorization: `Bearer ${server.anonKey}`,
      apikey: server.anonKey,
    });
    expect(data.clientInfo).toMatch(/^supabase-js/);
  });

  it('passes text bodies, custom headers and methods; answers text', async () => {
    const put = await anon.functions.invoke('echo', {
      method: 'PUT',
      body: 'some text',
      headers: { 'x-custom': 'yes' },
    });
    expect(put.data).toMatchObject({
      method: 'PUT',
      contentType: 'text/plain',
      custom: 'yes',
      text: 'some text',
    });
    const get = await anon.functions.invoke('echo', { method: 'GET' });
    expect(get.data).toMatchObject({ method: 'GET', length: 0 });
    const text = await anon.functions.invoke('text');
    expect(text.data).toBe('plain words');
  });

  it('round-trips binary ArrayBuffer and Blob bodies unchanged', async () => {
    const bytes = new Uint8Array(300_000).map((_, i) => (i * 7) % 256);
    const fromBuffer = await anon.functions.invoke('mirror', { body: bytes.buffer });
    expect(fromBuffer.error).toBeNull();
    expect(fromBuffer.data).toBeInstanceOf(Blob);
    // Byte for byte, compared by Buffer (a deep toEqual of 300,000 elements holds the event
    // loop for seconds under load, which this in-process server shares).
    const same = (a: ArrayBuffer, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
    expect(same(await (fromBuffer.data as Blob).arrayBuffer(), bytes)).toBe(true);
    expect(fromBuffer.response?.headers.get('x-received-type')).toBe('application/octet-stream');

    // supabase-js 2.109 labels every Blob application/octet-stream unless told otherwise.
    const blob = new Blob([bytes.subarray(0, 1000)], { type: 'image/png' });
    const fromBlob = await anon.functions.invoke('mirror', { body: blob });
    expect(fromBlob.error).toBeNull();
    expect(same(await (fromBlob.data as Blob).arrayBuffer(), bytes.subarray(0, 1000))).toBe(true);
    expect(fromBlob.response?.headers.get('x-received-type')).toBe('application/octet-stream');
    const typed = await anon.functions.invoke('mirror', {
      body: blob,
      headers: { 'Content-Type': 'image/png' },
    });
    expect((typed.data as Blob).size).toBe(1000);
    expect(typed.response?.headers.get('x-received-type')).toBe('image/png');
  });

  it('pipes a large body through the function and back, byte for byte', async () => {
    const size = 8 * 1024 * 1024 + 13;
    const bytes = new Uint8Array(size);
    for (let i = 0; i < size; i += 4096) bytes[i] = (i / 4096) % 251;
    bytes[size - 1] = 7;
    const res = await fetch(url('pipe'), {
      method: 'POST',
      headers: { authorization: `Bearer ${server.anonKey}` },
      body: bytes,
    });
    expect(res.status).toBe(200);
    const back = new Uint8Array(await res.arrayBuffer());
    expect(back.length).toBe(size);
    expect(Buffer.compare(back, bytes)).toBe(0);
  });

  it("passes the function's own error status, headers and body through (FunctionsHttpError)", async () => {
    const { data, error } = await anon.functions.invoke('teapot');
    expect(data).toBeNull();
    expect(error).toBeInstanceOf(FunctionsHttpError);
    const context = (error as FunctionsHttpError).context as Response;
    expect(context.status).toBe(418);
    expect(context.headers.get('x-kind')).toBe('teapot');
    expect(await context.json()).toEqual({ error: 'short and stout' });
  });

  it('passes status and repeated headers through (two set-cookie)', async () => {
    const res = await fetch(url('cookies'), {
      headers: { authorization: `Bearer ${server.anonKey}` },
    });
    expect(res.status).toBe(201);
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/; HttpOnly']);
    expect(await res.text()).toBe('two cookies');
  });

  it('keeps the sub-path and query, and strips /functions/v1', async () => {
    const res = await fetch(url('echo/a/b?x=1&y=two'), {
      headers: { authorization: `Bearer ${server.anonKey}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      method: 'GET',
      path: '/echo/a/b',
      search: '?x=1&y=two',
    });
  });

  it('runs code written for the hosted runtime: Deno.serve, Deno.env, npm: and jsr: imports', async () => {
    const token = await userToken(server);
    const { data, error } = await anon.functions.invoke('hosted', {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(error).toBeNull();
    expect(data).toEqual({
      url: server.url,
      role: 'authenticated',
      cwdFile: 'beside the function',
    });
    const std = await anon.functions.invoke('std');
    expect(std.data).toBe('served by std');
  });

  it('compiles TypeScript with a relative import', async () => {
    const { data } = await anon.functions.invoke('greet', { body: { name: 'ada' } });
    expect(data).toEqual({ message: 'HELLO ADA' });
  });

  it('resolves imports through deno.json(c) and import_map.json', async () => {
    const { data, error } = await anon.functions.invoke('mapped');
    expect(error).toBeNull();
    expect(data).toEqual({ role: 'anon', six: 6, nine: 9 });
  });

  it('recompiles after a file of the function changes', async () => {
    const first = await anon.functions.invoke('version');
    expect(first.data).toBe('v1');
    await writeFile(
      join(functionsDir, 'version/index.ts'),
      `import { greeting } from '../_shared/greeting.ts';\nexport default () => new Response(greeting('v2'));`,
    );
    expect((await anon.functions.invoke('version')).data).toBe('hello v2');
    // A change in an imported file counts too.
    await writeFile(
      join(functionsDir, '_shared/greeting.ts'),
      `export type Shout = (text: string) => string;\nexport function greeting(name: string): string { return 'hi ' + name; }`,
    );
    expect((await anon.functions.invoke('version')).data).toBe('hi v2');
    expect((await anon.functions.invoke('greet', { body: { name: 'x' } })).data).toEqual({
      message: 'HI X',
    });
  });

  it('gives the platform env and functionsDir/.env (SUPABASE_ names reserved)', async () => {
    const { data } = await anon.functions.invoke('env');
    expect(data).toMatchObject({
      SUPABASE_URL: server.url,
      SUPABASE_ANON_KEY: server.anonKey,
      SUPABASE_SERVICE_ROLE_KEY: server.serviceRoleKey,
      MY_SECRET: 'from dotenv',
      OTHER: '2',
    });
    // In-memory PGlite has no URL to give out; the server's own environment stays outside.
    expect(data.SUPABASE_DB_URL).toBeUndefined();
    expect(data.PATH).toBeUndefined();

    // A changed .env reaches the next call (the worker is replaced).
    await writeFile(join(functionsDir, '.env'), 'MY_SECRET=rotated\n');
    const after = await anon.functions.invoke('env');
    expect(after.data).toMatchObject({ MY_SECRET: 'rotated', SUPABASE_URL: server.url });
    expect(after.data.OTHER).toBeUndefined();
  });

  it('verify_jwt: 401 bodies for a missing or invalid token, as relay errors', async () => {
    const missing = await fetch(url('echo'), {
      method: 'POST',
      headers: { apikey: server.anonKey },
    });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('x-relay-error')).toBe('true');
    expect(await missing.json()).toEqual({ code: 401, message: 'Missing authorization header' });

    const expired = await new SignJWT({ role: 'authenticated', sub: crypto.randomUUID() })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(Math.floor(Date.now() / 1000) - 120)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(new TextEncoder().encode(server.jwtSecret));
    for (const authorization of [
      'Bearer not.a.jwt',
      'Bearer x',
      'Basic abc',
      `Bearer ${expired}`,
    ]) {
      const res = await fetch(url('echo'), { method: 'POST', headers: { authorization } });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ code: 401, message: 'Invalid JWT' });
    }
    const otherSecret = client(server, {
      Authorization: `Bearer ${server.anonKey.slice(0, -4)}AAAA`,
    });
    const { error } = await otherSecret.functions.invoke('echo', { body: {} });
    expect(error).toBeInstanceOf(FunctionsRelayError);
    const context = (error as FunctionsRelayError).context as Response;
    expect(context.status).toBe(401);
    expect(await context.json()).toEqual({ code: 401, message: 'Invalid JWT' });
  });

  it('verify_jwt off per function (config.toml, server option); OPTIONS never checked', async () => {
    const open = await fetch(url('public'), { method: 'POST' });
    expect(open.status).toBe(200);
    expect(await open.json()).toEqual({ authorization: null });
    // The option wins over config.toml's `verify_jwt = true`.
    const hook = await fetch(url('webhook'), { method: 'POST' });
    expect(await hook.text()).toBe('hooked');

    const preflight = await fetch(url('cors'), {
      method: 'OPTIONS',
      headers: { origin: 'http://app.test', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(await preflight.text()).toBe('ok');
    const post = await fetch(url('cors'), { method: 'POST' });
    expect(post.status).toBe(401);

    // config.toml is read again when it changes.
    await writeFile(
      join(functionsDir, '..', 'config.toml'),
      CONFIG_TOML.replace('verify_jwt = false   # open', 'verify_jwt = true'),
    );
    expect((await fetch(url('public'), { method: 'POST' })).status).toBe(401);
    await writeFile(join(functionsDir, '..', 'config.toml'), CONFIG_TOML);
    expect((await fetch(url('public'), { method: 'POST' })).status).toBe(200);
  });

  it('streams text/event-stream: the first event arrives before the function finishes', async () => {
    const { data, error } = await anon.functions.invoke('sse', { method: 'GET' });
    expect(error).toBeNull();
    const res = data as Response;
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe('data: one\n\n');
    // The function is still waiting; let it finish.
    expect((await anon.functions.invoke('sse/release')).data).toBe('released');
    let rest = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      rest += decoder.decode(value);
    }
    expect(rest).toBe('data: two\n\n');
  });

  it('streams the request body into the function (it answers before the upload ends)', async () => {
    const target = new URL(url('count'));
    const lines: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(
        target,
        { method: 'POST', headers: { authorization: `Bearer ${server.anonKey}` } },
        (res) => {
          expect(res.statusCode).toBe(200);
          res.setEncoding('utf8');
          res.on('data', (text: string) => {
            lines.push(...text.split('\n').filter(Boolean));
            // Only once the function has answered does the rest of the upload go out.
            if (lines.length === 1) req.end('b'.repeat(200_000));
          });
          res.on('end', resolve);
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.write('a'.repeat(1000));
    });
    expect(lines).toEqual(['first:1000', 'total:201000']);
  });

  it('tells the function when the client goes away (abort signal, body cancelled)', async () => {
    const abort = new AbortController();
    const res = await fetch(url('ticker'), {
      headers: { authorization: `Bearer ${server.anonKey}` },
      signal: abort.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/^tick/);
    abort.abort();
    let status = { cancelled: false, aborted: false };
    for (let i = 0; i < 100 && !(status.cancelled && status.aborted); i++) {
      await new Promise((r) => setTimeout(r, 20));
      status = (await anon.functions.invoke('ticker/status', { method: 'GET' })).data;
    }
    expect(status).toEqual({ cancelled: true, aborted: true });
  });

  it('lets a function call back into the server', async () => {
    const { data, error } = await anon.functions.invoke('callback');
    expect(error).toBeNull();
    expect(data).toMatchObject({
      status: 200,
      inner: { path: '/echo/inner', search: '?from=callback', text: 'nested' },
    });
  });

  it('runs supabase-js inside a function: a service-role signed storage URL', async () => {
    const service = client(server, { Authorization: `Bearer ${server.serviceRoleKey}` });
    const bucket = `share-${crypto.randomUUID().slice(0, 8)}`;
    expect((await service.storage.createBucket(bucket)).error).toBeNull();
    const uploaded = await service.storage
      .from(bucket)
      .upload('docs/note.txt', new Blob(['shared text'], { type: 'text/plain' }));
    expect(uploaded.error).toBeNull();

    const user = client(server, { Authorization: `Bearer ${await userToken(server)}` });
    const { data, error } = await user.functions.invoke('share', {
      body: { bucket, path: 'docs/note.txt' },
    });
    expect(error).toBeNull();
    const download = await fetch(data.signedUrl);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('shared text');
  });

  it('stops a function that never yields at the CPU limit (546), the server unharmed', async () => {
    const res = await fetch(url('spin'), {
      method: 'POST',
      headers: { authorization: `Bearer ${server.anonKey}` },
    });
    expect(res.status).toBe(546);
    expect(await res.json()).toEqual({
      code: 'WORKER_LIMIT',
      message: 'Worker failed to respond due to a resource limit (please check logs)',
    });
    // The CPU limit stopped it (its message is only reported once the worker's event loop has
    // been busy for CPU_TIME_MS), not the wall-clock or the memory limit.
    expect(await functionLog(server, 'spin')).toEqual([
      `CPU time limit of ${CPU_TIME_MS} ms reached (the event loop never went idle), worker stopped`,
    ]);
    expect((await anon.functions.invoke('text')).data).toBe('plain words');
  });

  it('answers 404 "Function not found" for unknown or invalid names', async () => {
    for (const path of ['nope', '_shared', 'nope/deeper', '', '..%2Fecho']) {
      const res = await fetch(url(path), {
        method: 'POST',
        headers: { authorization: `Bearer ${server.anonKey}` },
      });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).toBe('Function not found');
    }
    const { error } = await anon.functions.invoke('nope');
    expect(error).toBeInstanceOf(FunctionsHttpError);
    expect(((error as FunctionsHttpError).context as Response).status).toBe(404);
  });
});
