import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { runDataCommand } from '../../src/data/cli';
import type { RunningServer } from '../../src/server';
import { writeProject } from '../functions/support';
import { createTestDatabase, databaseKind, startTestServer } from '../support/server';

// A 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

const config = (imagesPublic: boolean) => `
project_id = "config-test"
[db.seed]
enabled = true
sql_paths = ["./seeds/*.sql", "./extra.sql", "./seeds/02_more.sql", "./nothing/*.sql"]
[storage]
file_size_limit = "2MiB"
[storage.buckets.images]
public = ${imagesPublic}
file_size_limit = "1MiB"
allowed_mime_types = ["image/png", "text/plain"]
objects_path = "./buckets/images"
[storage.buckets.single]
objects_path = "./buckets/one.txt"
[edge_runtime.secrets]
from_toml = "toml"
SHARED = "from-toml"
FROM_ENV = "env(PROJECT_CONFIG_TEST_SECRET)"
UNSET = "env(PROJECT_CONFIG_TEST_UNSET)"
SUPABASE_URL = "http://not-this"
[functions.env]
verify_jwt = false
`;

const ENV_FUNCTION = `Deno.serve(() => Response.json(Object.fromEntries(
  ['FROM_TOML', 'SHARED', 'FROM_ENV', 'UNSET', 'DOTENV_ONLY', 'OPTION_ONLY', 'SUPABASE_URL',
   'SUPABASE_ANON_KEY'].map((name) => [name, Deno.env.get(name) ?? null]),
)));`;

async function put(root: string, path: string, data: string | Buffer): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), data);
}

/** A database of our own on the run's PostgreSQL (kept across restarts), or none on PGlite. */
async function ownDatabase(): Promise<{ url?: string; drop: () => Promise<void> }> {
  return (await createTestDatabase()) ?? { drop: async () => {} };
}

describe(`config.toml buckets, seeds and function secrets (${databaseKind()})`, () => {
  let root: string;
  let dataDir: string;
  let database: Awaited<ReturnType<typeof ownDatabase>>;
  let server: RunningServer | null = null;
  const start = () =>
    startTestServer({
      projectDir: root,
      dataDir,
      ...(database.url ? { databaseUrl: database.url } : {}),
      functions: { env: { OPTION_ONLY: 'option', SHARED: 'from-option' } },
    });
  const running = (): RunningServer => {
    if (!server) throw new Error('the server is not running');
    return server;
  };
  const admin = (s: RunningServer) =>
    createClient(s.url, s.serviceRoleKey, {
      auth: { persistSession: false },
      realtime: { transport: WebSocket as never },
    });

  beforeAll(async () => {
    ({ root } = await writeProject({ 'env/index.ts': ENV_FUNCTION }, config(true)));
    dataDir = await mkdtemp(join(tmpdir(), 'project-config-data-'));
    database = await ownDatabase();
    await put(
      root,
      'migrations/0001_log.sql',
      `create table public.seed_log (n serial primary key, label text not null unique);
       grant select on public.seed_log to anon;`,
    );
    await put(root, 'seeds/01_first.sql', "insert into public.seed_log (label) values ('first');");
    await put(root, 'seeds/02_more.sql', "insert into public.seed_log (label) values ('more');");
    await put(root, 'extra.sql', "insert into public.seed_log (label) values ('extra');");
    await put(root, 'buckets/images/hello.txt', 'hello from the project');
    await put(root, 'buckets/images/nested/dot.png', PNG);
    await put(root, 'buckets/one.txt', 'just one');
    await put(
      root,
      'functions/.env',
      'SHARED=from-dotenv\nDOTENV_ONLY=dotenv\nSUPABASE_ANON_KEY=no\n',
    );
    await put(root, '.env', 'PROJECT_CONFIG_TEST_SECRET=from-project-env\n');
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('applies sql_paths in order: glob matches sorted, a file matched twice once', async () => {
    const anon = createClient(running().url, running().anonKey, {
      auth: { persistSession: false },
      realtime: { transport: WebSocket as never },
    });
    const { data, error } = await anon.from('seed_log').select('label').order('n');
    expect(error).toBeNull();
    expect(data).toEqual([{ label: 'first' }, { label: 'more' }, { label: 'extra' }]);
  });

  it('makes the configured buckets with their settings and uploads objects_path', async () => {
    const client = admin(running());
    const images = await client.storage.getBucket('images');
    expect(images.data).toMatchObject({
      id: 'images',
      public: true,
      file_size_limit: 1024 * 1024,
      allowed_mime_types: ['image/png', 'text/plain'],
    });
    // No own limit: [storage] file_size_limit, as the hosted CLI fills it in.
    const single = await client.storage.getBucket('single');
    expect(single.data).toMatchObject({ public: false, file_size_limit: 2 * 1024 * 1024 });
    const top = await client.storage
      .from('images')
      .list('', { sortBy: { column: 'name', order: 'asc' } });
    expect(top.data?.map((o) => o.name)).toEqual(['nested', 'hello.txt']);
    const nested = await client.storage.from('images').list('nested');
    expect(nested.data?.map((o) => [o.name, o.metadata?.mimetype])).toEqual([
      ['dot.png', 'image/png'],
    ]);
    const hello = await client.storage.from('images').download('hello.txt');
    expect(await hello.data?.text()).toBe('hello from the project');
    const dot = await client.storage.from('images').download('nested/dot.png');
    expect(Buffer.from((await dot.data?.arrayBuffer()) ?? new ArrayBuffer(0)).equals(PNG)).toBe(
      true,
    );
    // A public bucket: readable without a token.
    const url = client.storage.from('images').getPublicUrl('hello.txt').data.publicUrl;
    expect(await (await fetch(url)).text()).toBe('hello from the project');
    // objects_path naming one file: the key is its name.
    const one = await client.storage.from('single').download('one.txt');
    expect(await one.data?.text()).toBe('just one');
  });

  it("gives functions [edge_runtime.secrets] under functions/.env under the option, SUPABASE_ names the platform's", async () => {
    const res = await fetch(`${running().url}/functions/v1/env`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      FROM_TOML: 'toml',
      SHARED: 'from-option',
      FROM_ENV: 'from-project-env',
      UNSET: null,
      DOTENV_ONLY: 'dotenv',
      OPTION_ONLY: 'option',
      SUPABASE_URL: running().url,
      SUPABASE_ANON_KEY: running().anonKey,
    });
  });

  it('a restart updates the buckets, keeps unchanged objects and does not seed again', async () => {
    const before = await admin(running()).storage.from('images').list('');
    // A setting config.toml does not give is kept, as the CLI's update leaves it out.
    const made = await admin(running()).storage.updateBucket('single', { public: true });
    expect(made.error).toBeNull();
    await running().stop();
    server = null;
    await writeFile(join(root, 'config.toml'), config(false));
    await put(root, 'buckets/images/added.txt', 'added later');
    server = await start();
    const client = admin(server);
    expect((await client.storage.getBucket('images')).data?.public).toBe(false);
    expect((await client.storage.getBucket('single')).data?.public).toBe(true);
    const after = await client.storage.from('images').list('');
    const hello = (list: typeof before) => list.data?.find((o) => o.name === 'hello.txt');
    expect(hello(after)?.id).toBe(hello(before)?.id);
    expect(hello(after)?.updated_at).toBe(hello(before)?.updated_at);
    expect(after.data?.map((o) => o.name).sort()).toEqual(['added.txt', 'hello.txt', 'nested']);
    const rows = await client.from('seed_log').select('label');
    expect(rows.data).toHaveLength(3);
  });

  it('after db reset (--project), the next start seeds again and brings the buckets back', async () => {
    await running().stop();
    server = null;
    const code = await runDataCommand([
      'db',
      'reset',
      '--project',
      root,
      '--data-dir',
      dataDir,
      ...(database.url ? ['--database-url', database.url] : []),
    ]);
    expect(code).toBe(0);
    server = await start();
    const client = admin(server);
    const rows = await client.from('seed_log').select('label').order('n');
    expect(rows.data).toEqual([{ label: 'first' }, { label: 'more' }, { label: 'extra' }]);
    const hello = await client.storage.from('images').download('hello.txt');
    expect(await hello.data?.text()).toBe('hello from the project');
  }, 90_000);

  it('refuses to start on a file the bucket does not accept, naming the bucket and the file', async () => {
    const bad = (await writeProject({}, config(true).replace(/\[edge_runtime[\s\S]*/, ''))).root;
    await put(bad, 'buckets/images/page.html', '<p>no</p>');
    await put(bad, 'buckets/one.txt', 'x');
    await expect(startTestServer({ projectDir: bad })).rejects.toThrow(
      /storage\.buckets\.images\.objects_path: .*page\.html could not be stored: .*mime/i,
    );
    await expect(startTestServer({ storage: { buckets: { 'no/slash': {} } } })).rejects.toThrow(
      'storage.buckets: "no/slash" is not a valid bucket name',
    );
  }, 90_000);
});
