import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server';
import { cli } from './cli-runner';
import { DRIVE, snapshotRows, storeObjects, TRICKY_SQL } from './support';

const root = mkdtempSync(join(tmpdir(), 'data-cli-dir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('migration new', () => {
  it('creates a timestamped file with what is piped in, as the hosted CLI does', async () => {
    const dir = join(root, 'migrations');
    const made = await cli(['migration', 'new', 'add_tags', '--migrations', dir], {
      stdin: 'create table tags (id int);\n',
    });
    expect(made.code).toBe(0);
    const [file] = readdirSync(dir);
    expect(file).toMatch(/^\d{14}_add_tags\.sql$/);
    expect(made.stdout).toBe(`Created new migration at ${join(dir, file as string)}.\n`);
    expect(readFileSync(join(dir, file as string), 'utf8')).toBe('create table tags (id int);\n');
    const bad = await cli(['migration', 'new', '../escape', '--migrations', dir]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/is not a migration name/);
    expect(readdirSync(dir)).toHaveLength(1);
  }, 60_000);
});

// Commands on an embedded PGlite data dir whatever the project: the `pglite` project only (see
// vitest.config.ts). The dump's restore into each engine is in cli.test.ts.
describe('db reset, export and import from the CLI on a data dir', () => {
  it('resets a database: schema and rows gone, migrations and seed again, files removed', async () => {
    const dataDir = join(root, 'reset');
    let server: RunningServer = await startServer({ port: 0, dataDir, ...DRIVE });
    try {
      await server.db.exec(
        'create table public.scratch (id int); insert into public.scratch values (1);',
      );
      await server.db.query(`update public.profiles set display_name = 'Changed'`);
      await storeObjects(server, {
        'd0d0d0d0-0000-4000-8000-00000000d3e0/x/file.txt': Buffer.from('x'),
      });
    } finally {
      await server.stop();
    }
    const reset = await cli([
      'db',
      'reset',
      '--data-dir',
      dataDir,
      '--migrations',
      DRIVE.migrationsDir,
      '--seed',
      DRIVE.seedFile,
    ]);
    expect(reset.stderr).toContain('Finished db reset');
    expect(reset.code).toBe(0);
    expect(reset.stderr).toMatch(/Applying migration 20261122000100_drive\.sql/);
    server = await startServer({ port: 0, dataDir });
    try {
      const scratch = await server.db.query(`select to_regclass('public.scratch') as t`);
      expect(scratch.rows).toEqual([{ t: null }]);
      const profiles = await server.db.query('select display_name from public.profiles');
      expect(profiles.rows).toEqual([{ display_name: 'Demo' }]);
      const objects = await server.db.query('select count(*)::int as n from storage.objects');
      expect(objects.rows).toEqual([{ n: 0 }]);
      const files = readdirSync(join(dataDir, 'storage', 'objects'));
      expect(files).toEqual([]);
    } finally {
      await server.stop();
    }
  }, 300_000);

  it('exports a data dir to a folder and imports it into another, with its stored files', async () => {
    const from = join(root, 'export-from');
    const server = await startServer({ port: 0, dataDir: from, ...DRIVE });
    let rows: Record<string, string[]>;
    try {
      await server.db.exec(TRICKY_SQL);
      await storeObjects(server, {
        'd0d0d0d0-0000-4000-8000-00000000d3e0/x/file.txt': Buffer.from('kept'),
      });
      rows = await snapshotRows(server);
    } finally {
      await server.stop();
    }
    const folder = join(root, 'cli-export');
    const exported = await cli(['export', folder, '--data-dir', from]);
    expect(exported.stderr).toMatch(/Exported \d+ rows of \d+ tables and 1 objects \(4 bytes\)/);
    expect(exported.code).toBe(0);
    expect(readdirSync(folder).sort()).toEqual(['database.sql', 'manifest.json', 'objects']);
    const to = join(root, 'import-to');
    const imported = await cli(['import', folder, '--data-dir', to]);
    expect(imported.stderr).toMatch(/Imported \d+ rows of \d+ tables and 1 objects/);
    expect(imported.code).toBe(0);
    const check = await startServer({ port: 0, dataDir: to });
    try {
      expect(await snapshotRows(check)).toEqual(rows);
      const [object] = (
        await check.db.query<{ version: string }>('select version from storage.objects')
      ).rows;
      const version = object?.version ?? '';
      const bytes = readFileSync(join(to, 'storage', 'objects', version.slice(0, 2), version));
      expect(bytes.toString()).toBe('kept');
    } finally {
      await check.stop();
    }
  }, 300_000);

  it('says what is wrong with the command line', async () => {
    const none = await cli(['db', 'dump']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/--data-dir DIR, --database-url URL or --direct-url URL/);
    const unknown = await cli(['db', 'explode']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown or incomplete command/);
    mkdirSync(join(root, 'empty'), { recursive: true });
    writeFileSync(join(root, 'not-an-archive.tar'), 'hello');
    const bad = await cli([
      'import',
      join(root, 'not-an-archive.tar'),
      '--data-dir',
      join(root, 'empty'),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/not a backend-server archive/);
    const foreign = await cli([
      'import',
      join(root, 'migrations'),
      '--data-dir',
      join(root, 'empty'),
    ]);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(
      /migrations is not a backend-server export \(no manifest.json\)/,
    );
    const onto = await cli(['export', join(root, 'migrations'), '--data-dir', join(root, 'empty')]);
    expect(onto.code).toBe(1);
    expect(onto.stderr).toMatch(/migrations is a folder that is not a backend-server export/);
    expect(readdirSync(join(root, 'migrations'))).toHaveLength(1);
  }, 300_000);
});
