import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_HEADER } from '../../src/console/index';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';

const assets = mkdtempSync(join(tmpdir(), 'console-assets-'));
mkdirSync(join(assets, 'assets'));
writeFileSync(join(assets, 'index.html'), '<!doctype html><title>console</title>');
writeFileSync(join(assets, 'assets', 'main-abc.js'), 'console.log(1)');

let server: RunningServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer({ console: { assetsDir: assets } });
  token = new URL(server.consoleUrl ?? '').hash.replace('#token=', '');
});
afterAll(async () => {
  await server?.stop();
  rmSync(assets, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers field by field
const read = (res: Response): Promise<any> => res.json();

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${server.url}/_console/api${path}`, {
    ...init,
    headers: { [TOKEN_HEADER]: token, 'content-type': 'application/json', ...init.headers },
  });

describe(`console on loopback (${databaseKind()})`, () => {
  it('prints links whose secret is in the fragment, and serves the app on any route', async () => {
    expect(server.consoleUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_console\/#token=[\w-]{24,}$/);
    expect(server.mailUrl).toBe(server.consoleUrl?.replace('/_console/#', '/_console/mail#'));
    for (const path of ['/_console/', '/_console/mail', '/_console/tables/public/x']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(await res.text()).toContain('<title>console</title>');
    }
    const js = await fetch(`${server.url}/_console/assets/main-abc.js`);
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${server.url}/_console/assets/missing.js`)).status).toBe(404);
    const bare = await fetch(`${server.url}/_console`, { redirect: 'manual' });
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('/_console/');
  });

  it('answers its API only with the secret, never to another origin or host name', async () => {
    const without = await fetch(`${server.url}/_console/api/session`);
    expect(without.status).toBe(401);
    expect((await read(without)).message).toMatch(/console token/);
    const wrong = await fetch(`${server.url}/_console/api/session`, {
      headers: { [TOKEN_HEADER]: 'not-the-token' },
    });
    expect(wrong.status).toBe(401);
    // The service-role key is not a console token.
    const key = await fetch(`${server.url}/_console/api/session`, {
      headers: { [TOKEN_HEADER]: server.serviceRoleKey, apikey: server.serviceRoleKey },
    });
    expect(key.status).toBe(401);

    const crossOrigin = await api('/session', { headers: { origin: 'http://evil.example' } });
    expect(crossOrigin.status).toBe(403);
    const crossSite = await api('/session', { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.status).toBe(403);
    // A DNS name that points at 127.0.0.1 (rebinding) is not loopback to the console.
    const rebound = await server.request(`http://evil.example/_console/api/session`, {
      headers: { host: 'evil.example', [TOKEN_HEADER]: token },
    });
    expect(rebound.status).toBe(403);
    const preflight = await fetch(`${server.url}/_console/api/sql`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': TOKEN_HEADER,
      },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();

    const sameOrigin = await api('/session', { headers: { origin: server.url } });
    expect(sameOrigin.status).toBe(200);
    const session = await read(sameOrigin);
    expect(session).toMatchObject({
      url: server.url,
      anonKey: server.anonKey,
      serviceRoleKey: server.serviceRoleKey,
    });
    expect(session.settings.database).toBe(databaseKind());
    expect(sameOrigin.headers.get('cache-control')).toBe('no-store');
  });

  it('runs SQL as the superuser and places an error in the script', async () => {
    const ok = await api('/sql', {
      method: 'POST',
      body: JSON.stringify({
        query: `-- two statements
create table public.console_sql (id int primary key, note text);
insert into public.console_sql values (1, 'a;b'), (2, $$c;d$$);
select id, note from public.console_sql order by id;`,
      }),
    });
    expect(ok.status).toBe(200);
    const { results } = await read(ok);
    expect(results.map((r: { command: string }) => r.command)).toEqual([
      'CREATE',
      'INSERT',
      'SELECT',
    ]);
    expect(results[1].rowCount).toBe(2);
    expect(results[2]).toMatchObject({
      columns: ['id', 'note'],
      rows: [
        [1, 'a;b'],
        [2, 'c;d'],
      ],
      rowCount: 2,
      truncated: false,
    });

    const script = 'select 1;\nselect nope from public.console_sql;';
    const bad = await api('/sql', { method: 'POST', body: JSON.stringify({ query: script }) });
    expect(bad.status).toBe(400);
    const { error } = await read(bad);
    expect(error).toMatchObject({ code: '42703', statement: 1, line: 2, column: 8 });
    expect(script.slice(error.position - 1).startsWith('nope')).toBe(true);

    // A failing script changes nothing: the statements before the error are rolled back.
    const partial = await api('/sql', {
      method: 'POST',
      body: JSON.stringify({ query: 'delete from public.console_sql; select 1/0;' }),
    });
    expect(partial.status).toBe(400);
    const count = await server.db.query<{ n: number }>(
      'select count(*)::int as n from public.console_sql',
    );
    expect(count.rows[0]?.n).toBe(2);

    const notJson = await api('/sql', { method: 'POST', body: 'select 1' });
    expect(notJson.status).toBe(400);
  });

  it('describes tables and turns RLS on and off', async () => {
    await server.db.exec(`
      create type public.console_mood as enum ('happy', 'sad');
      create table public.console_detail (
        id bigint generated always as identity primary key,
        mood public.console_mood not null default 'happy',
        body jsonb,
        doubled int generated always as (id * 2) stored
      );
      create index console_detail_mood on public.console_detail (mood);
      alter table public.console_detail enable row level security;
      create policy "read all" on public.console_detail for select to anon, authenticated using (true);
    `);
    const list = await read(await api('/tables'));
    expect(list.schemas).toEqual(expect.arrayContaining(['public', 'auth', 'storage']));
    expect(list.tables).toContainEqual(
      expect.objectContaining({
        schema: 'public',
        name: 'console_detail',
        kind: 'table',
        rls: true,
      }),
    );
    const detail = await read(await api('/tables/public/console_detail'));
    expect(detail.exposed).toBe(true);
    expect(detail.primaryKey).toEqual(['id']);
    expect(detail.columns).toEqual([
      expect.objectContaining({ name: 'id', type: 'bigint', identity: 'always', nullable: false }),
      expect.objectContaining({
        name: 'mood',
        category: 'E',
        enumValues: ['happy', 'sad'],
        default: "'happy'::console_mood",
      }),
      expect.objectContaining({ name: 'body', udt: 'jsonb', nullable: true }),
      expect.objectContaining({ name: 'doubled', generated: true }),
    ]);
    expect(detail.indexes.map((i: { name: string }) => i.name)).toEqual([
      'console_detail_pkey',
      'console_detail_mood',
    ]);
    expect(detail.policies).toEqual([
      {
        name: 'read all',
        command: 'SELECT',
        permissive: true,
        roles: ['anon', 'authenticated'],
        using: 'true',
        check: null,
      },
    ]);
    const off = await api('/tables/public/console_detail/rls', {
      method: 'POST',
      body: JSON.stringify({ enabled: false }),
    });
    expect(off.status).toBe(200);
    const after = await read(await api('/tables/public/console_detail'));
    expect(after.rls).toBe(false);
    expect((await api('/tables/public/nope')).status).toBe(404);
    const bad = await api('/tables/public/nope";drop table x;--/rls', {
      method: 'POST',
      body: JSON.stringify({ enabled: true }),
    });
    expect(bad.status).toBe(404);
  });

  it('pages rows of schemas the REST API does not expose', async () => {
    await server.db.exec(`
      create schema if not exists console_private;
      create table console_private.items (n int);
      insert into console_private.items select g from generate_series(1, 30) g;
    `);
    const res = await api('/tables/console_private/items/rows?limit=5&offset=10&order=n.desc');
    const page = await read(res);
    expect(page.total).toBe(30);
    expect(page.rows.map((r: { n: string }) => r.n)).toEqual(['20', '19', '18', '17', '16']);
  });

  it('logs every request but its own, with role and user', async () => {
    const before = (await read(await api('/logs'))).lastSeq as number;
    await fetch(`${server.url}/rest/v1/console_sql?select=id`, {
      headers: { apikey: server.anonKey },
    });
    await fetch(`${server.url}/auth/v1/health`, { headers: { apikey: server.anonKey } });
    const { entries } = await read(await api(`/logs?after=${before}`));
    const requests = entries.filter((e: { kind: string }) => e.kind === 'request');
    expect(requests.map((e: { path: string }) => e.path)).toEqual([
      '/rest/v1/console_sql',
      '/auth/v1/health',
    ]);
    expect(requests[0]).toMatchObject({ method: 'GET', status: 200, role: 'anon', user: null });
    expect(requests[0].durationMs).toBeGreaterThanOrEqual(0);
  });

  it('streams the log live as batches of entries', async () => {
    const controller = new AbortController();
    const res = await api(`/logs/stream?after=${Number.MAX_SAFE_INTEGER}`, {
      signal: controller.signal,
    });
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await fetch(`${server.url}/rest/v1/console_sql?select=id&stream=1`, {
      headers: { apikey: server.serviceRoleKey },
    });
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('/rest/v1/console_sql')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    controller.abort();
    const entries = text
      .trim()
      .split('\n')
      .flatMap((line) => JSON.parse(line) as { path?: string; role?: string }[]);
    expect(entries.find((e) => e.path === '/rest/v1/console_sql')?.role).toBe('service_role');
  });

  it('shows the outbox to the console while the raw outbox API keeps its key check', async () => {
    await fetch(`${server.url}/auth/v1/otp`, {
      method: 'POST',
      headers: { apikey: server.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'console-mail@example.com' }),
    });
    const mails = await read(await api('/mail'));
    expect(mails[0]).toMatchObject({ to: 'console-mail@example.com', type: 'magiclink' });
    expect((await fetch(`${server.url}/_dev/mail`)).status).toBe(401);
    expect(
      (await fetch(`${server.url}/_dev/mail`, { headers: { [TOKEN_HEADER]: token } })).status,
    ).toBe(401);
  });
});

describe('console on a public address', () => {
  it('is refused without the flag and a password, and asks for the password with them', async () => {
    const open = await startTestServer({ host: '0.0.0.0', console: { assetsDir: assets } });
    try {
      expect(open.consoleUrl).toBeNull();
      const res = await fetch(`${open.url}/_console/`);
      expect(res.status).toBe(403);
      expect((await read(res)).message).toMatch(/--console-remote/);
    } finally {
      await open.stop();
    }
    const flagOnly = await startTestServer({
      host: '0.0.0.0',
      console: { assetsDir: assets, remote: true },
    });
    try {
      expect((await fetch(`${flagOnly.url}/_console/`)).status).toBe(403);
    } finally {
      await flagOnly.stop();
    }
    const remote = await startTestServer({
      host: '0.0.0.0',
      console: { assetsDir: assets, remote: true, password: 'console-password' },
    });
    try {
      expect((await fetch(`${remote.url}/_console/`)).status).toBe(200);
      expect((await fetch(`${remote.url}/_console/api/session`)).status).toBe(401);
      const login = (password: string) =>
        fetch(`${remote.url}/_console/api/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ password }),
        });
      expect((await login('wrong')).status).toBe(401);
      const ok = await login('console-password');
      expect(ok.status).toBe(200);
      const { token: remoteToken } = await read(ok);
      const session = await fetch(`${remote.url}/_console/api/session`, {
        headers: { [TOKEN_HEADER]: remoteToken },
      });
      expect(session.status).toBe(200);
      for (let i = 0; i < 5; i += 1) await login('wrong');
      expect((await login('console-password')).status).toBe(429);
    } finally {
      await remote.stop();
    }
    // Three servers start and stop in this one test: more than one start's time.
  }, 90_000);
});
