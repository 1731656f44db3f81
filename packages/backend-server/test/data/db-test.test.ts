import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { StartServerOptions } from '../../src/config/index';
import { hostPgtapFiles } from '../../src/db/extensions/pgtap';
import { startServer } from '../../src/server';
import { databaseKind } from '../support/server';
import { cli } from './cli-runner';
import { DRIVE } from './support';

const MIGRATION = `
create table public.notes (
  id bigint generated always as identity primary key,
  owner uuid not null,
  body text not null
);
alter table public.notes enable row level security;
create policy "own notes" on public.notes for select to authenticated using (owner = auth.uid());
grant select on public.notes to authenticated;
insert into public.notes (owner, body) values
  ('11111111-1111-4111-8111-111111111111', 'mine'),
  ('22222222-2222-4222-8222-222222222222', 'theirs');
`;

const AS_USER = `set local role authenticated;
set local request.jwt.claims to '{"sub": "11111111-1111-4111-8111-111111111111", "role": "authenticated"}';`;

/** Passes: a schema check, a write that the rollback undoes, and RLS as a user writes it. */
const PASSING = `begin;
select plan(4);
select has_table('public', 'notes', 'notes exists');
insert into public.notes (owner, body) values ('11111111-1111-4111-8111-111111111111', 'added');
select is((select count(*)::int from public.notes), 3, 'three notes inside the test');
${AS_USER}
select results_eq(
  'select body from public.notes order by id',
  $$values ('mine'), ('added')$$,
  'a user sees only their own notes'
);
select is_empty('select 1 from public.notes where body = ''theirs''', 'not the others''');
select * from finish();
rollback;
`;

/** Fails two of three tests, one of them an RLS check; psql meta-commands are skipped. */
const FAILING = `\\set ON_ERROR_STOP 1
begin;
select plan(3);
${AS_USER}
select results_eq(
  'select body from public.notes order by id',
  $$values ('mine'), ('theirs')$$,
  'a user sees every note'
);
select is(1 + 1, 3, 'arithmetic');
select ok(true, 'truth');
select * from finish();
rollback;
`;

/** Stops on an SQL error after its plan. */
const BROKEN = `begin;
select plan(2);
select ok(true, 'before the error');
select * from no_such_table;
select * from finish();
rollback;
`;

/**
 * A database with the project's migrations applied by a server that then stopped: a PGlite
 * data directory, or on the postgres project a database of the run's cluster. Resolves to the
 * CLI's arguments for it.
 */
async function projectDatabase(
  dataDir: string,
  options: StartServerOptions,
): Promise<{ args: string[]; drop(): Promise<void> }> {
  const adminUrl = inject('postgresAdminUrl');
  if (!adminUrl) {
    const server = await startServer({ port: 0, ...options, dataDir });
    await server.stop();
    return { args: ['--data-dir', dataDir], drop: async () => {} };
  }
  const name = `dbtest_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = adminUrl.replace(/\/postgres$/, `/${name}`);
  const server = await startServer({ port: 0, ...options, databaseUrl: url });
  await server.stop();
  return {
    args: ['--database-url', url],
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

const haveHostPgtap = hostPgtapFiles().length > 0;

describe(`db test (${databaseKind()})`, () => {
  const root = mkdtempSync(join(tmpdir(), 'db-test-'));
  const project = join(root, 'project');
  let database: string[] = [];
  let dropDatabase: () => Promise<void> = async () => {};

  beforeAll(async () => {
    mkdirSync(join(project, 'migrations'), { recursive: true });
    mkdirSync(join(project, 'tests', 'rls'), { recursive: true });
    writeFileSync(join(project, 'migrations', '20260101000000_notes.sql'), MIGRATION);
    writeFileSync(join(project, 'tests', '01_notes.test.sql'), PASSING);
    writeFileSync(join(project, 'tests', 'rls', '02_everyone.sql'), FAILING);
    writeFileSync(join(project, 'tests', 'README.md'), 'not a test');
    ({ args: database, drop: dropDatabase } = await projectDatabase(join(root, 'data'), {
      projectDir: project,
    }));
  }, 120_000);
  afterAll(async () => {
    await dropDatabase();
    rmSync(root, { recursive: true, force: true });
  });

  it("runs the project's tests: TAP per file, a summary, exit 1 on a failure", async () => {
    const run = await cli(['db', 'test', '--project', 'project', ...database], { cwd: root });
    if (!haveHostPgtap) {
      // A machine without pgTAP (scripts/ensure-postgres.mjs installs it): a clear refusal.
      expect(run.stderr).toMatch(/^backend-server: pgTAP is not (available|installed)/);
      expect(run.code).toBe(1);
      return;
    }
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n');
    // Folders are searched recursively, files in name order; README.md is not a test.
    expect(lines.filter((l) => l.endsWith(' ..'))).toEqual([
      'project/tests/01_notes.test.sql ..',
      'project/tests/rls/02_everyone.sql ..',
    ]);
    const passing = lines.slice(1, lines.indexOf('project/tests/rls/02_everyone.sql ..'));
    expect(passing).toEqual([
      '1..4',
      'ok 1 - notes exists',
      'ok 2 - three notes inside the test',
      'ok 3 - a user sees only their own notes',
      "ok 4 - not the others'",
      'ok',
    ]);
    expect(run.stdout).toContain('1..3\nnot ok 1 - a user sees every note\n# Failed test 1:');
    expect(run.stdout).toContain('not ok 2 - arithmetic\n# Failed test 2: "arithmetic"');
    expect(run.stdout).toMatch(/#\s+have: 2\n#\s+want: 3\n/);
    expect(run.stdout).toContain(
      'ok 3 - truth\n# Looks like you failed 2 tests of 3\nFailed 2/3 subtests\n',
    );
    expect(run.stdout).toContain(
      [
        'Test Summary Report',
        '-------------------',
        'project/tests/rls/02_everyone.sql (Tests: 3 Failed: 2)',
        '  Failed tests:  1, 2',
        'Files=2, Tests=7',
        'Result: FAIL',
        'Failed 1/2 test programs. 2/7 subtests failed.',
        '',
      ].join('\n'),
    );

    // One file by path, passing: exit 0 and pg_prove's summary.
    const one = await cli(
      ['db', 'test', join(project, 'tests', '01_notes.test.sql'), ...database],
      { cwd: root },
    );
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/ok\nAll tests successful\.\nFiles=1, Tests=4\nResult: PASS\n$/);

    // The rollbacks kept nothing, and pgTAP created for the runs is gone again.
    const check = await startServer({
      port: 0,
      ...(database[0] === '--data-dir'
        ? { dataDir: database[1] as string }
        : { databaseUrl: database[1] as string }),
    });
    try {
      const notes = await check.db.query('select body from public.notes order by id');
      expect(notes.rows).toEqual([{ body: 'mine' }, { body: 'theirs' }]);
      const pgtap = await check.db.query(`select 1 from pg_extension where extname = 'pgtap'`);
      expect(pgtap.rows).toEqual([]);
    } finally {
      await check.stop();
    }
  }, 300_000);

  it.skipIf(!haveHostPgtap)(
    'reports a file whose SQL fails as a failure, with the error',
    async () => {
      const file = join(root, 'broken.pg');
      writeFileSync(file, BROKEN);
      const run = await cli(['db', 'test', file, ...database], { cwd: root });
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(
        [
          'broken.pg ..',
          '1..2',
          'ok 1 - before the error',
          '# line 4: ERROR:  relation "no_such_table" does not exist',
          'the SQL failed: line 4: ERROR:  relation "no_such_table" does not exist',
        ].join('\n'),
      );
      expect(run.stdout).toContain('broken.pg (Tests: 1 Failed: 0)');
      expect(run.stdout).toContain('Failed 1/1 test programs. 0/1 subtests failed.');
    },
    300_000,
  );

  it('says what is wrong with the paths', async () => {
    const missing = await cli(['db', 'test', 'nowhere', ...database], { cwd: root });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('backend-server: nowhere does not exist\n');
    const empty = join(root, 'empty');
    mkdirSync(empty);
    const none = await cli(['db', 'test', 'empty', ...database], { cwd: root });
    expect(none.code).toBe(1);
    expect(none.stderr).toBe('backend-server: no test files (*.sql, *.pg) in empty\n');
  }, 120_000);
});

describe(`Drive's pgTAP tests (${databaseKind()})`, () => {
  const root = mkdtempSync(join(tmpdir(), 'db-test-drive-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.skipIf(!haveHostPgtap)(
    'pass on its migrations and seed',
    async () => {
      const { args, drop } = await projectDatabase(join(root, 'data'), DRIVE);
      try {
        const tests = fileURLToPath(new URL('../../../../apps/web/backend/tests', import.meta.url));
        const run = await cli(['db', 'test', tests, ...args], { cwd: root });
        expect(run.stderr).toBe('');
        expect(run.stdout).toMatch(
          /\nAll tests successful\.\nFiles=\d+, Tests=\d+\nResult: PASS\n$/,
        );
        expect(run.code).toBe(0);
      } finally {
        await drop();
      }
    },
    300_000,
  );
});

describe('pgTAP for PGlite from the machine', () => {
  it('reads the control file and the default version script, or nothing', () => {
    expect(hostPgtapFiles([join(tmpdir(), 'no-such-share-dir')])).toEqual([]);
    const found = hostPgtapFiles();
    if (found.length > 0) {
      expect(found.map((f) => f.name)).toEqual([
        'share/postgresql/extension/pgtap.control',
        expect.stringMatching(/^share\/postgresql\/extension\/pgtap--[\d.]+\.sql$/),
      ]);
    }
  });
});
