/**
 * The server through PgBouncer in transaction mode (`databasePooler`): three server
 * connections shared by everything the services do (REST, rpc, auth, storage, tus,
 * realtime's changes), with LISTEN and the tus locks on the direct connection.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SupabaseClient } from '@supabase/supabase-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server';
import { Inbox, realtimeClient, subscribed, uniqueTopic } from '../realtime/support';
import { mintUser, POLICIES, sha256, client as storageClient } from '../storage/support';
import { startTus } from '../storage/tus-support';
import { createTestDatabase, databaseKind } from '../support/server';
import { type ProxyProcess, startPgBouncer } from './proxies';

const POOL_SIZE = 3;

const SCHEMA = `
create table public.notes (id bigint generated always as identity primary key, body text not null);
alter table public.notes replica identity full;
grant select, insert, update, delete on public.notes to anon, authenticated;
grant usage on sequence public.notes_id_seq to anon, authenticated;
alter publication supabase_realtime add table public.notes;
create function public.note_count() returns bigint language sql stable
  as 'select count(*) from public.notes';
grant execute on function public.note_count() to anon;
${POLICIES}
insert into storage.buckets (id, name) values ('files', 'files');
`;

describe.skipIf(databaseKind() === 'pglite')(
  'the server through PgBouncer (transaction mode)',
  () => {
    let bouncer: ProxyProcess;
    let server: RunningServer;
    let drop: () => Promise<void>;
    let dir: string;
    let databaseUrl: string;
    let pooledUrl: string;
    const clients: SupabaseClient[] = [];

    beforeAll(async () => {
      const db = await createTestDatabase();
      if (!db) throw new Error('no PostgreSQL');
      drop = db.drop;
      databaseUrl = db.url;
      bouncer = await startPgBouncer(db.url, POOL_SIZE);
      const pooled = new URL(db.url);
      pooled.port = String(bouncer.port);
      pooledUrl = pooled.toString();
      dir = await mkdtemp(join(tmpdir(), 'pgbouncer-'));
      await writeFile(join(dir, '0001_schema.sql'), SCHEMA);
      server = await startServer({
        port: 0,
        databaseUrl: pooledUrl,
        databasePooler: { mode: 'transaction', directUrl: db.url },
        migrationsDir: dir,
      });
    }, 60_000);

    afterAll(async () => {
      await Promise.all(clients.map((c) => c.removeAllChannels()));
      await server?.stop();
      await bouncer?.stop();
      await drop?.();
      await rm(dir, { recursive: true, force: true });
    });

    const anon = () => {
      const c = realtimeClient(server);
      clients.push(c);
      return c;
    };

    it('REST and rpc: concurrent writes and reads share the three server connections', async () => {
      const api = anon();
      const writes = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          api
            .from('notes')
            .insert({ body: `n${i}` })
            .select(),
        ),
      );
      for (const w of writes) expect(w.error).toBeNull();
      const reads = await Promise.all(
        Array.from({ length: 30 }, () => api.from('notes').select('id, body').order('id')),
      );
      for (const r of reads) expect(r.data).toHaveLength(30);
      const count = await api.rpc('note_count');
      expect(count.error).toBeNull();
      expect(Number(count.data)).toBe(30);
      // What reached PostgreSQL: PgBouncer's pool, plus the server's direct sessions (LISTEN,
      // tus locks); never the server's own pool of 10.
      const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
      try {
        const name = new URL(databaseUrl).pathname.slice(1);
        const [row] = await admin<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where datname = ${name} and pid <> pg_backend_pid()`;
        expect(row?.n).toBeLessThanOrEqual(POOL_SIZE + 2);
      } finally {
        await admin.end();
      }
    });

    it('auth: sign-up, sign-in and the user behind the token', async () => {
      const api = anon();
      const email = `u${randomBytes(4).toString('hex')}@example.com`;
      const up = await api.auth.signUp({ email, password: 'password-1' });
      expect(up.error).toBeNull();
      const other = anon();
      const inn = await other.auth.signInWithPassword({ email, password: 'password-1' });
      expect(inn.error).toBeNull();
      const me = await other.auth.getUser();
      expect(me.data.user?.email).toBe(email);
      const wrong = await anon().auth.signInWithPassword({ email, password: 'nope-nope' });
      expect(wrong.error?.code).toBe('invalid_credentials');
    });

    it('storage: an upload under RLS, read back', async () => {
      const user = await mintUser(server);
      const api = storageClient(server, user);
      const body = randomBytes(100_000);
      const up = await api.storage.from('files').upload(`${user.id}/a.bin`, body);
      expect(up.error).toBeNull();
      const down = await api.storage.from('files').download(`${user.id}/a.bin`);
      expect(sha256(new Uint8Array(await (down.data as Blob).arrayBuffer()))).toBe(sha256(body));
      const denied = await api.storage.from('files').upload('someone-else/a.bin', body);
      expect(denied.error).not.toBeNull();
    });

    it('tus: a resumable upload in chunks (the upload lock on the direct connection)', async () => {
      const user = await mintUser(server);
      const body = randomBytes(3 * 1024 * 1024 + 17);
      const run = startTus(body, {
        endpoint: `${server.url}/storage/v1/upload/resumable`,
        chunkSize: 1024 * 1024,
        headers: { authorization: `Bearer ${user.token}`, apikey: server.anonKey },
        metadata: { bucketName: 'files', objectName: `${user.id}/big.bin` },
      });
      await run.done;
      expect(run.responses.filter((r) => r.method === 'PATCH')).toHaveLength(4);
      const down = await storageClient(server, user)
        .storage.from('files')
        .download(`${user.id}/big.bin`);
      expect(sha256(new Uint8Array(await (down.data as Blob).arrayBuffer()))).toBe(sha256(body));
    });

    it('realtime: postgres_changes of inserts made through the pool', async () => {
      const rt = realtimeClient(server);
      clients.push(rt);
      const inbox = new Inbox<string>();
      await subscribed(
        rt
          .channel(uniqueTopic())
          .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'notes' }, (m) =>
            inbox.push(String((m.new as { body: string }).body)),
          ),
      );
      const api = anon();
      for (const body of ['c1', 'c2', 'c3']) {
        expect((await api.from('notes').insert({ body })).error).toBeNull();
      }
      expect(await inbox.next(3)).toEqual(['c1', 'c2', 'c3']);
    });

    it('Vault: the key reaches every pooled transaction (set per transaction, not at startup)', async () => {
      const made = await server.db.query<{ id: string }>(
        "select vault.create_secret('s3cret', $1) as id",
        [`k${randomBytes(4).toString('hex')}`],
      );
      const id = made.rows[0]?.id;
      const read = await Promise.all(
        Array.from({ length: 6 }, () =>
          server.db.query<{ s: string }>(
            'select decrypted_secret as s from vault.decrypted_secrets where id = $1',
            [id],
          ),
        ),
      );
      for (const r of read) expect(r.rows[0]?.s).toBe('s3cret');
    });

    it('without databasePooler the same URL fails at start: PgBouncer refuses the session settings', async () => {
      await expect(startServer({ port: 0, databaseUrl: pooledUrl })).rejects.toThrow(
        /unsupported startup parameter/,
      );
    });
  },
);
