import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exportProject } from '../../src/data/portable';
import { type RunningServer, startServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import {
  DRIVE,
  objectSums,
  SAMPLE_OBJECTS,
  snapshotRows,
  storeObjects,
  TRICKY_SQL,
} from './support';

const root = mkdtempSync(join(tmpdir(), 'archive-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// A folder export (the fast format) and a tar: both make the whole round trip.
describe.each([
  ['a folder', ''],
  ['a tar', '.tar'],
])(`export and import as %s (${databaseKind()} in the middle)`, (_, ext) => {
  it('moves a PGlite data dir through the other database and back with identical rows and bytes', async () => {
    const exportOf = (name: string) => join(root, `${name}${ext}`);
    // A: embedded PGlite with a data dir, Drive's schema and seed, tricky values, objects.
    const a = await startServer({ port: 0, dataDir: join(root, `a${ext}-data`), ...DRIVE });
    let rowsA: Record<string, string[]>;
    let sumsA: Record<string, string>;
    try {
      await a.db.exec(TRICKY_SQL);
      sumsA = await storeObjects(a, SAMPLE_OBJECTS());
      rowsA = await snapshotRows(a);
      expect(rowsA['storage.objects']).toHaveLength(3);
      expect(rowsA['extra.samples']).toHaveLength(3);
      await exportProject(a.db, a.storageDir, exportOf('a'));
      if (!ext) checkFolderExport(exportOf('a'), a.storageDir);
    } finally {
      await a.stop();
    }

    // B: the test project's database (PostgreSQL 15 in the postgres project), from the archive.
    const b = await startTestServer({
      dataDir: join(root, `b${ext}-data`),
      importFile: exportOf('a'),
    });
    try {
      expect(await snapshotRows(b)).toEqual(rowsA);
      expect(await objectSums(b, Object.keys(sumsA))).toEqual(sumsA);
      await exportProject(b.db, b.storageDir, exportOf('b'));
    } finally {
      await b.stop();
    }

    // C: a new PGlite data dir from B's archive.
    const c = await startServer({
      port: 0,
      dataDir: join(root, `c${ext}-data`),
      importFile: exportOf('b'),
      ...DRIVE,
    });
    try {
      expect(await snapshotRows(c)).toEqual(rowsA);
      expect(await objectSums(c, Object.keys(sumsA))).toEqual(sumsA);
      await checkStillWorks(c);
    } finally {
      await c.stop();
    }
  }, 300_000);
});

/** A folder export is plain files in storage's layout, copies (not links) of the stored ones. */
function checkFolderExport(dir: string, storageDir: string) {
  expect(readdirSync(dir).sort()).toEqual(['database.sql', 'manifest.json', 'objects']);
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    objects: { list: { version: string; size: number }[] };
  };
  expect(manifest.objects.list).toHaveLength(3);
  for (const { version, size } of manifest.objects.list) {
    const path = join('objects', version.slice(0, 2), version);
    const copy = statSync(join(dir, path));
    expect(copy.size).toBe(size);
    expect(copy.nlink).toBe(1);
    expect(copy.ino).not.toBe(statSync(join(storageDir, path)).ino);
    expect(readFileSync(join(dir, path))).toEqual(readFileSync(join(storageDir, path)));
  }
}

/** The imported project behaves: triggers, RLS, identity and sequences, views, functions. */
async function checkStillWorks(server: RunningServer) {
  const email = `after-import-${Date.now()}@example.com`;
  const signUp = await fetch(`${server.url}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: server.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      email,
      password: 'after-import-password',
      data: { display_name: 'Imp' },
    }),
  });
  expect(signUp.status).toBe(200);
  const profile = await server.db.query<{ display_name: string }>(
    'select p.display_name from public.profiles p join auth.users u on u.id = p.id where u.email = $1',
    [email],
  );
  expect(profile.rows).toEqual([{ display_name: 'Imp' }]);
  // Privileges came back: Drive revokes everything from anon.
  const anon = await fetch(`${server.url}/rest/v1/folders?select=id`, {
    headers: { apikey: server.anonKey },
  });
  expect(((await anon.json()) as { code: string }).code).toBe('42501');
  // The demo user still signs in with the seeded password hash.
  const token = await fetch(`${server.url}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: server.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'demo@example.com', password: 'drive-demo-password' }),
  });
  expect(token.status).toBe(200);
  // Identity and owned sequences continue after the imported rows.
  const next = await server.db.query<{ id: string; n: string; doubled: string }>(
    `insert into extra.samples (label) values ('after') returning id::text, n::text, doubled::text`,
  );
  expect(next.rows[0]).toEqual({ id: '4', n: '103', doubled: '8' });
  const view = await server.db.query<{ label: string }>('select label from extra.happy');
  expect(view.rows.map((r) => r.label)).toEqual([expect.stringContaining('tab')]);
  const fn = await server.db.query<{ l: string }>(
    'select extra.label_of(s) as l from extra.samples s where id = 2',
  );
  expect(fn.rows[0]?.l).toBe('second');
  // Migrations already in the archive are not applied again.
  const migrations = await server.db.query('select * from supabase_migrations.schema_migrations');
  expect(migrations.rows).toHaveLength(
    readdirSync(DRIVE.migrationsDir).filter((f) => f.endsWith('.sql')).length,
  );
}
