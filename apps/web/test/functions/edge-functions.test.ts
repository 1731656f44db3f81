/**
 * Drive's functions (backend/functions/<name>/index.ts) run on the hosted edge runtime as
 * they are: they may use `Deno.serve`, `Deno.env.get` and Web APIs, and nothing else. Each is
 * bundled for a neutral platform (an import of a Node built-in or a package fails to
 * resolve) and loaded in a fresh JavaScript realm that has only that surface — no `process`,
 * `Buffer`, `require` or `global` — then called against a real backend, next to the same
 * function served by our runtime at /functions/v1/<name>: both answer alike.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createContext, runInContext } from 'node:vm';
import { type RunningServer, startServer } from '@app/backend-server';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const backend = fileURLToPath(new URL('../../backend', import.meta.url));
const functions = readdirSync(`${backend}/functions`, { withFileTypes: true })
  .filter((d) => d.isDirectory() && !d.name.startsWith('_'))
  .map((d) => d.name);

/** The Web APIs a function may use (the hosted runtime's standard globals). */
const WEB = [
  'fetch',
  'Request',
  'Response',
  'Headers',
  'URL',
  'URLSearchParams',
  'TextEncoder',
  'TextDecoder',
  'crypto',
  'atob',
  'btoa',
  'console',
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'queueMicrotask',
  'structuredClone',
  'AbortController',
  'AbortSignal',
  'Blob',
  'File',
  'FormData',
  'ReadableStream',
  'WritableStream',
  'TransformStream',
  'Event',
  'EventTarget',
  'performance',
] as const;

type Handler = (request: Request) => Response | Promise<Response>;

/** Loads a function in a realm with only `Deno.serve`, `Deno.env.get` and the Web APIs. */
async function loadOnWebSurface(name: string, env: Record<string, string>): Promise<Handler> {
  const bundle = await build({
    entryPoints: [`${backend}/functions/${name}/index.ts`],
    bundle: true,
    platform: 'neutral',
    format: 'iife',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    // Packages the hosted runtime fetches (`npm:…`), imported dynamically where they are used.
    external: ['npm:*'],
  });
  let handler: Handler | null = null;
  const globals: Record<string, unknown> = {};
  for (const key of WEB) globals[key] = (globalThis as Record<string, unknown>)[key];
  globals.Deno = {
    serve(first: Handler | { handler?: Handler }, second?: Handler) {
      handler = typeof first === 'function' ? first : (second ?? first.handler ?? null);
    },
    env: { get: (key: string) => env[key] },
  };
  const realm = createContext(globals);
  runInContext(bundle.outputFiles[0]?.text ?? '', realm, { filename: `${name}/index.ts` });
  for (const absent of ['process', 'Buffer', 'require', 'global', 'setImmediate']) {
    expect(runInContext(`typeof ${absent}`, realm)).toBe('undefined');
  }
  if (!handler) throw new Error(`${name} did not call Deno.serve(handler)`);
  return handler;
}

describe('Drive’s functions on the edge runtime’s surface only', () => {
  let server: RunningServer;
  let token = '';
  beforeAll(async () => {
    server = await startServer({
      projectDir: backend,
      port: 0,
      log: false,
      functions: { env: { DRIVE_SITE_URL: 'http://app.test' } },
    });
    // A shared file: a ready row with its stored object, and a live share of it.
    const { rows } = await server.db.query<{ token: string }>(
      `with owner as (select id from auth.users where email = 'demo@example.com'),
       file as (
         insert into public.files (owner_id, name, size, mime_type)
         select id, 'report.pdf', 3, 'application/pdf' from owner returning id, owner_id, object_path
       ),
       object as (
         insert into storage.objects (bucket_id, name, owner_id)
         select 'files', object_path, owner_id::text from file returning 1
       )
       insert into public.shares (file_id, owner_id, expires_at)
       select id, owner_id, now() + interval '1 hour' from file, (select count(*) from object) o
       returning token`,
    );
    token = rows[0]?.token ?? '';
    await server.db.query("update public.files set status = 'ready' where name = 'report.pdf'");
  });
  afterAll(() => server?.stop());

  it('has functions to check', () => {
    expect(functions).toContain('share');
  });

  for (const name of functions) {
    it(`${name}: loads with nothing but Deno.serve, Deno.env and Web APIs, and answers as our runtime does`, async () => {
      const env = {
        SUPABASE_URL: server.url,
        SUPABASE_ANON_KEY: server.anonKey,
        SUPABASE_SERVICE_ROLE_KEY: server.serviceRoleKey,
        DRIVE_SITE_URL: 'http://app.test',
      };
      const handler = await loadOnWebSurface(name, env);
      const calls: Array<[string, RequestInit]> = [
        ['', { method: 'OPTIONS' }],
        ['', { method: 'POST', body: JSON.stringify({ token: 'nope' }) }],
        ['', { method: 'POST', body: JSON.stringify({ token: '0'.repeat(64) }) }],
        [`?token=${token}`, { method: 'GET' }],
        ['', { method: 'DELETE' }],
      ];
      const statuses: number[] = [];
      for (const [query, init] of calls) {
        // The anon key as the bearer too, as the SDK sends it: past the gateway's verify_jwt.
        const headers = {
          apikey: server.anonKey,
          authorization: `Bearer ${server.anonKey}`,
          'content-type': 'application/json',
        };
        const direct = await handler(
          new Request(`http://edge.local/${name}${query}`, { ...init, headers }),
        );
        const served = await fetch(`${server.url}/functions/v1/${name}${query}`, {
          ...init,
          headers,
        });
        const [a, b] = [await direct.text(), await served.text()];
        statuses.push(direct.status);
        const shape = (text: string) => {
          try {
            const json = JSON.parse(text) as Record<string, unknown>;
            return Object.fromEntries(
              Object.entries(json).map(([k, v]) => [
                k,
                // Per call: a signed URL, a link's visitor session and its end.
                ['url', 'session', 'sessionExpiresAt'].includes(k) ? typeof v : v,
              ]),
            );
          } catch {
            return text;
          }
        };
        expect({ call: `${init.method} ${query}`, status: direct.status, body: shape(a) }).toEqual({
          call: `${init.method} ${query}`,
          status: served.status,
          body: shape(b),
        });
      }
      // Every path of the function was taken: CORS, bad and unknown tokens, a live share.
      if (name === 'share') expect(statuses).toEqual([200, 400, 404, 200, 405]);
      // notify: CORS; the anon key is nobody's session; only POST.
      if (name === 'notify') expect(statuses).toEqual([200, 401, 401, 405, 405]);
      if (name === 'search-index') expect(statuses).toEqual([200, 401, 401, 405, 405]);
    });
  }
});
