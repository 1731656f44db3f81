import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { dumpDatabase } from '../../src/data/dump';
import { type RunningServer, startServer } from '../../src/server';
import { findPgBin } from '../support/postgres-cluster';
import { databaseKind, startTestServer } from '../support/server';
import { DRIVE, snapshotRows, storeObjects, TRICKY_SQL } from './support';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'data-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs the CLI from source; resolves to its exit code and output. */
function cli(
  args: string[],
  stdin?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.stdin.end(stdin ?? '');
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('migration new', () => {
  it('creates a timestamped file with what is piped in, as the hosted CLI does', async () => {
    const dir = join(root, 'migrations');
    const made = await cli(
      ['migration', 'new', 'add_tags', '--migrations', dir],
      'create table tags (id int);\n',
    );
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

describe(`db dump, import and reset from the CLI (${databaseKind()})`, () => {
  it('dumps schema and rows that psql (or our import) restores into a fresh database', async () => {
    const dataDir = join(root, 'source');
    const source = await startServer({ port: 0, dataDir, ...DRIVE });
    let rows: Record<string, string[]>;
    try {
      await source.db.exec(TRICKY_SQL);
      rows = await snapshotRows(source);
      // While the server holds the data dir, data commands refuse to open it.
      const busy = await cli(['db', 'dump', '--data-dir', dataDir]);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toMatch(/in use by a running backend-server \(pid \d+\)/);
    } finally {
      await source.stop();
    }
    // Schema only (the default, as the hosted CLI) and data only, in-process.
    const opened = await startServer({ port: 0, dataDir });
    try {
      const text = async (options: Parameters<typeof dumpDatabase>[1]) =>
        Buffer.concat((await dumpDatabase(opened.db, options)).chunks).toString('utf8');
      const schemaOnly = await text({ data: false });
      expect(schemaOnly).toContain('create table "extra"."samples"');
      expect(schemaOnly).not.toContain('COPY ');
      const dataOnly = await text({ schema: false });
      expect(dataOnly).toContain('COPY "extra"."samples"');
      expect(dataOnly).not.toContain('create table');
    } finally {
      await opened.stop();
    }
    const file = join(root, 'full.sql');
    const full = await cli(['db', 'dump', '--with-data', '-f', file, '--data-dir', dataDir]);
    expect(full.code).toBe(0);
    expect(full.stderr).toMatch(/Dumped \d+ tables, \d+ rows to/);

    // Restore into the run's database (a fresh PostgreSQL database with psql in the postgres
    // project, a fresh PGlite data dir with our import otherwise).
    const target = await startTestServer(
      databaseKind() === 'pglite' ? { dataDir: join(root, 'target') } : {},
    );
    if (target.db.url) {
      try {
        const psql = join(findPgBin(), 'psql');
        await promisify(execFile)(psql, [
          '-q',
          '-v',
          'ON_ERROR_STOP=1',
          '-X',
          '-f',
          file,
          target.db.url,
        ]);
        expect(await snapshotRows(target)).toEqual(rows);
      } finally {
        await target.stop();
      }
      return;
    }
    await target.stop();
    const imported = await cli(['import', file, '--data-dir', join(root, 'target')]);
    expect(imported.stderr).toMatch(/Applied/);
    expect(imported.code).toBe(0);
    const check = await startServer({ port: 0, dataDir: join(root, 'target') });
    try {
      expect(await snapshotRows(check)).toEqual(rows);
    } finally {
      await check.stop();
    }
  }, 300_000);

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
    expect(none.stderr).toMatch(/--data-dir DIR or --database-url URL/);
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
  }, 120_000);
});
