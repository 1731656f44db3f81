import { defineConfig } from 'vitest/config';
import { workspaceAliases } from '../../vitest.workspace-aliases.ts';

// Drive's backend tests (test/backend: migrations, row level security, Trash, quota,
// functions) run twice: on in-memory PGlite and on a real PostgreSQL cluster, which the
// server package's globalSetup starts in a temp dir for the run (see
// packages/backend-server/vitest.config.ts). The app's own unit tests (test/unit) and the
// functions' edge-runtime check (test/functions, which starts its own server) run once.
const BACKEND_SUITES = ['test/backend/**/*.test.ts'];

export default defineConfig({
  resolve: { alias: workspaceAliases },
  test: {
    reporters: ['default', 'json'],
    outputFile: { json: '.artifacts/test-report.json' },
    hookTimeout: 120_000,
    // Each backend test drives a real server through several requests (new accounts, uploads,
    // functions); on a busy 2-core machine 5 s is too little. The same bound as the server's.
    testTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'test/unit/**/*.test.ts',
            'test/unit/**/*.test.tsx',
            'test/functions/**/*.test.ts',
          ],
        },
      },
      // The backend suites share their worker's modules (`isolate: false`): the server's source
      // is loaded once per worker, not once per file. Each file starts and stops its own server.
      { extends: true, test: { name: 'pglite', include: BACKEND_SUITES, isolate: false } },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: BACKEND_SUITES,
          isolate: false,
          globalSetup: ['../../packages/backend-server/test/support/global-postgres.ts'],
        },
      },
    ],
  },
});
