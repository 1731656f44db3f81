import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { dumpDatabase } from '../../src/data/dump';
import { startServer } from '../../src/server';
import { findPgBin } from '../support/postgres-cluster';
import { databaseKind, startTestServer } from '../support/server';
import { cli } from './cli-runner';
import { DRIVE, snapshotRows, TRICKY_SQL } from './support';

const root = mkdtempSync(join(tmpdir(), 'data-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe(`db dump and import from the CLI (${databaseKind()})`, () => {
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
});
