import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@supabase/supabase-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { dumpDatabase } from '../../src/data/dump';
import { exportProject } from '../../src/data/portable';
import type { RunningServer } from '../../src/server';
import { startServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';

// Migrations as written for a hosted project, where Vault comes installed: a secret, and the
// usual security-definer function that hands it to the API.
const MIGRATION = /* sql */ `
create extension if not exists supabase_vault;
select vault.create_secret('sk_live_first_clear_value', 'stripe_key', 'Stripe API key');
create function public.stripe_key_length() returns integer
language sql security definer set search_path = '' as $$
  select length(decrypted_secret) from vault.decrypted_secrets where name = 'stripe_key'
$$;
create function public.stripe_key_invoker() returns text
language sql set search_path = '' as $$
  select decrypted_secret from vault.decrypted_secrets where name = 'stripe_key'
$$;
grant execute on function public.stripe_key_length(), public.stripe_key_invoker()
  to anon, authenticated;
`;

const noSession = {
  auth: { persistSession: false, autoRefreshToken: false },
  realtime: { transport: WebSocket as never },
};

/** On the postgres project, a database of the run's cluster that outlives one server. */
async function scratchDatabase(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const adminUrl = inject('postgresAdminUrl');
  if (!adminUrl) return null;
  const name = `vault_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  return {
    url: adminUrl.replace(/\/postgres$/, `/${name}`),
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

async function migrations(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'vault-'));
  await writeFile(join(dir, '0001_vault.sql'), MIGRATION);
  return dir;
}

describe(`Vault (${databaseKind()})`, () => {
  let server: RunningServer;
  const scratch: string[] = [];

  beforeAll(async () => {
    const dir = await migrations();
    scratch.push(dir);
    server = await startTestServer({ migrationsDir: dir });
  });
  afterAll(async () => {
    await server?.stop();
    for (const dir of scratch) await rm(dir, { recursive: true, force: true });
  });

  it('comes installed as hosted projects have it', async () => {
    const { rows } = await server.db.query<{ extversion: string; schema: string }>(
      `select extversion, extnamespace::regnamespace::text as schema
       from pg_extension where extname = 'supabase_vault'`,
    );
    expect(rows).toEqual([{ extversion: '0.3.1', schema: 'vault' }]);
  });

  it('stores ciphertext, decrypts through the view, updates', async () => {
    const { rows } = await server.db.query<{ secret: string; decrypted_secret: string }>(
      `select s.secret, d.decrypted_secret from vault.secrets s
       join vault.decrypted_secrets d using (id) where s.name = 'stripe_key'`,
    );
    expect(rows[0]?.decrypted_secret).toBe('sk_live_first_clear_value');
    expect(rows[0]?.secret).not.toContain('sk_live');

    const id = (
      await server.db.query<{ id: string }>(
        `select vault.create_secret('påss wörd ✓', 'unicode', 'd') as id`,
      )
    ).rows[0]?.id as string;
    const before = await server.db.query('select nonce from vault.secrets where id = $1', [id]);
    await server.db.query(`select vault.update_secret($1, 'changed', 'renamed', 'new desc')`, [id]);
    const after = await server.db.query('select nonce from vault.secrets where id = $1', [id]);
    // A new value, a new nonce (a keystream is never used twice).
    expect(after.rows[0]?.nonce).not.toEqual(before.rows[0]?.nonce);
    const updated = await server.db.query(
      'select name, description, decrypted_secret from vault.decrypted_secrets where id = $1',
      [id],
    );
    expect(updated.rows).toEqual([
      { name: 'renamed', description: 'new desc', decrypted_secret: 'changed' },
    ]);
    // Name only: the secret stays.
    await server.db.query(`select vault.update_secret($1, new_name => 'again')`, [id]);
    const same = await server.db.query(
      'select name, decrypted_secret from vault.decrypted_secrets where id = $1',
      [id],
    );
    expect(same.rows).toEqual([{ name: 'again', decrypted_secret: 'changed' }]);
    await server.db.query(`select vault.create_secret('', 'empty_secret')`);
    const empty = await server.db.query<{ d: string }>(
      `select decrypted_secret as d from vault.decrypted_secrets where name = 'empty_secret'`,
    );
    expect(empty.rows).toEqual([{ d: '' }]);
  });

  it('refuses a name taken twice with the unique index error', async () => {
    await expect(
      server.db.query(`select vault.create_secret('other', 'stripe_key')`),
    ).rejects.toMatchObject({
      code: '23505',
      message: 'duplicate key value violates unique constraint "secrets_name_idx"',
    });
    // Unnamed secrets do not collide.
    await server.db.query(`select vault.create_secret('a'), vault.create_secret('b')`);
  });

  it('lets a security-definer function hand a secret to the API (rpc)', async () => {
    const anon = createClient(server.url, server.anonKey, noSession);
    const { data, error } = await anon.rpc('stripe_key_length');
    expect(error).toBeNull();
    expect(data).toBe('sk_live_first_clear_value'.length);
  });

  it('keeps decrypted secrets from anon and authenticated, not from service_role', async () => {
    for (const role of ['anon', 'authenticated']) {
      await expect(
        server.db.transaction(async (tx) => {
          await tx.query(`select set_config('role', $1, true)`, [role]);
          await tx.query('select decrypted_secret from vault.decrypted_secrets');
        }),
      ).rejects.toMatchObject({ code: '42501' });
      await expect(
        server.db.transaction(async (tx) => {
          await tx.query(`select set_config('role', $1, true)`, [role]);
          await tx.query(`select vault.create_secret('x', 'by_${role}')`);
        }),
      ).rejects.toMatchObject({ code: '42501' });
    }
    const anon = createClient(server.url, server.anonKey, noSession);
    const refused = await anon.rpc('stripe_key_invoker');
    expect(refused.error?.code).toBe('42501');
    expect(refused.error?.message).toMatch(/permission denied for schema vault/);
    expect(refused.data).toBeNull();

    const service = createClient(server.url, server.serviceRoleKey, noSession);
    const allowed = await service.rpc('stripe_key_invoker');
    expect(allowed.error).toBeNull();
    expect(allowed.data).toBe('sk_live_first_clear_value');
  });

  it('dumps and exports ciphertext only, never the key', async () => {
    const key = (
      await server.db.query<{ k: string }>(`select current_setting('vault.root_key') as k`)
    ).rows[0]?.k as string;
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    const dump = Buffer.concat((await dumpDatabase(server.db, {})).chunks).toString('utf8');
    expect(dump).toContain('vault');
    const cipher = (
      await server.db.query<{ secret: string }>(
        `select secret from vault.secrets where name = 'stripe_key'`,
      )
    ).rows[0]?.secret as string;
    expect(dump).toContain(cipher.split('\n')[0]);
    expect(dump).not.toContain('sk_live_first_clear_value');
    expect(dump).not.toContain(key);

    const out = await mkdtemp(join(tmpdir(), 'vault-export-'));
    scratch.push(out);
    await exportProject(server.db, server.storageDir, join(out, 'project'));
    const files = await readdir(join(out, 'project'), { recursive: true, withFileTypes: true });
    let all = '';
    for (const f of files) {
      if (f.isFile()) all += (await readFile(join(f.parentPath, f.name))).toString('latin1');
    }
    expect(all.length).toBeGreaterThan(0);
    expect(all).not.toContain('sk_live_first_clear_value');
    expect(all).not.toContain(key);
  });
});

describe(`Vault's key (${databaseKind()})`, () => {
  it('survives a restart with the same data directory; another key cannot decrypt', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'vault-data-'));
    const dir = await migrations();
    // PGlite keeps its database in the data directory; on PostgreSQL the data directory
    // keeps the key (and stored files) and the database is one of the run's cluster.
    const database = await scratchDatabase();
    const on = database ? { databaseUrl: database.url } : {};
    let server: RunningServer | null = null;
    try {
      server = await startServer({ port: 0, dataDir, migrationsDir: dir, ...on });
      await server.stop();
      server = null;
      const keyFile = (await readFile(join(dataDir, 'vault.key'), 'utf8')).trim();
      expect(keyFile).toMatch(/^[0-9a-f]{64}$/);

      server = await startServer({ port: 0, dataDir, migrationsDir: dir, ...on });
      const { rows } = await server.db.query(
        `select decrypted_secret from vault.decrypted_secrets where name = 'stripe_key'`,
      );
      expect(rows).toEqual([{ decrypted_secret: 'sk_live_first_clear_value' }]);
      await server.stop();
      server = null;

      const other = randomBytes(32).toString('hex');
      server = await startServer({ port: 0, dataDir, vaultKey: other, ...on });
      await expect(
        server.db.query('select decrypted_secret from vault.decrypted_secrets'),
      ).rejects.toMatchObject({
        code: '39000',
        message: expect.stringMatching(/cannot be decrypted with this server's key/),
      });
      // Creating works with the other key; its own secrets decrypt.
      await server.db.query(`select vault.create_secret('mine', 'other_key')`);
    } finally {
      await server?.stop();
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('an export imported with the same key decrypts', async () => {
    const vaultKey = randomBytes(32).toString('hex');
    const dir = await migrations();
    const out = await mkdtemp(join(tmpdir(), 'vault-export-'));
    const source = await startTestServer({ migrationsDir: dir, vaultKey });
    try {
      await exportProject(source.db, source.storageDir, join(out, 'project'));
    } finally {
      await source.stop();
    }
    const target = await startTestServer({ importFile: join(out, 'project'), vaultKey });
    try {
      const { rows } = await target.db.query(
        `select decrypted_secret from vault.decrypted_secrets where name = 'stripe_key'`,
      );
      expect(rows).toEqual([{ decrypted_secret: 'sk_live_first_clear_value' }]);
    } finally {
      await target.stop();
      await rm(out, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('a connection without the server key cannot encrypt or decrypt', async () => {
    const server = await startTestServer();
    try {
      await server.db.query(`select vault.create_secret('x', 'n')`);
      await expect(
        server.db.transaction(async (tx) => {
          await tx.query(`select set_config('vault.root_key', '', true)`);
          await tx.query('select decrypted_secret from vault.decrypted_secrets');
        }),
      ).rejects.toMatchObject({
        code: '39000',
        message: "vault: the server's key is not available on this connection",
      });
    } finally {
      await server.stop();
    }
  });
});
