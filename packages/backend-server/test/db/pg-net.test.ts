import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { dumpDatabase } from '../../src/data/dump';
import { exportProject } from '../../src/data/portable';
import { wipeDatabase } from '../../src/data/wipe';
import { startNetWorker } from '../../src/net/worker';
import { platformScripts, type RunningServer } from '../../src/server';
import { writeProject } from '../functions/support';
import { databaseKind, startTestServer } from '../support/server';
import { until } from '../support/until';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A local HTTP endpoint: `/slow` answers after 2 s, `/hang` never (its path is put in `hungUp`
 * when the client closes the connection), anything else echoes at once.
 */
async function startEndpoint(): Promise<{
  server: Server;
  url: string;
  seen: Seen[];
  hungUp: string[];
}> {
  const seen: Seen[] = [];
  const hungUp: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const answer = () => {
        res.writeHead(201, { 'content-type': 'application/json', 'x-endpoint': 'yes' });
        res.end(JSON.stringify({ method: req.method, url: req.url }));
      };
      if (req.url?.startsWith('/hang')) res.on('close', () => hungUp.push(req.url ?? ''));
      else if (req.url?.startsWith('/slow')) setTimeout(answer, 2000);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, seen, hungUp };
}

interface ResponseRow {
  id: string;
  status_code: number | null;
  content_type: string | null;
  headers: Record<string, string> | null;
  content: string | null;
  timed_out: boolean | null;
  error_msg: string | null;
}

describe(`pg_net and database webhooks (${databaseKind()})`, () => {
  let server: RunningServer;
  let endpoint: Awaited<ReturnType<typeof startEndpoint>>;

  const answer = async (id: string): Promise<ResponseRow> => {
    for (let i = 0; i < 200; i++) {
      const { rows } = await server.db.query<ResponseRow>(
        'select * from net._http_response where id = $1::bigint',
        [id],
      );
      if (rows[0]) return rows[0];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no answer recorded for request ${id}`);
  };
  const queue = async (sql: string, params: unknown[] = []): Promise<string> => {
    const { rows } = await server.db.query<{ id: string }>(`select ${sql} as id`, params);
    return String(rows[0]?.id);
  };

  beforeAll(async () => {
    endpoint = await startEndpoint();
    const migrationsDir = await mkdtemp(join(tmpdir(), 'pg-net-'));
    await writeFile(
      join(migrationsDir, '0001_net.sql'),
      `create extension if not exists pg_net with schema extensions;
       create table public.items (id bigint primary key, name text);
       create trigger items_webhook after insert or update or delete on public.items
         for each row execute function supabase_functions.http_request(
           '${endpoint.url}/hook', 'POST', '{"Content-Type":"application/json","x-hook":"items"}',
           '{"source":"db"}', '1000');`,
    );
    const { functionsDir } = await writeProject({
      'hello/index.ts': `
        Deno.serve(async (req: Request) => Response.json({
          got: await req.json(),
          auth: req.headers.get('authorization') !== null,
        }));`,
    });
    server = await startTestServer({ migrationsDir, functionsDir });
  });
  afterAll(async () => {
    await server?.stop();
    endpoint?.server.close();
  });

  it('installs as hosted projects do, its API in schema net', async () => {
    const { rows } = await server.db.query<{ schema: string; version: string }>(
      `select n.nspname as schema, e.extversion as version
         from pg_extension e join pg_namespace n on n.oid = e.extnamespace
        where e.extname = 'pg_net'`,
    );
    expect(rows).toEqual([{ schema: 'extensions', version: '0.19.5' }]);
  });

  it('sends a GET with params and headers and records the answer', async () => {
    const id = await queue(
      `net.http_get($1, params := '{"q":"a b","n":"1"}', headers := '{"x-test":"get"}')`,
      [`${endpoint.url}/get`],
    );
    const row = await answer(id);
    expect(row).toMatchObject({
      status_code: 201,
      content_type: 'application/json',
      timed_out: false,
      error_msg: null,
    });
    expect(row.headers?.['x-endpoint']).toBe('yes');
    expect(JSON.parse(row.content ?? '')).toEqual({ method: 'GET', url: '/get?n=1&q=a%20b' });
    const seen = endpoint.seen.find((s) => s.url.startsWith('/get?'));
    expect(seen?.headers['x-test']).toBe('get');
  });

  it('sends a POST with its JSON body, and a DELETE', async () => {
    const post = await queue(`net.http_post($1, '{"hello":"world"}'::jsonb)`, [
      `${endpoint.url}/post`,
    ]);
    const del = await queue(`net.http_delete($1, body := '{"gone":true}'::jsonb)`, [
      `${endpoint.url}/delete`,
    ]);
    expect((await answer(post)).status_code).toBe(201);
    expect((await answer(del)).status_code).toBe(201);
    const seenPost = endpoint.seen.find((s) => s.url === '/post');
    expect(seenPost?.method).toBe('POST');
    expect(seenPost?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seenPost?.body ?? '')).toEqual({ hello: 'world' });
    const seenDelete = endpoint.seen.find((s) => s.url === '/delete');
    expect(seenDelete?.method).toBe('DELETE');
    expect(JSON.parse(seenDelete?.body ?? '')).toEqual({ gone: true });
  });

  it("refuses a POST content type other than JSON, with pg_net's error", async () => {
    await expect(
      server.db.query(
        `select net.http_post($1, '{}'::jsonb, headers := '{"content-type":"text/plain"}')`,
        [endpoint.url],
      ),
    ).rejects.toThrow('Content-Type header must be "application/json"');
  });

  it('records a timeout, an unreachable host and a bad URL, and keeps working', async () => {
    const slow = await queue(`net.http_get($1, timeout_milliseconds := 200)`, [
      `${endpoint.url}/slow`,
    ]);
    // A port nothing listens on any more.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await queue(`net.http_get($1)`, [`http://127.0.0.1:${port}/`]);
    const bad = await queue(`net.http_get('not a url')`);
    const timedOut = await answer(slow);
    expect(timedOut).toMatchObject({ status_code: null, timed_out: true });
    expect(timedOut.error_msg).toMatch(/^Timeout of 200 ms reached/);
    expect(await answer(refused)).toMatchObject({
      status_code: null,
      timed_out: false,
      error_msg: "Couldn't connect to server",
    });
    expect((await answer(bad)).error_msg).toBe('URL using bad/illegal format or missing URL');
    const after = await queue('net.http_get($1)', [`${endpoint.url}/after`]);
    expect((await answer(after)).status_code).toBe(201);
    const { rows } = await server.db.query<{ status: string; message: string }>(
      `select (r).status::text as status, (r).message from net._http_collect_response($1::bigint) r`,
      [refused],
    );
    expect(rows[0]).toEqual({ status: 'ERROR', message: "Couldn't connect to server" });
  });

  it('sends nothing for a rolled back transaction', async () => {
    await expect(
      server.db.transaction(async (tx) => {
        await tx.query('select net.http_get($1)', [`${endpoint.url}/rolled-back`]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const marker = await queue('net.http_get($1)', [`${endpoint.url}/committed`]);
    await answer(marker);
    expect(endpoint.seen.some((s) => s.url === '/rolled-back')).toBe(false);
    const { rows } = await server.db.query(
      `select 1 from net.http_request_queue where url like '%/rolled-back'`,
    );
    expect(rows).toEqual([]);
  });

  it('posts the hosted webhook payload for insert, update and delete', async () => {
    const admin = createClient(server.url, server.serviceRoleKey, {
      auth: { persistSession: false },
      realtime: { transport: WebSocket as never },
    });
    expect((await admin.from('items').insert({ id: 1, name: 'one' })).error).toBeNull();
    expect((await admin.from('items').update({ name: 'uno' }).eq('id', 1)).error).toBeNull();
    expect((await admin.from('items').delete().eq('id', 1)).error).toBeNull();
    const hooks = await server.db.query<{ hook_name: string; request_id: string }>(
      `select hook_name, request_id::text from supabase_functions.hooks
        where hook_table_id = 'public.items'::regclass::oid order by id`,
    );
    expect(hooks.rows.map((h) => h.hook_name)).toEqual([
      'items_webhook',
      'items_webhook',
      'items_webhook',
    ]);
    for (const hook of hooks.rows) await answer(hook.request_id);
    const posts = endpoint.seen.filter((s) => s.url.startsWith('/hook'));
    expect(posts.map((p) => p.url)).toEqual(Array(3).fill('/hook?source=db'));
    expect(posts[0]?.headers['x-hook']).toBe('items');
    expect(posts.map((p) => JSON.parse(p.body))).toEqual([
      {
        type: 'INSERT',
        table: 'items',
        schema: 'public',
        record: { id: 1, name: 'one' },
        old_record: null,
      },
      {
        type: 'UPDATE',
        table: 'items',
        schema: 'public',
        record: { id: 1, name: 'uno' },
        old_record: { id: 1, name: 'one' },
      },
      {
        type: 'DELETE',
        table: 'items',
        schema: 'public',
        record: null,
        old_record: { id: 1, name: 'uno' },
      },
    ]);
  });

  it("calls the server's own edge function through the local stack's gateway URL", async () => {
    const id = await queue(
      `net.http_post('http://host.docker.internal:54321/functions/v1/hello', '{"n":1}'::jsonb,
         headers := jsonb_build_object('Content-Type', 'application/json',
           'Authorization', 'Bearer ' || $1::text))`,
      [server.serviceRoleKey],
    );
    const row = await answer(id);
    expect(row.status_code).toBe(200);
    expect(JSON.parse(row.content ?? '')).toEqual({ got: { n: 1 }, auth: true });
    const direct = await queue(`net.http_get($1 || '/functions/v1/hello')`, [server.url]);
    // No key: the gateway's own answer (verify_jwt), recorded as any other.
    expect((await answer(direct)).status_code).toBe(401);
  });

  it.runIf(databaseKind() === 'postgres')(
    'sends each request once with two servers on one database',
    async () => {
      const second = await startTestServer({ databaseUrl: server.db.url ?? '' });
      try {
        const { rows } = await server.db.query<{ id: string }>(
          `select net.http_get($1 || '/replica/' || n)::text as id from generate_series(1, 40) n`,
          [endpoint.url],
        );
        for (const row of rows) await answer(row.id);
        const seen = endpoint.seen.filter((s) => s.url.startsWith('/replica/'));
        expect(seen).toHaveLength(40);
        expect(new Set(seen.map((s) => s.url)).size).toBe(40);
        const counted = await server.db.query<{ n: number }>(
          'select count(*)::int as n from net._http_response where id = any($1::bigint[])',
          [rows.map((r) => r.id)],
        );
        expect(counted.rows[0]?.n).toBe(40);
      } finally {
        await second.stop();
      }
    },
  );

  it('dumps the extension and the webhook, and both work after export and import', async () => {
    const dump = Buffer.concat((await dumpDatabase(server.db)).chunks).toString('utf8');
    expect(dump).toContain('create extension if not exists "pg_net" with schema "extensions";');
    expect(dump).toMatch(/supabase_functions\.http_request\(/);
    expect(dump).not.toMatch(/create table "net"\./i);
    expect(dump).not.toContain('create schema if not exists "net"');
    const backup = join(await mkdtemp(join(tmpdir(), 'pg-net-export-')), 'backup');
    await exportProject(server.db, server.storageDir, backup);
    const copy = await startTestServer({ importFile: backup });
    try {
      await copy.db.query(`insert into public.items (id, name) values (7, 'copied')`);
      const { rows } = await copy.db.query<{ request_id: string }>(
        'select request_id::text from supabase_functions.hooks order by id desc limit 1',
      );
      for (let i = 0; i < 200; i++) {
        const done = await copy.db.query('select 1 from net._http_response where id = $1::bigint', [
          rows[0]?.request_id,
        ]);
        if (done.rows.length > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const posted = endpoint.seen.filter((s) => s.body.includes('"copied"'));
      expect(posted.map((p) => JSON.parse(p.body).type)).toEqual(['INSERT']);
      // A reset leaves the platform's webhook function and drops the project's pg_net.
      await copy.db.transaction((tx) => wipeDatabase(tx, platformScripts()));
      const { rows: after } = await copy.db.query<{ net: string | null; hook: string | null }>(
        `select to_regnamespace('net')::text as net,
                to_regprocedure('supabase_functions.http_request()')::text as hook`,
      );
      expect(after).toEqual([{ net: null, hook: 'supabase_functions.http_request()' }]);
    } finally {
      await copy.stop();
    }
  });

  it('stops without waiting for a request in flight, and hangs up on it', async () => {
    const other = await startTestServer();
    try {
      await other.db.exec('create extension pg_net');
      // The endpoint never answers and the request may wait 10 minutes (longer than this
      // test may run): stop() returns only if the server lets the request go.
      await other.db.query('select net.http_get($1, timeout_milliseconds := 600000)', [
        `${endpoint.url}/hang/stop`,
      ]);
      await until(async () => endpoint.seen.some((s) => s.url === '/hang/stop'));
    } finally {
      await other.stop();
    }
    await until(async () => endpoint.hungUp.includes('/hang/stop'));
  });

  it('deletes answers older than pg_net.ttl (6 hours by default)', async () => {
    await server.db.query(
      `insert into net._http_response (id, status_code, created)
       values (-1, 200, now() - interval '7 hours'), (-2, 200, now() - interval '5 hours')`,
    );
    const worker = await startNetWorker({ db: server.db, selfUrl: server.url, log: () => {} });
    await worker.stop();
    const { rows } = await server.db.query<{ id: string }>(
      'select id::text from net._http_response where id < 0 order by id',
    );
    expect(rows).toEqual([{ id: '-2' }]);
  });
});
