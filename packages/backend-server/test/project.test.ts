import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type RunningServer, startServer } from '../src/server';
import { writeProject } from './functions/support';

const CONFIG = `
project_id = "app"
[api]
port = 54321
max_rows = 2
[auth]
minimum_password_length = 12
[auth.email]
enable_confirmations = false
[storage]
file_size_limit = "1KiB"
[functions.open]
verify_jwt = false
`;

const anonClient = (server: RunningServer) =>
  createClient(server.url, server.anonKey, {
    auth: { persistSession: false },
    realtime: { transport: WebSocket as never },
  });

describe('a project folder in the hosted CLI layout (startServer({ projectDir }))', () => {
  let server: RunningServer;
  beforeAll(async () => {
    const { root } = await writeProject(
      { 'open/index.ts': "Deno.serve(() => new Response('open to all'));" },
      CONFIG,
    );
    await mkdir(join(root, 'migrations'));
    await writeFile(
      join(root, 'migrations', '0001_items.sql'),
      `create table public.items (id int primary key);
       grant select on public.items to anon;
       insert into storage.buckets (id, name, public) values ('pub', 'pub', true);
       create policy "anyone uploads" on storage.objects for insert to anon
         with check (bucket_id = 'pub');
       create policy "anyone reads" on storage.objects for select to anon
         using (bucket_id = 'pub');`,
    );
    await writeFile(join(root, 'seed.sql'), 'insert into public.items values (1), (2), (3);');
    // The option wins over `[api] port`.
    server = await startServer({ projectDir: root, port: 0 });
  });
  afterAll(() => server?.stop());

  it('applies the migrations and the seed, and serves the functions with their verify_jwt', async () => {
    const anon = anonClient(server);
    expect(new URL(server.url).port).not.toBe('54321');
    // [api] max_rows = 2 caps the three seeded rows.
    expect((await anon.from('items').select('id').order('id')).data).toEqual([
      { id: 1 },
      { id: 2 },
    ]);
    const open = await fetch(`${server.url}/functions/v1/open`);
    expect({ status: open.status, text: await open.text() }).toEqual({
      status: 200,
      text: 'open to all',
    });
  });

  it('enforces the auth and storage settings of config.toml', async () => {
    const anon = anonClient(server);
    const short = await anon.auth.signUp({ email: 'short@example.com', password: 'eleven-char' });
    expect(short.error?.code).toBe('weak_password');
    const ok = await anon.auth.signUp({ email: 'long@example.com', password: 'twelve-chars' });
    expect(ok.error).toBeNull();
    expect(ok.data.session).not.toBeNull();
    const visitor = anonClient(server);
    const big = await visitor.storage.from('pub').upload('big.txt', 'x'.repeat(2048));
    expect(big.error).toMatchObject({ statusCode: '413' });
    const small = await visitor.storage.from('pub').upload('small.txt', 'x'.repeat(1000));
    expect(small.error).toBeNull();
  });
});
