import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exportProject, importProject } from '../../src/data/portable';
import { platformScripts, type RunningServer, startServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import {
  DRIVE,
  objectSums,
  removeObjects,
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

/** Every object file (path → sha256 of its bytes) under a folder's `objects/`. */
function filesUnder(dir: string): Record<string, string> {
  const sums: Record<string, string> = {};
  for (const group of readdirSync(join(dir, 'objects'))) {
    for (const name of readdirSync(join(dir, 'objects', group))) {
      const bytes = readFileSync(join(dir, 'objects', group, name));
      sums[`${group}/${name}`] = createHash('sha256').update(bytes).digest('hex');
    }
  }
  return sums;
}

/** A folder on another file system than `root` (a tmpfs), where there is one. */
const otherDevice = ['/dev/shm'].find(
  (dir) => existsSync(dir) && statSync(dir).dev !== statSync(root).dev,
);

describe('a folder export and the project it came from or went to', () => {
  it('share the stored files, and nothing one side does changes the other', async () => {
    const a = await startServer({ port: 0, dataDir: join(root, 'links-a'), ...DRIVE });
    // B: the test project's database (PostgreSQL 15 in the postgres project).
    const b = await startTestServer({ dataDir: join(root, `links-b-${databaseKind()}`) });
    const dir = join(root, 'links-export');
    try {
      const objects = SAMPLE_OBJECTS();
      const names = Object.keys(objects);
      const sums = await storeObjects(a, objects);
      await exportProject(a.db, a.storageDir, dir);
      const exported = filesUnder(dir);
      expect(Object.keys(exported)).toHaveLength(3);

      // The source replaces one object and deletes another: the export keeps its bytes.
      const [first, second] = names as [string, string];
      await fetch(`${a.url}/storage/v1/object/files/${first}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${a.serviceRoleKey}`, 'x-upsert': 'true' },
        body: new Uint8Array([1, 2, 3]),
      }).then((res) => expect(res.status).toBe(200));
      expect(await removeObjects(a, [second])).toEqual([second]);
      expect(filesUnder(dir)).toEqual(exported);

      // Imported elsewhere, then the export is removed: the imported project keeps them.
      await importProject(b.db, b.storageDir, dir, platformScripts());
      expect(statSync(join(b.storageDir, 'objects', Object.keys(exported)[0] as string)).ino).toBe(
        statSync(join(dir, 'objects', Object.keys(exported)[0] as string)).ino,
      );
      rmSync(dir, { recursive: true });
      expect(await objectSums(b, names)).toEqual(sums);
      // What the imported project deletes, the source (linked to it through the export) keeps.
      const third = names[2] as string;
      expect(await removeObjects(b, [third])).toEqual([third]);
      expect(await objectSums(a, [third])).toEqual({ [third]: sums[third] });
    } finally {
      await a.stop();
      await b.stop();
    }
  }, 120_000);

  it.runIf(otherDevice)(
    'is copied, not linked, on another file system, and imports from there',
    async () => {
      const a = await startServer({ port: 0, dataDir: join(root, 'copy-a'), ...DRIVE });
      const dir = mkdtempSync(join(otherDevice as string, 'export-'));
      try {
        const objects = SAMPLE_OBJECTS();
        const sums = await storeObjects(a, objects);
        await exportProject(a.db, a.storageDir, dir);
        for (const path of Object.keys(filesUnder(dir))) {
          const exported = statSync(join(dir, 'objects', path));
          expect(exported.nlink).toBe(1);
          expect(exported.dev).not.toBe(statSync(join(a.storageDir, 'objects', path)).dev);
        }
        expect(filesUnder(dir)).toEqual(filesUnder(a.storageDir));
        // Imported back from the other file system: the project's files are copies again.
        await importProject(a.db, a.storageDir, dir, platformScripts());
        expect(await objectSums(a, Object.keys(objects))).toEqual(sums);
        for (const path of Object.keys(filesUnder(dir))) {
          expect(statSync(join(a.storageDir, 'objects', path)).nlink).toBe(1);
        }
      } finally {
        await a.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});

/**
 * A folder export is plain files in storage's layout; on the same file system (as here) they
 * are read-only hard links of the stored ones.
 */
function checkFolderExport(dir: string, storageDir: string) {
  expect(readdirSync(dir).sort()).toEqual(['database.sql', 'manifest.json', 'objects']);
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    objects: { list: { version: string; size: number }[] };
  };
  expect(manifest.objects.list).toHaveLength(3);
  for (const { version, size } of manifest.objects.list) {
    const path = join('objects', version.slice(0, 2), version);
    const exported = statSync(join(dir, path));
    expect(exported.size).toBe(size);
    expect(exported.ino).toBe(statSync(join(storageDir, path)).ino);
    expect(exported.mode & 0o777).toBe(0o444);
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
