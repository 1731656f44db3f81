import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/server';
import { createTestDatabase, databaseKind } from '../support/server';

describe.skipIf(databaseKind() === 'pglite')('servers starting together on one PostgreSQL', () => {
  it('apply each migration and the seed once', async () => {
    const db = await createTestDatabase();
    if (!db) throw new Error('no PostgreSQL');
    const dir = await mkdtemp(join(tmpdir(), 'replicas-start-'));
    const migrationsDir = join(dir, 'migrations');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(migrationsDir);
    // Neither the migrations nor the seed could run twice: a second run fails.
    await writeFile(
      join(migrationsDir, '0001_items.sql'),
      'create table public.items (id int primary key, note text);',
    );
    await writeFile(
      join(migrationsDir, '0002_more.sql'),
      'alter table public.items add column added_at timestamptz default now();',
    );
    const seedFile = join(dir, 'seed.sql');
    await writeFile(seedFile, "insert into public.items (id, note) values (1, 'seeded');");
    const servers = await Promise.all(
      Array.from({ length: 3 }, () =>
        startServer({ port: 0, databaseUrl: db.url, migrationsDir, seedFile }),
      ),
    );
    try {
      const [first] = servers;
      const migrations = await first?.db.query<{ version: string }>(
        'select version from supabase_migrations.schema_migrations order by version',
      );
      expect(migrations?.rows.map((r) => r.version)).toEqual(['0001_items', '0002_more']);
      const items = await first?.db.query<{ id: number; note: string }>(
        'select id, note from public.items',
      );
      expect(items?.rows).toEqual([{ id: 1, note: 'seeded' }]);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await db.drop();
    }
  });
});
