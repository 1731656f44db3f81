import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { workspaceAliases } from '../../vitest.workspace-aliases.ts';

// Suites where the database matters run twice: on in-memory PGlite and on a real
// PostgreSQL cluster that the `postgres` project's globalSetup starts in a temp dir.
const DATABASE_SUITES = [
  'test/db/**/*.test.ts',
  'test/auth/**/*.test.ts',
  'test/rest/**/*.test.ts',
  'test/storage/**/*.test.ts',
  'test/realtime/**/*.test.ts',
  'test/console/**/*.test.ts',
  'test/data/**/*.test.ts',
];

// Suites of the PostgreSQL server alone (its pipelined read path): the `postgres` project only.
// cron-real starts a cluster of its own, from an installation with Debian's pg_cron; the
// replica suites run PgBouncer and HAProxy in front of PostgreSQL.
const POSTGRES_ONLY = [
  'test/db/pipeline.test.ts',
  'test/db/cron-real.test.ts',
  'test/replicas/**/*.test.ts',
];

export default defineConfig({
  resolve: { alias: workspaceAliases },
  test: {
    reporters: ['default', 'json'],
    outputFile: { json: '.artifacts/test-report.json' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two files at a time even on 2 cores (vitest's default there is one): most of a file's
    // time is spent waiting on its server, its database or a timer, not on the CPU.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // A worker keeps its modules from file to file (`isolate: false`): the server's source is
    // loaded once per worker, not once per file (that was about a quarter of the suite's CPU
    // time). Each file starts and stops its own servers; the few that stub globals or fake
    // timers restore them.
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'pglite',
          include: ['test/**/*.test.ts'],
          exclude: POSTGRES_ONLY,
          globalSetup: ['test/support/global-snapshot.ts', 'test/support/global-ceph.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: [...DATABASE_SUITES, ...POSTGRES_ONLY],
          // They spawn the CLI on an embedded PGlite data dir whatever the project: once is
          // enough (the dump's restore into PostgreSQL with psql is in test/data/cli.test.ts).
          exclude: ['test/data/start.test.ts', 'test/data/cli-data-dir.test.ts'],
          globalSetup: ['test/support/global-postgres.ts', 'test/support/global-ceph.ts'],
        },
      },
    ],
  },
});
